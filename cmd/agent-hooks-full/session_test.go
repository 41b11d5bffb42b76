package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/autoagent/agent-hooks/sessions"
	"github.com/autoagent/agent-hooks/sessions/view"
)

// countingWriter counts the writes it is given.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestSessionOutputIsBuffered: `session show` and `session list` reach stdout in one write, not
// one per table cell (issue 18: ~18 write(2) per line), and print the same table.
func TestSessionOutputIsBuffered(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 7
	s := &sessions.Session{
		ID: "session-1704067200000-abcdef", Status: sessions.StatusActive, Workspace: "/work/ws",
		StartTime: start, Command: "agent-hooks", Args: []string{"run"}, IssuesPlanned: []int{7, 8},
		IssuesCompleted: []int{8}, CurrentIssue: &n, Provider: "claude",
	}
	trail := []sessions.Event{
		{Time: start, Event: "PreExecutionEnd", Name: "lint", Source: "project", Status: "ok", DurationMs: 12},
		{Time: start, Event: "PreExecutionEnd", Name: "test", Source: "project", Status: "blocked", ExitCode: 2, Decision: "block", Reason: "tests fail"},
	}

	var lines bytes.Buffer
	for _, e := range trail {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(append(b, '\n'))
	}
	src := trailSource{name: "events.jsonl", open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(lines.Bytes())), nil
	}}

	var show, events countingWriter
	if err := printSession(&show, s, nil); err != nil {
		t.Fatal(err)
	}
	if err := printTrail(&events, src, false, func(err error) { t.Error(err) }); err != nil {
		t.Fatal(err)
	}
	var calls countingWriter
	if err := view.Table(&calls, view.Trail{Name: src.name, Open: src.open}, view.Options{Problem: func(err error) { t.Error(err) }}); err != nil {
		t.Fatal(err)
	}
	if show.writes != 1 || events.writes != 1 || calls.writes != 1 {
		t.Errorf("session show: %d writes for the record, %d for the trail and %d for the calls, want 1 each", show.writes, events.writes, calls.writes)
	}
	for _, want := range []string{"id:         session-1704067200000-abcdef\n", "current:    #7\n"} {
		if !strings.Contains(show.String(), want) {
			t.Errorf("session show output lacks %q:\n%s", want, show.String())
		}
	}
	if !strings.Contains(events.String(), "tests fail\n") {
		t.Errorf("session show --events output lacks the reason:\n%s", events.String())
	}

	var list countingWriter
	other := *s
	other.ID = "session-1704067100000-zzzzzz"
	if err := printSessionList(&list, []*sessions.Session{s, &other}, s.ID, nil); err != nil {
		t.Fatal(err)
	}
	if list.writes != 1 {
		t.Errorf("session list: %d writes, want 1", list.writes)
	}
	if want := "* session-1704067200000-abcdef  -     -      active"; !strings.Contains(list.String(), want) {
		t.Errorf("session list output lacks %q:\n%s", want, list.String())
	}
}

// TestPrintTrailLaysOutAsTabwriter: `session show --events` lays its table out as text/tabwriter
// does (two spaces between columns, widths in characters, the reason last and not padded), each
// cell as the event holds it: times to the second in UTC (the same second twice, the seconds on
// either side of one, two of one minute, a time in another zone, none), an agent's escapes and
// wide characters. With blocked, only the refusals, in columns as wide as they need.
func TestPrintTrailLaysOutAsTabwriter(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 1, 1, 0, 0, 59, 963000000, time.UTC)
	trail := []sessions.Event{
		{Time: at, Event: "PreToolUse", Name: "lint", Source: "project", Status: "ok", DurationMs: 7},
		{Time: at.Add(30 * time.Millisecond), Event: "PreToolUse", Name: "lint", Source: "project", Status: "ok", DurationMs: 1234567},
		{Time: at.Add(40 * time.Millisecond), Event: "PreToolUse", Name: "tëst-日本", Source: "project", Status: "blocked", ExitCode: 2, Decision: "block", Reason: "  2 errors\nin fire.go  "},
		{Event: "Stop", Name: "no-time", Source: "user", Status: "error", ExitCode: -1, Reason: "exited"},
		{Time: at.Add(40 * time.Millisecond).In(time.FixedZone("X", 3600)), Event: "Stop", Name: "zone", Source: "user", Status: "ok"},
		{Time: at.Add(2 * time.Second), Event: "Stop", Name: "next-second", Source: "user", Status: "ok"},
		{Time: at.Add(time.Hour), Event: "PreToolUse\x1b[2J", Name: "bidi\u202e", Source: "plugin", Status: "refused", Decision: "deny", Reason: "agent \x07 said"},
		{Time: time.Date(1, 1, 1, 0, 0, 0, 500, time.UTC), Event: "Stop", Name: "year-one", Source: "user", Status: "ok"},
	}
	var lines bytes.Buffer
	for _, e := range trail {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(append(b, '\n'))
	}
	lines.WriteString("{\"torn\n")
	src := trailSource{name: "events.jsonl", open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(lines.Bytes())), nil
	}}
	for _, blocked := range []bool{false, true} {
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(trailHeader[:], "\t"))
		for _, e := range trail {
			refused := e.Status == "blocked" || e.Status == "refused" || e.Decision == "block" || e.Decision == "deny"
			if blocked && !refused {
				continue
			}
			when := "-"
			if !e.Time.IsZero() {
				when = e.Time.UTC().Format("2006-01-02 15:04:05Z")
			}
			decision := view.Printable(e.Decision)
			if decision == "" {
				decision = "-"
			}
			reason := strings.TrimSpace(e.Reason)
			if i := strings.IndexByte(reason, '\n'); i >= 0 {
				reason = reason[:i] + " …"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", when, view.Printable(e.Event), view.Printable(e.Name),
				view.Printable(e.Source), view.Printable(e.Status), e.ExitCode, e.DurationMs, decision, view.Printable(reason))
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		problems := 0
		if err := printTrail(&got, src, blocked, func(error) { problems++ }); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("printTrail (blocked %v) =\n%s\nwant (text/tabwriter)\n%s", blocked, got.String(), want.String())
		}
		if problems != 1 {
			t.Errorf("printTrail (blocked %v) reported %d problems, want 1 (the torn line)", blocked, problems)
		}
	}
}
