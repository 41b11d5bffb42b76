// Package httpx holds what agent-hooks' HTTP clients share (the webhook sender, the http-poll
// approval provider, the GitHub client): a URL that is a secret kept out of every error
// (internal/httpurl checks one), Retry-After, and the wait between attempts.
package httpx

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// RedactedURL stands for a secret URL (a webhook's, a poll's) wherever one would be shown.
const RedactedURL = "[webhook url redacted]"

// Sleep waits for d or until ctx is done (ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RetryAfter reads a Retry-After header (delay-seconds or an HTTP date) relative to now.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(n, 0)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Redact removes secret from an error's text: a *url.Error (which net/http returns, quoting the
// whole URL) is rebuilt around its cause, and any other occurrence of the secret, or of its
// path and query, is replaced. The result still wraps the original cause for errors.Is.
func Redact(err error, secret string) error {
	if err == nil || secret == "" {
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		cause := ue.Err
		msg := ue.Op + " " + RedactedURL
		if cause != nil {
			msg += ": " + Scrub(cause.Error(), secret)
		}
		return &redacted{msg: msg, cause: cause}
	}
	msg := err.Error()
	if s := Scrub(msg, secret); s != msg {
		return &redacted{msg: s, cause: errors.Unwrap(err)}
	}
	return err
}

// Scrub replaces secret in s, and its path and query on their own (a server may echo them).
func Scrub(s, secret string) string {
	s = strings.ReplaceAll(s, secret, RedactedURL)
	if u, err := url.Parse(secret); err == nil {
		if rest := strings.TrimPrefix(u.RequestURI(), "/"); len(rest) >= 8 {
			s = strings.ReplaceAll(s, rest, "[redacted]")
		}
	}
	return s
}

type redacted struct {
	msg   string
	cause error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.cause }
