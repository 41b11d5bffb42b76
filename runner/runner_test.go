package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/testkit"
	"github.com/autoagent/agent-hooks/sessions"
)

// syncBuffer and clock are the tests' shared ones.
type (
	syncBuffer = testkit.Buffer
	clock      = testkit.Clock
)

// harness is a Runner over temporary directories: a workspace (the working directory), an
// AUTOAGENT_HOME, and an environment of its own.
type harness struct {
	t      *testing.T
	r      *Runner
	ws     string // the workspace, also the working directory
	env    map[string]string
	stdout *syncBuffer
	stderr *syncBuffer
	clock  *clock
}

func newHarness(t *testing.T, config string) *harness {
	t.Helper()
	root := t.TempDir()
	h := &harness{
		t: t, ws: filepath.Join(root, "ws"), env: map[string]string{},
		stdout: &syncBuffer{}, stderr: &syncBuffer{},
		clock: &clock{T: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	h.writeConfig(h.ws, config)
	h.r = &Runner{
		Getenv:        func(k string) string { return h.env[k] },
		Environ:       []string{"PATH=" + os.Getenv("PATH")},
		Cwd:           h.ws,
		Stdout:        h.stdout,
		Stderr:        h.stderr,
		Now:           h.clock.Now,
		AutoagentHome: filepath.Join(root, "home", ".autoagent"),
	}
	return h
}

// writeConfig writes dir/.autoagent/config.json.
func (h *harness) writeConfig(dir, config string) {
	h.t.Helper()
	write(h.t, filepath.Join(dir, ".autoagent", "config.json"), config)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fire fires req and fails the test on an error.
func (h *harness) fire(req Request) *Fired {
	h.t.Helper()
	out, err := h.r.Fire(context.Background(), req)
	if err != nil {
		h.t.Fatalf("fire %s: %v", req.Event, err)
	}
	return out
}

// session reads session id.
func (h *harness) session(id string) *sessions.Session {
	h.t.Helper()
	s, err := h.r.Store().Get(id)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

// sessionIDs lists the sessions in the store, newest first.
func (h *harness) sessionIDs() []string {
	h.t.Helper()
	list, problems, err := h.r.Store().List(0)
	if err != nil || len(problems) > 0 {
		h.t.Fatalf("list sessions: %v %v", err, problems)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

// current is the id the current link points at.
func (h *harness) current() string {
	h.t.Helper()
	id, err := h.r.Store().CurrentID()
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// trail reads the audit trail of session id.
func (h *harness) trail(id string) []sessions.Event {
	h.t.Helper()
	events, problems, err := h.r.Store().Events(id)
	if err != nil || len(problems) > 0 {
		h.t.Fatalf("audit trail: %v %v", err, problems)
	}
	return events
}

// payloads reads the JSON lines a hook appended to a workspace file with `cat >> file; echo >> file`.
func payloads(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// recorder is a format's extension: it runs after the session's and sees each result as they
// left it.
type recorder struct {
	mu      sync.Mutex
	blocked []bool
}

func (x *recorder) BeforeEvent(context.Context, *hooks.EventInfo) error { return nil }

// extensionFormat is a format that configures no hooks, only its extension.
type extensionFormat struct{ x hooks.Extension }

func (extensionFormat) Name() string { return "extension-only" }

func (f extensionFormat) Load(hooks.LoadEnv) (hooks.Loaded, error) {
	return hooks.Loaded{Extension: f.x}, nil
}

func (x *recorder) AfterEvent(_ context.Context, _ *hooks.EventInfo, res *hooks.Result) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.blocked = append(x.blocked, res.Blocked)
	return nil
}
