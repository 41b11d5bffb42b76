package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/sessions"
	"github.com/autoagent/agent-hooks/sessions/view"
)

// showOptions are the flags of `session show` that choose what it prints.
type showOptions struct {
	json, events, blocked, html, markdown bool
}

func (o *showOptions) flags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&o.json, "json", false, "print the session record as JSON")
	fl.BoolVar(&o.events, "events", false, "show the audit trail, one row per hook execution, instead of one per tool call")
	fl.BoolVar(&o.blocked, "blocked", false, "show only the calls and hooks that were refused")
	fl.BoolVar(&o.html, "html", false, "write a self-contained HTML page with a timeline of the session's calls")
	fl.BoolVar(&o.markdown, "markdown", false, "write GitHub-flavoured Markdown with a Mermaid timeline of the session's calls")
}

// check refuses the flags that cannot go together.
func (o *showOptions) check() error {
	formats := 0
	for _, set := range []bool{o.json, o.html, o.markdown} {
		if set {
			formats++
		}
	}
	switch {
	case formats > 1:
		return errors.New("--json, --html and --markdown each choose the output: give one")
	case o.blocked && o.json:
		return errors.New("--blocked filters the tables; with --json, filter with jq (select(.decision == \"deny\" or .status == \"blocked\"))")
	case o.events && (o.html || o.markdown):
		return errors.New("--events is the audit trail as a table or in --json; --html and --markdown show the calls")
	}
	return nil
}

// showSession prints a session as the options say: its record and a view of its trail (the
// calls, or with events its lines), as JSON, HTML or Markdown. A session whose push did not
// happen (pending, nil for none) says so.
func (a *app) showSession(sess *sessions.Session, pending *sessions.PendingPush, src trailSource, o showOptions) error {
	problem := func(err error) { a.reportProblems([]error{err}) }
	trail := view.Trail{Name: src.name, Open: src.open}
	vo := view.Options{Blocked: o.blocked, Problem: problem}
	switch {
	case o.json && o.events:
		return writeSessionJSON(a.Stdout, sess, pending, src, problem)
	case o.json:
		rec, err := recordJSON(sess, pending)
		if err != nil {
			return err
		}
		_, err = a.Stdout.Write(append(rec, '\n'))
		return err
	case o.html:
		return view.HTML(a.Stdout, sess, trail, vo)
	case o.markdown:
		return view.Markdown(a.Stdout, sess, trail, view.MarkdownOptions{Options: vo})
	}
	if err := printSession(a.Stdout, sess, pending); err != nil {
		return err
	}
	fmt.Fprintln(a.Stdout)
	if o.events {
		return printTrail(a.Stdout, src, o.blocked, problem)
	}
	return view.Table(a.Stdout, trail, vo)
}
