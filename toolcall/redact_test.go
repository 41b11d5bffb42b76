package toolcall

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/internal/redact"
)

func TestRedacted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ word, want string }{
		{"ls", "ls"},
		{"-la", "-la"},
		{"src/main.go", "src/main.go"},
		{"--token=abc123", "--token=" + redact.Mask},
		{"API_KEY=xyz", "API_KEY=" + redact.Mask},
		{"ghp_" + strings.Repeat("a", 36), redact.Mask},
		{"xoxb-1234567890", redact.Mask},
		{"x=AKIAABCDEFGHIJKLMNOP", "x=AKIAABCDEFGHIJKLMNOP"[:2] + redact.Mask},
		{"Authorization: Bearer abcdefghijklmnop", "Authorization:" + redact.Mask},
		{"AIza" + strings.Repeat("b", 35), redact.Mask},
		{"https://user:pw@example.com/x", redact.URL("https://user:pw@example.com/x")},
	} {
		c := &Call{Commands: []Command{{Argv: []string{tc.word}}}}
		if got := c.Redacted().Commands[0].Argv[0]; got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.word, got, tc.want)
		}
	}
	c := &Call{Commands: []Command{{Argv: []string{"mysql", "--password", "hunter2", "db"}}}}
	if got := strings.Join(c.Redacted().Commands[0].Argv, " "); got != "mysql --password "+redact.Mask+" db" {
		t.Errorf("--password: %q", got)
	}
}

// TestTokenHints holds mayHoldToken, the shortcut that spares most words the expression, to
// tokenFormat itself: every word the expression matches must pass the shortcut.
func TestTokenHints(t *testing.T) {
	t.Parallel()
	samples := []string{
		"ghp_" + strings.Repeat("A", 20), "gho_" + strings.Repeat("1", 30), "github_pat_" + strings.Repeat("x", 20),
		"glpat-" + strings.Repeat("y", 20), "xoxb-0123456789", "xoxs-" + strings.Repeat("z", 20), "sk-" + strings.Repeat("k", 20),
		"A3TX" + strings.Repeat("Q", 16), "AKIA" + strings.Repeat("Q", 16), "ASIA" + strings.Repeat("Q", 16), "AGPA" + strings.Repeat("Q", 16),
		"AIDA" + strings.Repeat("Q", 16), "AROA" + strings.Repeat("Q", 16), "ANPA" + strings.Repeat("Q", 16), "ANVA" + strings.Repeat("Q", 16),
		"AIza" + strings.Repeat("_", 35), "npm_" + strings.Repeat("n", 36), "sk_live_" + strings.Repeat("s", 20), "rk_test_" + strings.Repeat("r", 20),
		"eyJ" + strings.Repeat("h", 10) + "." + strings.Repeat("p", 10) + "." + strings.Repeat("s", 10),
		"BEARER " + strings.Repeat("t", 12), "Basic\t" + strings.Repeat("b", 12),
	}
	alphabet := "abcxyzAKIQS_-.=: 0123456789ghpobeBErasicjJkpnmtlv"
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, 10+r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		samples = append(samples, string(b))
	}
	matched := 0
	for _, w := range samples {
		for _, s := range []string{w, "prefix " + w, w + " suffix"} {
			if tokenFormat().MatchString(s) {
				matched++
				if !mayHoldToken(s) {
					t.Errorf("tokenFormat matches %q, mayHoldToken says it cannot", s)
				}
			}
		}
	}
	if matched < 3*22 {
		t.Fatalf("only %d samples match tokenFormat: the samples no longer cover its formats", matched)
	}
}
