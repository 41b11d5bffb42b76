package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkFireSessionBookkeeping fires an event that runs no hook, so that what is measured is
// the session's bookkeeping around it (the configuration, attaching the session, holding it while
// the event runs, the idle check of a run that finds its workspace's session), in a sessions
// folder of 10 and of 10,000 sessions: none of it may read the folder. "agent" is an agent's
// tool call (`agent-hooks hook claude`), "run" is `agent-hooks run` finding the workspace's
// active session.
func BenchmarkFireSessionBookkeeping(b *testing.B) {
	for _, n := range []int{10, 10000} {
		for _, kind := range []string{"agent", "run"} {
			b.Run(fmt.Sprintf("%s/sessions=%d", kind, n), func(b *testing.B) {
				root := b.TempDir()
				ws := filepath.Join(root, "ws")
				home := filepath.Join(root, "home", ".autoagent")
				if err := os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(`{"hooks": {}}`), 0o644); err != nil {
					b.Fatal(err)
				}
				populateSessions(b, filepath.Join(home, "sessions"), n)
				r := &Runner{
					Getenv: func(string) string { return "" }, Cwd: ws, Stdout: nil, Stderr: nil,
					AutoagentHome: home, Now: time.Now,
				}
				req := Request{Event: "PreToolUse", Workspace: ws}
				if kind == "agent" {
					req.Agent, req.AgentSessionID = "claude", "conv-1"
				} else {
					req.Event = "PostExecutionStart"
				}
				ctx := context.Background()
				if _, err := r.Fire(ctx, req); err != nil { // the session is created
					b.Fatal(err)
				}
				for b.Loop() {
					if _, err := r.Fire(ctx, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// populateSessions writes n ended sessions of other workspaces, with their trails.
func populateSessions(tb testing.TB, dir string, n int) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		ms := int64(1700000000000) + int64(i)*1000
		id := fmt.Sprintf("session-%d-%06d", ms, i)
		rec := fmt.Sprintf(`{"id":%q,"startTime":%q,"endTime":%q,"workspace":"/w/%d","command":"agent-hooks","args":[],"issuesPlanned":[],"issuesCompleted":[],"issuesFailed":[],"status":"completed","provider":"","metadata":{}}`,
			id, time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), time.UnixMilli(ms+500).UTC().Format(time.RFC3339Nano), i)
		if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(rec), 0o600); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id+".events.jsonl"), []byte("{}\n"), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
}
