// Package hooktest runs agents' hook events through agents.Handle in throwaway workspaces, with
// the real runner, sessions folder and sh hooks, and the inputs the agents really sent
// (testdata/agents): what the tests of each agent's Host share.
package hooktest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/sessions"
)

// Config is a native configuration of event's hooks, each a JSON object (Cmd).
func Config(event string, hooks ...string) string {
	return `{"hooks": {"` + event + `": [` + strings.Join(hooks, ", ") + `]}}`
}

// Cmd is a command hook's JSON object running command, with extra members ("\"timeout\": 5").
func Cmd(command string, extra ...string) string {
	b, _ := json.Marshal(command)
	return `{"command": ` + string(b) + strings.Join(append([]string{""}, extra...), ", ") + `}`
}

// Env is a workspace with a configuration, an AUTOAGENT_HOME and an environment of its own.
type Env struct {
	t         testing.TB
	Workspace string
	Vars      map[string]string // the environment the agent runs the hook with
	Runner    *runner.Runner
	Messages  *Buffer // agent-hooks' own messages and the hooks' stderr
	// Registry, when set, is called on every registry (to add a type or a format).
	Registry func(*hooks.Registry)
	// Event is the --event of every Handle (the event of an agent whose input names none).
	Event string
}

// New makes a workspace whose .autoagent/config.json is config.
func New(t testing.TB, config string) *Env {
	t.Helper()
	root := t.TempDir()
	e := &Env{t: t, Workspace: filepath.Join(root, "ws"), Vars: map[string]string{}, Messages: &Buffer{}}
	e.Write(".autoagent/config.json", config)
	e.Runner = &runner.Runner{
		Getenv:  func(k string) string { return e.Vars[k] },
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root},
		Cwd:     root, Stdout: &bytes.Buffer{}, Stderr: e.Messages,
		AutoagentHome: filepath.Join(root, "home", ".autoagent"),
		NewRegistry: func() *hooks.Registry {
			reg := hooks.NewRegistry()
			if e.Registry != nil {
				e.Registry(reg)
			}
			return reg
		},
	}
	return e
}

// Write writes a file of the workspace.
func (e *Env) Write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.Workspace, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// Read reads a file of the workspace ("" when it does not exist).
func (e *Env) Read(rel string) string {
	b, _ := os.ReadFile(filepath.Join(e.Workspace, filepath.FromSlash(rel)))
	return string(b)
}

var cwdRE = regexp.MustCompile(`"(?:cwd|rootPath)":\s*"([^"]*)"`)

// Input is the captured input testdata/agents/<agent>/<name>.json, with the capture machine's
// project directory (its cwd; Cline's rootPath) replaced by the workspace everywhere (cwd, file paths), and the
// fields of set replaced or added.
func (e *Env) Input(agent, name string, set map[string]any) []byte {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata(e.t), agent, name+".json"))
	if err != nil {
		e.t.Fatal(err)
	}
	if m := cwdRE.FindSubmatch(b); m != nil {
		b = bytes.ReplaceAll(b, m[1], []byte(e.Workspace))
	}
	if len(set) == 0 {
		return b
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		e.t.Fatal(err)
	}
	for k, v := range set {
		if v == nil {
			delete(fields, k)
		} else {
			fields[k] = v
		}
	}
	out, err := json.Marshal(fields)
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// testdata is the repository's testdata/agents.
func testdata(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "agents")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// Handle answers input as `agent-hooks hook <agent> --timeout <timeout>` would, and waits for
// whatever it left running.
func (e *Env) Handle(h agents.Agent, input []byte, timeout time.Duration) agents.Reply {
	e.t.Helper()
	reply := agents.Handle(context.Background(), agents.Options{
		Agent: h, Runner: e.Runner, Stdin: bytes.NewReader(input),
		Getenv: func(k string) string { return e.Vars[k] }, Timeout: timeout, Messages: e.Messages,
		Event: e.Event,
	})
	reply.Wait()
	return reply
}

// Answer is Handle's stdout, failing the test unless it exited 0 and printed at most one JSON
// document.
func (e *Env) Answer(h agents.Agent, input []byte, timeout time.Duration) string {
	e.t.Helper()
	reply := e.Handle(h, input, timeout)
	if reply.ExitCode != 0 {
		e.t.Fatalf("exit %d, stderr %q", reply.ExitCode, reply.Stderr)
	}
	out := strings.TrimSpace(string(reply.Stdout))
	if out != "" {
		dec := json.NewDecoder(strings.NewReader(out))
		var v map[string]any
		if err := dec.Decode(&v); err != nil || dec.More() {
			e.t.Fatalf("stdout is not one JSON object (%v): %s", err, out)
		}
	}
	return out
}

// Sessions lists the sessions, newest first.
func (e *Env) Sessions() []*sessions.Session {
	e.t.Helper()
	list, problems, err := e.Runner.Store().List(0)
	if err != nil || len(problems) > 0 {
		e.t.Fatalf("list sessions: %v %v", err, problems)
	}
	return list
}

// Trail is the audit trail of session id.
func (e *Env) Trail(id string) []sessions.Event {
	e.t.Helper()
	events, problems, err := e.Runner.Store().Events(id)
	if err != nil || len(problems) > 0 {
		e.t.Fatalf("audit trail: %v %v", err, problems)
	}
	return events
}

// Buffer is a bytes.Buffer safe for concurrent writers.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
