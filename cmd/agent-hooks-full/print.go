package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/sessions"
)

// printSessionID prints a session's id alone on a line, or with asJSON its record.
func (a *app) printSessionID(sess *sessions.Session, asJSON bool) error {
	if asJSON {
		return cli.WriteJSON(a.Stdout, sess)
	}
	_, err := fmt.Fprintln(a.Stdout, sess.ID)
	return err
}

// reportProblems prints the files a command skipped, one line each, on stderr.
func (a *app) reportProblems(problems []error) {
	for _, p := range problems {
		fmt.Fprintf(a.Stderr, "agent-hooks: warning: skipped %v\n", p)
	}
}

func sessTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return string(appendSessTime(nil, t))
}

// appendSessTime appends t as sessTime prints it ("2006-01-02 15:04:05Z", in UTC), without the
// layout parsing of time.Format: a trail of a million lines prints a million of them.
func appendSessTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	two := func(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, "2006-01-02 15:04:05Z")
	}
	b = two(two(b, y/100), y%100)
	b = two(append(b, '-'), int(mo))
	b = two(append(b, '-'), d)
	b = two(append(b, ' '), h)
	b = two(append(b, ':'), mi)
	b = two(append(b, ':'), s)
	return append(b, 'Z')
}

func sessIssues(list []int) string {
	if len(list) == 0 {
		return "-"
	}
	parts := make([]string, len(list))
	for i, n := range list {
		parts[i] = fmt.Sprintf("#%d", n)
	}
	return strings.Join(parts, " ")
}

func sessHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func sessDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sessLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}
