package template

import "testing"

// payload is a payload of a named map type, as hooks.Payload is: the functions take it as the
// map[string]any it is.
type payload map[string]any

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
