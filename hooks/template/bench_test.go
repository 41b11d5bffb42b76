package template

import "testing"

func BenchmarkExpandCommand(b *testing.B) {
	p := payload{"issueNumber": 42, "issueTitle": "Fix 'login' $(now)", "meta": map[string]any{"k": "v"}}
	for b.Loop() {
		ExpandCommand(`echo "Issue {{issueNumber}}: {{issueTitle}}" && test '{{meta.k}}' = v`, p)
	}
}
