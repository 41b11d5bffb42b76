// Package redact owns how agent-hooks keeps secrets out of what it prints: tokens, and the
// credentials written into URLs (scheme://user:password@host). gitops scrubs push errors and
// progress with it, github every API error, so that no message, --json result, audit line or
// step output ever carries a token.
package redact

import (
	"errors"
	"io"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Mask stands for a removed secret.
const Mask = "***"

var userinfo = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`://[^/@\s]+@`) })

// URL removes the credentials of every URL in s.
func URL(s string) string { return userinfo().ReplaceAllString(s, "://"+Mask+"@") }

// String removes every secret, and the credentials of every URL, from s.
func String(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, Mask)
		}
	}
	return URL(s)
}

// minURLSecret is the length below which a part of a URL's credentials is not treated as a secret
// of its own: replacing "git" or "x" everywhere would garble every message, and no token is that
// short. The credentials are still removed from the URL itself by URL.
const minURLSecret = 4

// URLSecrets are the credentials written into raw, a URL (well-formed or not): the username and
// the password, as written and decoded, so that they can be removed wherever they show up without
// the URL around them (a server echoing them, a parser quoting part of the URL). The username is
// one of them because a token is often written as one (https://TOKEN@host/).
func URLSecrets(raw string) []string {
	s := raw
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if j := strings.IndexAny(s, "/?#"); j >= 0 {
		s = s[:j]
	}
	at := strings.LastIndex(s, "@")
	if at < 0 {
		return nil
	}
	user, pass, _ := strings.Cut(s[:at], ":")
	var out []string
	for _, part := range []string{user, pass} {
		if len(part) >= minURLSecret {
			out = append(out, part)
		}
		if dec, err := url.PathUnescape(part); err == nil && dec != part && len(dec) >= minURLSecret {
			out = append(out, dec)
		}
	}
	return out
}

// Error is err with every secret (and URL credentials) removed from its message, or err itself
// when its message has none. errors.Is still sees what err matched (context.Canceled, …), but the
// result does not unwrap to err, whose message carries the secret.
func Error(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if s := String(msg, secrets); s != msg {
		return &scrubbed{msg: s, cause: err}
	}
	return err
}

type scrubbed struct {
	msg   string
	cause error
}

func (e *scrubbed) Error() string        { return e.msg }
func (e *scrubbed) Is(target error) bool { return errors.Is(e.cause, target) }

// Writer passes writes on to W with the secrets removed. A secret split across two writes is not
// recognised: hand it whole lines (git's progress output is).
type Writer struct {
	W       io.Writer
	Secrets []string
}

func (w *Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, String(string(p), w.Secrets)); err != nil {
		return 0, err
	}
	return len(p), nil
}
