package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/sessions"
)

// printSessionID prints a session's id alone on a line, or with asJSON its record.
func (a *app) printSessionID(sess *sessions.Session, asJSON bool) error {
	if asJSON {
		return writeJSON(a.stdout, sess)
	}
	_, err := fmt.Fprintln(a.stdout, sess.ID)
	return err
}

// reportProblems prints the files a command skipped, one line each, on stderr.
func (a *app) reportProblems(problems []error) {
	for _, p := range problems {
		fmt.Fprintf(a.stderr, "agent-hooks: warning: skipped %v\n", p)
	}
}

func sessTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
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
