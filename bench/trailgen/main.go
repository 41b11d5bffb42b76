// Command trailgen writes a session with a chained audit trail of N lines into a sessions folder,
// through sessions.Store.Append in batches, for the benchmarks of bench/trail.sh.
//
// Usage: trailgen SESSIONS_DIR ID N
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/autoagent/agent-hooks/sessions"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: trailgen SESSIONS_DIR ID N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], n); err != nil {
		fmt.Fprintln(os.Stderr, "trailgen:", err)
		os.Exit(1)
	}
}

func run(dir, id string, n int) error {
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
