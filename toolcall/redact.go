package toolcall

import (
	"regexp"
	"strings"
	"sync"

	"github.com/autoagent/agent-hooks/internal/redact"
)

// Redacted is a copy of the call fit for the audit trail: the words of its commands that look like
// secrets — the value of a password or token option, of a variable named like one, a well-known
// token format, the credentials in a URL — replaced by redact.Mask. Contents were never part of a
// call; paths are kept.
func (c *Call) Redacted() *Call {
	out := *c
	out.Commands = make([]Command, len(c.Commands))
	for i, cmd := range c.Commands {
		argv := make([]string, len(cmd.Argv))
		secretNext := false
		for j, w := range cmd.Argv {
			switch {
			case secretNext:
				argv[j] = redact.Mask
				secretNext = false
				continue
			case secretOption(w):
				secretNext = true
			}
			argv[j] = redactWord(w)
		}
		cmd.Argv = argv
		out.Commands[i] = cmd
	}
	if out.URL != "" {
		out.URL = redact.URL(out.URL)
	}
	out.Writes, out.Reads, out.Names = redactAll(c.Writes), redactAll(c.Reads), redactAll(c.Names)
	return &out
}

// secretOption reports whether an option takes a secret as its next word (--password x, -p x
// of tools that mean a password by it, a header carrying credentials).
func secretOption(w string) bool {
	switch strings.ToLower(w) {
	case "--password", "--passwd", "--token", "--secret", "--api-key", "--apikey", "--access-token",
		"--auth", "--client-secret", "--private-key", "-u", "--user", "--oauth2-bearer":
		return true
	}
	return false
}

var (
	secretName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(-{0,2}[a-z0-9_.-]*(token|secret|passw(or)?d|api[_-]?key|auth|credential|private[_-]?key)[a-z0-9_.-]*)[=:](.+)$`)
	})
	tokenFormat = sync.OnceValue(func() *regexp.Regexp {
		// Prefixed token formats that are unambiguous: GitHub, GitLab, Slack, OpenAI/Anthropic-style
		// keys, AWS access key ids, Google API keys, npm, Stripe, JWTs, bearer headers.
		return regexp.MustCompile(`(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[baprs]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,}|(A3T[A-Z0-9]|AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)[A-Z0-9]{16}|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36}|[sr]k_(live|test)_[0-9a-zA-Z]{20,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}|(?i:bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,})`)
	})
)

func redactAll(words []string) []string {
	if len(words) == 0 {
		return nil
	}
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = redactWord(w)
	}
	return out
}

func redactWord(w string) string {
	if strings.ContainsAny(w, "=:") {
		if m := secretName().FindStringSubmatch(w); m != nil {
			return m[1] + w[len(m[1]):len(m[1])+1] + redact.Mask
		}
	}
	if mayHoldToken(w) {
		w = tokenFormat().ReplaceAllString(w, redact.Mask)
	}
	return redact.URL(w)
}

// shortestToken is the length of tokenFormat's shortest match (xoxb- and ten characters).
const shortestToken = 15

// tokenHints are literal parts of tokenFormat's formats, one of which every match contains
// (bearer and basic in any case): a word without any cannot match, which spares the call,
// whose commands are mostly short words, compiling and running the expression.
var tokenHints = []string{"gh", "github_pat_", "glpat-", "xox", "sk-", "A3T", "AKIA", "ASIA", "AGPA", "AIDA",
	"AROA", "ANPA", "ANVA", "AIza", "npm_", "k_live_", "k_test_", "eyJ"}

// mayHoldToken reports whether w may hold a match of tokenFormat.
func mayHoldToken(w string) bool {
	if len(w) < shortestToken {
		return false
	}
	for _, h := range tokenHints {
		if strings.Contains(w, h) {
			return true
		}
	}
	lw := strings.ToLower(w)
	return strings.Contains(lw, "bearer") || strings.Contains(lw, "basic")
}
