package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/autoagent/agent-hooks/hooks"
)

// FindWorkspace is flag (--workspace), else $GITHUB_WORKSPACE, else the nearest ancestor of cwd
// holding .autoagent/ or .git, else cwd (SPEC.md section 3). A relative flag is taken from cwd.
func FindWorkspace(flag, cwd string, getenv func(string) string) (string, error) {
	dir := flag
	if dir == "" && getenv != nil {
		dir = getenv("GITHUB_WORKSPACE")
	}
	if dir != "" {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		st, err := os.Stat(dir)
		if err != nil {
			return "", fmt.Errorf("workspace: %w", err)
		}
		if !st.IsDir() {
			return "", fmt.Errorf("workspace %s is not a directory", dir)
		}
		return filepath.Clean(dir), nil
	}
	for d := cwd; ; {
		for _, marker := range []string{".autoagent", ".git"} {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return d, nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return cwd, nil
		}
		d = parent
	}
}

// Workspace is FindWorkspace with the runner's working directory and environment.
func (r *Runner) Workspace(flag string) (string, error) {
	return FindWorkspace(flag, r.Cwd, r.Getenv)
}

// LoadEnv finds the workspace (from workspaceFlag) and the configuration directories; loopFile is
// the agent-pipelines loop.yaml to read ("" for the workspace's).
func (r *Runner) LoadEnv(workspaceFlag, loopFile string) (hooks.LoadEnv, error) {
	ws, err := r.Workspace(workspaceFlag)
	if err != nil {
		return hooks.LoadEnv{}, err
	}
	if loopFile != "" && !filepath.IsAbs(loopFile) {
		loopFile = filepath.Join(r.Cwd, loopFile)
	}
	return hooks.LoadEnv{Workspace: ws, UserHome: r.UserHome, AutoagentHome: r.AutoagentHome, Getenv: r.getenv, LoopFile: loopFile,
		ManagedConfig: r.ManagedConfig}, nil
}

// LoadConfig loads and validates the configuration of env with NewRegistry's registry.
func (r *Runner) LoadConfig(env hooks.LoadEnv) (*hooks.Config, error) {
	return r.loadConfig(r.registry(), env)
}

// Once is a copy of the runner that loads each configuration once, for a command that fires
// several events (the git gates of an agent's shell call, Stop then SessionEnd and the push at a
// session's end): the configuration is read, validated and its warnings printed once, and every
// event of the command sees the same one. It also remembers the sessions it attached, so that
// Record and Refuse in a session an event was fired in append to its trail without reading its
// record again (attachMemo).
func (r *Runner) Once() *Runner {
	c := *r
	c.memo = &configMemo{}
	c.attached = &attachMemo{}
	return &c
}

// configMemo is the configuration a Once runner loaded last, and for which environment.
type configMemo struct {
	mu  sync.Mutex
	key loadKey
	set bool
	cfg *hooks.Config
	err error
}

// loadKey is what makes two loads the same: the environment's fields the loaders read (the
// process environment is the runner's own, the same for every load).
type loadKey struct {
	workspace, userHome, autoagentHome, loopFile, extraConfig, managed, agent string
}

// loadConfig loads and validates. The warnings, and on an invalid configuration every problem
// after the first (the returned error names the first), are printed on Stderr.
func (r *Runner) loadConfig(reg *hooks.Registry, env hooks.LoadEnv) (*hooks.Config, error) {
	if r.memo == nil {
		return r.load(reg, env)
	}
	key := loadKey{env.Workspace, env.UserHome, env.AutoagentHome, env.LoopFile, env.ExtraConfig, env.ManagedConfig, env.Agent}
	r.memo.mu.Lock()
	defer r.memo.mu.Unlock()
	if r.memo.set && r.memo.key == key {
		return r.memo.cfg, r.memo.err
	}
	cfg, err := r.load(reg, env)
	r.memo.key, r.memo.set, r.memo.cfg, r.memo.err = key, true, cfg, err
	return cfg, err
}

func (r *Runner) load(reg *hooks.Registry, env hooks.LoadEnv) (*hooks.Config, error) {
	cfg, err := hooks.Load(reg, env)
	if err != nil && r.Lean {
		// Said by the full program, which may well run it: nothing printed here.
		return nil, &HandOffError{Cause: err}
	}
	var cerr *hooks.ConfigError
	if errors.As(err, &cerr) && len(cerr.Diagnostics) > 1 {
		for _, d := range cerr.Diagnostics[1:] {
			fmt.Fprintf(r.stderr(), "agent-hooks: %s\n", d)
		}
	}
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(r.stderr(), "agent-hooks: %s\n", w)
	}
	return cfg, nil
}

// HandOffError is a lean runner's answer to a configuration it did not load (Runner.Lean): one
// with a hook type only the full program has, or a problem the full program reports in its own
// words. Nothing was run, printed or written: the caller hands the whole command to the full
// program.
type HandOffError struct{ Cause error }

func (e *HandOffError) Error() string {
	return "this configuration needs the full program: " + e.Cause.Error()
}

func (e *HandOffError) Unwrap() error { return e.Cause }
