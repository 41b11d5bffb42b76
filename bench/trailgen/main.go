// Command trailgen writes a session with a chained audit trail of N lines into a sessions folder,
// through sessions.Store.Append in batches, for the benchmarks of bench/trail.sh: hook runs of
// `run`, or with "calls" an agent's tool calls (per call three hook lines, one of them skipped,
// and the agent's answer with the call's shape, all with its toolUseId).
//
// Usage: trailgen SESSIONS_DIR ID N [calls]
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/autoagent/agent-hooks/sessions"
)

func main() {
	if len(os.Args) != 4 && (len(os.Args) != 5 || os.Args[4] != "calls") {
		fmt.Fprintln(os.Stderr, "usage: trailgen SESSIONS_DIR ID N [calls]")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], n, len(os.Args) == 5); err != nil {
		fmt.Fprintln(os.Stderr, "trailgen:", err)
		os.Exit(1)
	}
}

func run(dir, id string, n int, calls bool) error {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	store := sessions.New(dir, sessions.WithClock(func() time.Time { return at }))
	if _, err := store.Create(sessions.Params{ID: id, Workspace: "/work/repo", Command: "agent-hooks", Args: []string{"run"}}); err != nil {
		return err
	}
	const batch = 1000
	events := make([]sessions.Event, 0, batch)
	statuses := []string{"ok", "ok", "ok", "blocked", "skipped", "error"}
	for i := 0; i < n; i++ {
		st := statuses[i%len(statuses)]
		e := sessions.Event{
			Time: at.Add(time.Duration(i) * 37 * time.Millisecond), Event: "PreToolUse",
			Name: "lint-" + strconv.Itoa(i%7), Type: "command", Source: "project", Format: "autoagent",
			File: "/work/repo/.autoagent/config.json", Status: st, DurationMs: int64(i % 900),
		}
		if st == "blocked" {
			e.ExitCode, e.Decision, e.Reason = 2, "block", "2 lint errors in internal/runner/fire.go"
		}
		if st == "error" {
			e.ExitCode, e.Reason = 1, "exited with status 1: flaky network"
		}
		if calls {
			e = callLine(e, i)
		}
		events = append(events, e)
		if len(events) == batch || i == n-1 {
			if err := store.Append(id, events...); err != nil {
				return err
			}
			events = events[:0]
		}
	}
	_, err := store.Update(id, func(*sessions.Session) error { return nil }) // the record takes the head
	return err
}

// callLine makes line i a line of tool call i/4: its hooks' lines, then the agent's answer.
func callLine(e sessions.Event, i int) sessions.Event {
	e.ToolUseID = "toolu_" + strconv.Itoa(i/4)
	switch i % 4 {
	case 1:
		e.Status, e.ExitCode, e.Decision, e.Reason = "skipped", 0, "", `matcher: tools "Write" does not match Bash`
	case 3:
		e.Name, e.Type, e.Source, e.Format, e.File, e.ExitCode, e.DurationMs = "claude", "agent", "agent-hooks", "", "", 0, 0
		e.Status, e.Decision, e.Reason = "passed", "", ""
		if (i/4)%5 == 0 {
			e.Status, e.Decision, e.Reason = "answered", "deny", "rm is not allowed"
		}
		e.Details = map[string]any{"call": map[string]any{"tool": "Bash", "kind": "shell",
			"commands": []any{map[string]any{"argv": []any{"go", "test", "./internal/runner/..."}}}}}
	}
	return e
}
