// Package cli is what the two programs share: the lean `agent-hooks` that agents start on every
// tool call (Lean: `hook`, `run`, `version`, handing everything else to the full program beside
// it) and the full `agent-hooks-full` (every command). It holds the process's state (App), the
// exit codes and how an error becomes one, the hook and run commands' bodies, the registry of
// hook types and formats both programs load configurations with, and the hand-off between them.
//
// It links no go-git, go-github, net/http or OpenTelemetry: the full program adds its hook types
// to the registry (App.Types) and its commands around these.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/autoagent/agent-hooks/internal/progress"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/process"
)

// App is the process-wide state, gathered once at start and handed to every command, so that
// the packages below never read it themselves and every command runs the same under testscript.
type App struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
	Environ []string
	Cwd     string
	// Start is when the process started: an agent's timeout of its hook counts from about then
	// (for the full program handed an event, from when the lean one started).
	Start time.Time
	// Executable is this program's path ("" when unknown): the full program and the telemetry
	// shipper are found next to it.
	Executable string
	// Version is this build's version (CurrentVersion of its stamp).
	Version VersionInfo
	// Lean says this is the lean program: a configuration that needs a hook type it lacks is
	// handed to the full program (HandOff).
	Lean bool
	// Types registers the hook types of this program beyond the lean ones (the full program's:
	// git, GitHub, approvals, notifications); nil: none.
	Types func(a *App, reg *hooks.Registry)
	// Progress shows long waits (approvals, pushes) on the terminal of a person watching
	// Stderr (progress.ForStderr, decided by the program); nil shows nothing. Never handed to
	// `hook <agent>`, whose stderr the agent reads.
	Progress progress.Reporter
	// HandOffProblem is why this program must not run the command the lean program handed it
	// (a program of another release); nil when there is none.
	HandOffProblem error
}

// NewApp gathers the process's state. A program started by the lean one for a command it handed
// over (see HandOff) takes its start time from it, and hides the hand-off's variables from
// hooks.
func NewApp(start time.Time, stamp Stamp) (*App, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	a := &App{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ(),
		Cwd: cwd, Start: start, Version: CurrentVersion(stamp),
	}
	a.Executable, _ = os.Executable()
	a.takeHandOff()
	return a, nil
}

// Exit codes of agent-hooks (SPEC.md section 5).
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitBlocked     = 2
	ExitSkip        = 3
	ExitInterrupted = 130
)

// BlockedError ends a command with exit code 2; its message is the block reason.
type BlockedError struct{ Reason string }

func (e *BlockedError) Error() string { return e.Reason }

// SkipError ends a command with exit code 3 (PreIteration asked to skip the iteration).
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return e.Reason }

// SilentError ends a command with a given exit code after the command already printed what the
// user needs to see (e.g. --json output).
type SilentError struct{ Code int }

func (e *SilentError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

var (
	// ErrInterrupted is SIGINT, SIGTERM or SIGHUP.
	ErrInterrupted = errors.New("interrupted")
	// ErrQuit is SIGQUIT (Ctrl-\): Go's default would dump the goroutines and exit 2, "blocked"
	// to every caller, leaving the hooks running. agent-hooks stops the hooks, keeps the dump and
	// exits 1.
	ErrQuit = errors.New("quit (SIGQUIT)")
)

// ExitCode maps an error returned by a command to the process exit code; it is the one place
// that does.
func ExitCode(err error) int {
	var (
		blocked *BlockedError
		skip    *SkipError
		silent  *SilentError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &silent):
		return silent.Code
	case errors.Is(err, ErrQuit):
		return ExitFailure
	case errors.Is(err, context.Canceled), errors.Is(err, ErrInterrupted):
		return ExitInterrupted
	case errors.As(err, &blocked):
		return ExitBlocked
	case errors.As(err, &skip):
		return ExitSkip
	default:
		return ExitFailure
	}
}

// Finish turns what a command returned, in the context it ran in, into the exit code, and says
// why on stderr: a block or skip its reason alone (agents feed it back to the model), a failure
// as "agent-hooks: …", nothing for a SilentError (the command printed it).
func (a *App) Finish(ctx context.Context, err error) int {
	switch {
	case errors.Is(context.Cause(ctx), ErrQuit):
		err = ErrQuit // whatever the command made of its cancellation
	case err != nil && ctx.Err() != nil:
		err = ErrInterrupted
	}
	code := ExitCode(err)
	var silent *SilentError
	switch {
	case code == ExitOK, errors.As(err, &silent):
	case code == ExitInterrupted:
		fmt.Fprintln(a.Stderr, "agent-hooks: interrupted")
	case code == ExitBlocked, code == ExitSkip:
		fmt.Fprintln(a.Stderr, err)
	default:
		fmt.Fprintf(a.Stderr, "agent-hooks: %v\n", err)
	}
	return code
}

// Recover is deferred by a program's main function: a panic that escaped every hook is
// agent-hooks failing (exit 1, the panic and its stack on stderr), never a decision.
func (a *App) Recover(code *int) {
	if r := recover(); r != nil {
		fmt.Fprintf(a.Stderr, "agent-hooks: internal error: panic: %v\n%s", r, debug.Stack())
		*code = ExitFailure
	}
}

