package httpurl

import (
	"strings"
	"testing"
)

func TestCheckNeverQuotesIt(t *testing.T) {
	t.Parallel()
	for raw, ok := range map[string]bool{
		"https://hooks.test/secretTOKEN": true, "http://127.0.0.1:8080/x": true,
		"": false, "ftp://hooks.test/secretTOKEN": false, "hooks.test/secretTOKEN": false, "https:///secretTOKEN": false,
		"http://[::1/secretTOKEN": false,
	} {
		err := Check(raw)
		if (err == nil) != ok {
			t.Errorf("Check(%q) = %v, want ok %v", raw, err, ok)
		}
		if err != nil && strings.Contains(err.Error(), "secretTOKEN") {
			t.Errorf("Check(%q) quotes it: %v", raw, err)
		}
	}
}
