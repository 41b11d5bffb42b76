// Package runner fires an event within a session: it finds the workspace, loads the hook
// configuration, attaches the event to a session (or starts one), runs the hooks through the
// hooks engine, and records what the event did in the session (the audit trail, the issue
// bookkeeping, the Stop-loop cap). It also ends and resumes sessions.
//
// Every input a process has is handed to it in a Runner (environment, working directory,
// writers, clock, AUTOAGENT_HOME, the registry of hook types), so that it runs the same in
// tests as under the command line, which only parses flags, prints results and maps them to exit
// codes.
package runner

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/autoagent/agent-hooks/internal/progress"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// Runner fires events within sessions. Its fields are its inputs; the zero value of each
// optional one is noted.
type Runner struct {
	// Getenv and Environ are the process environment: hooks get Environ, Getenv answers the
	// loaders and AUTOAGENT_SESSION_ID / GITHUB_WORKSPACE.
	Getenv  func(string) string
	Environ []string
	// Cwd is the working directory: relative paths (--workspace, --loop) are resolved against
	// it and the workspace is found from it.
	Cwd string
	// Stdout receives the hooks' stdout live (unless a Request captures it). Stderr receives the
	// hooks' stderr and what agent-hooks itself says while firing: configuration warnings and the
	// configuration problems after the first (the first is the returned error), session warnings.
	Stdout io.Writer
	Stderr io.Writer
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// AutoagentHome is $AUTOAGENT_HOME (required): sessions live in its sessions folder, the
	// user's configuration in it.
	AutoagentHome string
	// UserHome is the user's home directory ("" when unknown): the loaders read user-level
	// configurations there.
	UserHome string
	// ManagedConfig is the managed layer's configuration file (hooks.LoadEnv.ManagedConfig).
	ManagedConfig string
	// Progress is handed to the hooks that wait (hooks.Engine.Progress): the terminal of a
	// person watching Stderr, nil when nobody is (and always under an agent, which reads it).
	Progress progress.Reporter

	memo     *configMemo // see Once
	attached *attachMemo // see Once
	// NewRegistry builds the registry of hook types and formats for one event (nil: command
	// hooks and the native format only).
	NewRegistry func() *hooks.Registry
	// Executable is agent-hooks' own executable ("" when unknown): the telemetry shipper,
	// agent-hooks-otel, is looked for next to it (else on PATH).
	Executable string
	// Version is agent-hooks' version, recorded in telemetry.
	Version string
	// Lean says that this program has only some of the hook types (NewRegistry's are the lean
	// program's): a configuration that does not load with them, for a type it lacks or for any
	// other problem, is a *HandOffError before anything runs, and nothing is printed.
	Lean bool
	// AtSessionEnd, when set, is called by EndSession after it recorded the end, with the
	// runner it ended the session with (remote.AtEnd pushes the session). nil: nothing.
	AtSessionEnd func(ctx context.Context, r *Runner, workspace string, sess *sessions.Session)
}

// findActiveScan is how many of the newest sessions a run without a session id looks through for
// an active one of its workspace when `current` points at another workspace's.
const findActiveScan = 50

// defaultStopBlockLimit applies when the config sets no "stopBlockLimit".
const defaultStopBlockLimit = 8

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) getenv(k string) string {
	if r.Getenv == nil {
		return ""
	}
	return r.Getenv(k)
}

func (r *Runner) stderr() io.Writer {
	if r.Stderr == nil {
		return io.Discard
	}
	return r.Stderr
}

// Warn prints one of agent-hooks' own warnings on Stderr.
func (r *Runner) Warn(format string, args ...any) {
	fmt.Fprintf(r.stderr(), "agent-hooks: warning: "+format+"\n", args...)
}

// Store is the sessions folder, <AutoagentHome>/sessions.
func (r *Runner) Store() *sessions.Store {
	return sessions.New(filepath.Join(r.AutoagentHome, "sessions"),
		sessions.WithClock(r.now),
		sessions.WithWarnings(func(err error) { r.Warn("%v", err) }))
}

// registry is NewRegistry's registry (a bare one without NewRegistry).
func (r *Runner) registry() *hooks.Registry {
	if r.NewRegistry != nil {
		return r.NewRegistry()
	}
	return hooks.NewRegistry()
}
