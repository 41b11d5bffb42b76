package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
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
