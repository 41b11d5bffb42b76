package remote

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/sessions"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of hooks and goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// clock advances by a second on every reading, so that sessions created one after the other have
// distinct, ordered ids.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// harness is a runner over temporary directories, a workspace (the working directory) and an
// AUTOAGENT_HOME, that pushes its sessions at their end as the full program does.
type harness struct {
	t      *testing.T
	r      *runner.Runner
	ws     string
	stderr *syncBuffer
}

func newHarness(t *testing.T, config string) *harness {
	t.Helper()
	root := t.TempDir()
	h := &harness{t: t, ws: filepath.Join(root, "ws"), stderr: &syncBuffer{}}
	h.writeConfig(h.ws, config)
	c := &clock{t: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	h.r = &runner.Runner{
		Getenv:        func(string) string { return "" },
		Environ:       []string{"PATH=" + os.Getenv("PATH")},
		Cwd:           h.ws,
		Stdout:        &syncBuffer{},
		Stderr:        h.stderr,
		Now:           c.now,
		AutoagentHome: filepath.Join(root, "home", ".autoagent"),
		AtSessionEnd:  AtEnd,
	}
	return h
}

// writeConfig writes dir/.autoagent/config.json.
func (h *harness) writeConfig(dir, config string) {
	h.t.Helper()
	path := filepath.Join(dir, ".autoagent", "config.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) start() *sessions.Session {
	h.t.Helper()
	s, err := h.r.Start(runner.StartRequest{Command: "agent", Args: []string{"--all"}, Provider: "claude"})
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func (h *harness) end(req runner.EndRequest) *runner.Fired {
	h.t.Helper()
	out, err := h.r.EndSession(context.Background(), req)
	if err != nil {
		h.t.Fatalf("end session: %v", err)
	}
	return out
}
