package redact

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Bearer ghs_secret1234 refused", "Bearer *** refused"},
		{`Get "https://x-access-token:pw@host/x": eof`, `Get "https://***@host/x": eof`},
		{`clone https://ghs_secret1234@host/o/r`, `clone https://***@host/o/r`},
		{"nothing here", "nothing here"},
	} {
		if got := String(tc.in, []string{"ghs_secret1234", ""}); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestURLSecrets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		want []string
	}{
		{"https://x-access-token:ghs_abcd@api.example.com/", []string{"x-access-token", "ghs_abcd"}},
		{"https://ghp_abcdef@api.example.com/api/v3", []string{"ghp_abcdef"}},
		{"x-access-token:ghp_abcd@127.0.0.1:1/", []string{"x-access-token", "ghp_abcd"}}, // no scheme: url.Parse misreads it
		{"https://user:p%40ss%2Fword@host/", []string{"user", "p%40ss%2Fword", "p@ss/word"}},
		{"https://git:x@host/", nil}, // too short to be a token, and removed from the URL by URL
		{"https://api.github.com/users/a@b", nil},
		{"", nil},
	} {
		if got := URLSecrets(tc.raw); !slices.Equal(got, tc.want) {
			t.Errorf("URLSecrets(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestError(t *testing.T) {
	t.Parallel()
	inner := fmt.Errorf("post: token ghs_secret1234: %w", context.DeadlineExceeded)
	err := Error(inner, []string{"ghs_secret1234"})
	if got, want := err.Error(), "post: token ***: context deadline exceeded"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("the scrubbed error no longer matches context.DeadlineExceeded")
	}
	for e := error(err); e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), "ghs_secret1234") {
			t.Errorf("the secret is reachable through Unwrap: %q", e.Error())
		}
	}
	clean := errors.New("nothing secret")
	if Error(clean, []string{"ghs_secret1234"}) != clean {
		t.Error("an error without a secret should be returned as it is")
	}
	if Error(nil, nil) != nil {
		t.Error("Error(nil) != nil")
	}
}

func TestWriter(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	w := &Writer{W: &b, Secrets: []string{"ghs_secret1234"}}
	n, err := fmt.Fprintf(w, "remote: token ghs_secret1234 at https://u:p@host/\n")
	if err != nil || n != len("remote: token ghs_secret1234 at https://u:p@host/\n") {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got, want := b.String(), "remote: token *** at https://***@host/\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
