// Package seedtest builds throwaway workspaces for the seed formats' tests: real files and
// executable scripts in a temporary directory, loaded with hooks.Load and fired through the real
// hooks.Engine, so a format is tested exactly the way `agent-hooks run` uses it.
package seedtest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// Workspace is a temporary workspace with its own home directory and environment.
type Workspace struct {
	t       testing.TB
	Dir     string            // the workspace
	Home    string            // the user's home (~)
	Env     map[string]string // the environment agent-hooks sees, besides PATH and HOME
	Session string            // the session id events are fired in
	// Formats are registered, in order, by Load and Fire.
	Formats []hooks.Format
	// Types are the built-in hook types registered with them (a format whose hooks are approval
	// or webhook hooks needs those).
	Types    map[string]hooks.Type
	LoopFile string
}

// New returns an empty workspace using formats.
func New(t testing.TB, formats []hooks.Format) *Workspace {
	t.Helper()
	root := t.TempDir()
	w := &Workspace{
		t: t, Dir: filepath.Join(root, "ws"), Home: filepath.Join(root, "home"),
		Env: map[string]string{}, Session: "session-1-test00", Formats: formats,
	}
	for _, d := range []string{w.Dir, w.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// Write creates the file rel (relative to the workspace, or to the home when it starts with
// "~/") with the given content and mode, and returns its absolute path.
func (w *Workspace) Write(rel, content string, mode os.FileMode) string {
	w.t.Helper()
	path := filepath.Join(w.Dir, rel)
	if h, ok := strings.CutPrefix(rel, "~/"); ok {
		path = filepath.Join(w.Home, h)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // WriteFile's mode is filtered by the umask
		w.t.Fatal(err)
	}
	return path
}

// Read returns the content of the workspace file rel ("" if it does not exist).
func (w *Workspace) Read(rel string) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.Dir, rel))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.t.Fatal(err)
	}
	return string(b)
}

// Getenv is the workspace's environment lookup.
func (w *Workspace) Getenv(k string) string { return w.Env[k] }

// LoadEnv is what the loaders see.
func (w *Workspace) LoadEnv() hooks.LoadEnv {
	return hooks.LoadEnv{
		Workspace: w.Dir, UserHome: w.Home, AutoagentHome: filepath.Join(w.Home, ".autoagent"),
		Getenv: w.Getenv, LoopFile: w.LoopFile,
	}
}

// Registry registers the workspace's formats.
func (w *Workspace) Registry() *hooks.Registry {
	reg := hooks.NewRegistry()
	for name, t := range w.Types {
		reg.Register(name, t)
	}
	for _, f := range w.Formats {
		reg.RegisterFormat(f)
	}
	return reg
}

// Load loads the configuration the way `agent-hooks run` does.
func (w *Workspace) Load() (*hooks.Config, error) {
	return hooks.Load(w.Registry(), w.LoadEnv())
}

// Engine loads the configuration (failing the test on an error) and returns an engine for it.
func (w *Workspace) Engine() *hooks.Engine {
	w.t.Helper()
	cfg, err := hooks.Load(w.Registry(), w.LoadEnv())
	if err != nil {
		w.t.Fatalf("load: %v", err)
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.Home}
	for k, v := range w.Env {
		environ = append(environ, k+"="+v)
	}
	return &hooks.Engine{
		Config: cfg, Workspace: w.Dir, SessionID: w.Session,
		Getenv: w.Getenv, Environ: environ,
		State: sessions.New(filepath.Join(w.Home, ".autoagent", "sessions")).SessionState(w.Session),
	}
}

// Fire fires event with data (key, value pairs) through a fresh engine.
func (w *Workspace) Fire(event string, data ...any) *hooks.Result {
	w.t.Helper()
	p := hooks.Payload{}
	for i := 0; i+1 < len(data); i += 2 {
		p[data[i].(string)] = data[i+1]
	}
	res, err := w.Engine().Fire(context.Background(), event, p)
	if err != nil {
		w.t.Fatalf("fire %s: %v", event, err)
	}
	return res
}

// Statuses lists "name=status" for every hook of a result, in run order.
func Statuses(res *hooks.Result) []string {
	out := make([]string, len(res.Hooks))
	for i, h := range res.Hooks {
		out[i] = h.Name + "=" + string(h.Status)
	}
	return out
}

// UseExample makes the repository's example workspace testdata/<name> (used by the README) the
// workspace, so that a test keeps it working. Tests must not change files there.
func (w *Workspace) UseExample(name string) {
	w.t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		w.t.Fatal(err)
	}
	w.Dir = dir
}

// BenchLoad measures loading w's configuration, the cost every `agent-hooks run` pays before
// its first hook starts.
func BenchLoad(b *testing.B, w *Workspace) {
	b.Helper()
	reg, env := w.Registry(), w.LoadEnv()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := hooks.Load(reg, env); err != nil {
			b.Fatal(err)
		}
	}
}