// quitGrace bounds how long agent-hooks waits, after SIGQUIT, for the command to stop its hooks
// and return (SIGTERM, KillGrace, SIGKILL) before it ends them itself and exits: SIGQUIT is what a
// user sends to a process that seems stuck.
const quitGrace = process.KillGrace + 3*time.Second

// InstallCrashHandling makes a crash that no recover can catch (a fatal runtime error such as
// concurrent map writes or out of memory, a panic in a goroutine that does not recover) end the
// process with SIGABRT instead of Go's exit status 2, which every caller would read as
// "blocked". A shell reports it as 134; the traceback is still written to stderr.
func InstallCrashHandling() { debug.SetTraceback("crash") }

// WatchSignals cancels the returned context on SIGINT, SIGTERM and SIGHUP (a closed terminal
// must stop the running hook's group, and mark a pending local approval cancelled, like Ctrl-C
// does), with ErrInterrupted as the cause; and on SIGQUIT with ErrQuit, after writing every
// goroutine's stack to stderr. The returned stop may be called more than once.
func (a *App) WatchSignals(parent context.Context) (context.Context, func()) {
	ctx, w := a.signalWatch(parent)
	w.start()
	return ctx, w.stop
}

// WatchSignalsWhileProcessesRun is WatchSignals from just before the program's first process
// starts (process.BeforeFirstStart). Until then a signal has its default effect: it ends
// agent-hooks, which has nothing of its own to stop yet, and a call that starts no process
// (one decided by rules alone) never pays for watching, a thread and its wake-ups, about a
// sixth of the lean program's start.
func (a *App) WatchSignalsWhileProcessesRun(parent context.Context) (context.Context, func()) {
	ctx, w := a.signalWatch(parent)
	process.BeforeFirstStart(w.start)
	return ctx, w.stop
}

// signalWatch is WatchSignals' watcher, not yet started.
type signalWatch struct {
	a       *App
	cancel  context.CancelCauseFunc
	mu      sync.Mutex
	stopped bool
	sigs    chan os.Signal // nil until started
	done    chan struct{}
}

func (a *App) signalWatch(parent context.Context) (context.Context, *signalWatch) {
	ctx, cancel := context.WithCancelCause(parent)
	return ctx, &signalWatch{a: a, cancel: cancel, done: make(chan struct{})}
}

// start watches the signals, unless stop came first; a second start does nothing.
func (w *signalWatch) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.sigs != nil {
		return
	}
	w.sigs = make(chan os.Signal, 1)
	signal.Notify(w.sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go w.loop(w.sigs)
}

func (w *signalWatch) loop(sigs chan os.Signal) {
	for {
		select {
		case <-w.done:
			return
		case sig := <-sigs:
			if sig != syscall.SIGQUIT {
				w.cancel(ErrInterrupted)
				continue
			}
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			fmt.Fprintf(w.a.Stderr, "SIGQUIT: stopping the hooks\n\n%s\n", buf)
			w.cancel(ErrQuit)
			time.AfterFunc(quitGrace, func() {
				process.StopAll()
				fmt.Fprintf(w.a.Stderr, "agent-hooks: %v: hooks stopped\n", ErrQuit)
				os.Exit(ExitFailure)
			})
		}
	}
}

// stop ends the watching and cancels the context; it may be called more than once.
func (w *signalWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.stopped = true
	if w.sigs != nil {
		signal.Stop(w.sigs)
	}
	close(w.done)
	w.cancel(nil)
}

// AutoagentHome is $AUTOAGENT_HOME, else ~/.autoagent.
func (a *App) AutoagentHome() (string, error) {
	if h := a.Getenv("AUTOAGENT_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home, err := a.UserHome()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".autoagent"), nil
}

// UserHome is $HOME (USERPROFILE on Windows).
func (a *App) UserHome() (string, error) {
	for _, k := range []string{"HOME", "USERPROFILE"} {
		if h := a.Getenv(k); h != "" {
			return h, nil
		}
	}
	return "", errors.New("cannot find the home directory: set HOME or AUTOAGENT_HOME")
}

// AbsPath is path relative to the current directory made absolute; "" stays "".
func (a *App) AbsPath(path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(a.Cwd, path)
}

// WriteJSON prints v as indented JSON: the --json output of every command.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ManagedConfig is the managed layer's configuration file: $AGENT_HOOKS_MANAGED_CONFIG, else
// where the agent hosts keep their managed settings on this system.
func (a *App) ManagedConfig() string {
	if p := a.Getenv("AGENT_HOOKS_MANAGED_CONFIG"); p != "" {
		return a.AbsPath(p)
	}
	return DefaultManagedConfig(runtime.GOOS, a.Getenv)
}

// DefaultManagedConfig is the managed configuration's place on goos.
func DefaultManagedConfig(goos string, getenv func(string) string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/agent-hooks/config.json"
	case "windows":
		dir := getenv("ProgramData")
		if dir == "" {
			dir = `C:\ProgramData`
		}
		return dir + `\agent-hooks\config.json`
	}
	return "/etc/agent-hooks/config.json"
}
