package remote

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/internal/testkit"
	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/sessions"
)

// syncBuffer and clock are the tests' shared ones.
type (
	syncBuffer = testkit.Buffer
	clock      = testkit.Clock
)

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
	c := &clock{T: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	h.r = &runner.Runner{
		Getenv:        func(string) string { return "" },
		Environ:       []string{"PATH=" + os.Getenv("PATH")},
		Cwd:           h.ws,
		Stdout:        &syncBuffer{},
		Stderr:        h.stderr,
		Now:           c.Now,
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
