package main

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
	"syscall"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/spf13/cobra"
)

// app is the process-wide state, gathered once in Main and handed to every command, so that the
// packages below never read it themselves and every command runs the same under testscript.
type app struct {
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	getenv  func(string) string
	environ []string
	cwd     string
	start   time.Time // when the process started: an agent's timeout of its hook counts from about then
	// executable is this program's path ("" when unknown): the telemetry shipper is found
	// next to it.
	executable string
}

// Exit codes of agent-hooks (SPEC.md section 5).
const (
	exitOK          = 0
	exitFailure     = 1
	exitBlocked     = 2
	exitSkip        = 3
	exitInterrupted = 130
)

// blockedError ends a command with exit code 2; its message is the block reason.
type blockedError struct{ reason string }

func (e *blockedError) Error() string { return e.reason }

// skipError ends a command with exit code 3 (PreIteration asked to skip the iteration).
type skipError struct{ reason string }

func (e *skipError) Error() string { return e.reason }

// silentError ends a command with a given exit code after the command already printed what the
// user needs to see (e.g. --json output).
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// exitCode maps an error returned by a command to the process exit code; it is the one place
// that does.
func exitCode(err error) int {
	var (
		blocked *blockedError
		skip    *skipError
		silent  *silentError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &silent):
		return silent.code
	case errors.Is(err, errQuit):
		return exitFailure
	case errors.Is(err, context.Canceled), errors.Is(err, errInterrupted):
		return exitInterrupted
	case errors.As(err, &blocked):
		return exitBlocked
	case errors.As(err, &skip):
		return exitSkip
	default:
		return exitFailure
	}
}

var (
	errInterrupted = errors.New("interrupted")
	// errQuit is SIGQUIT (Ctrl-\): Go's default would dump the goroutines and exit 2, "blocked"
	// to every caller, leaving the hooks running. agent-hooks stops the hooks, keeps the dump and
	// exits 1.
	errQuit = errors.New("quit (SIGQUIT)")
)

// quitGrace bounds how long agent-hooks waits, after SIGQUIT, for the command to stop its hooks
// and return (SIGTERM, KillGrace, SIGKILL) before it ends them itself and exits: SIGQUIT is what a
// user sends to a process that seems stuck.
const quitGrace = hooks.KillGrace + 3*time.Second

// Main runs agent-hooks with the process's arguments and returns the exit code.
func Main() int {
	start := time.Now()
	installCrashHandling()
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent-hooks: %v\n", err)
		return exitFailure
	}
	a := &app{
		stdin:   os.Stdin,
		stdout:  os.Stdout,
		stderr:  os.Stderr,
		getenv:  os.Getenv,
		environ: os.Environ(),
		cwd:     cwd,
		start:   start,
	}
	a.executable, _ = os.Executable()
	// Orphans of hook processes (a setsid'd grandchild) become ours, to be ended with their hook;
	// whatever is left when agent-hooks exits is ended then.
	hooks.AdoptOrphans()
	defer hooks.StopAll()
	ctx, stop := a.watchSignals(context.Background())
	defer stop()
	return a.execute(ctx, os.Args[1:])
}

// installCrashHandling makes a crash that no recover can catch (a fatal runtime error such as
// concurrent map writes or out of memory, a panic in a goroutine that does not recover) end the
// process with SIGABRT instead of Go's exit status 2, which every caller would read as
// "blocked". A shell reports it as 134; the traceback is still written to stderr.
func installCrashHandling() { debug.SetTraceback("crash") }

// watchSignals cancels the returned context on SIGINT, SIGTERM and SIGHUP (a closed terminal
// must stop the running hook's group, and mark a pending local approval cancelled, like Ctrl-C
// does), with errInterrupted as the cause; and on SIGQUIT with errQuit, after writing every
// goroutine's stack to stderr.
func (a *app) watchSignals(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				if sig != syscall.SIGQUIT {
					cancel(errInterrupted)
					continue
				}
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				fmt.Fprintf(a.stderr, "SIGQUIT: stopping the hooks\n\n%s\n", buf)
				cancel(errQuit)
				time.AfterFunc(quitGrace, func() {
					hooks.StopAll()
					fmt.Fprintf(a.stderr, "agent-hooks: %v: hooks stopped\n", errQuit)
					os.Exit(exitFailure)
				})
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// execute runs one command line and prints a failure as one line on stderr.
func (a *app) execute(ctx context.Context, args []string) int {
	return a.executeRoot(ctx, a.newRootCmd(), args)
}

// executeRoot runs root with args. A panic that escaped every hook is agent-hooks failing (exit 1,
// the panic and its stack on stderr), never a decision.
func (a *app) executeRoot(ctx context.Context, root *cobra.Command, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(a.stderr, "agent-hooks: internal error: panic: %v\n%s", r, debug.Stack())
			code = exitFailure
		}
	}()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	switch {
	case errors.Is(context.Cause(ctx), errQuit):
		err = errQuit // whatever the command made of its cancellation
	case err != nil && ctx.Err() != nil:
		err = errInterrupted
	}
	code = exitCode(err)
	switch code {
	case exitOK:
	case exitInterrupted:
		fmt.Fprintln(a.stderr, "agent-hooks: interrupted")
	case exitBlocked, exitSkip:
		// the reason alone, as the hook wrote it: agents feed it back to the model
		var silent *silentError
		if !errors.As(err, &silent) {
			fmt.Fprintln(a.stderr, err)
		}
	default:
		var silent *silentError
		if !errors.As(err, &silent) {
			fmt.Fprintf(a.stderr, "agent-hooks: %v\n", err)
		}
	}
	return code
}

func (a *app) newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "agent-hooks",
		Short: "Run the lifecycle hooks of autonomous coding agents",
		Long: `agent-hooks runs the hooks configured for an agent's lifecycle events: shell commands that
get the event as JSON on stdin and may block it (exit code 2 or a JSON decision), built-in git
commit and push, human approvals, notifications. It reads .autoagent/config.json and the hook
configurations of iteratr, agent-pipelines, babysitter and fresher.`,
		Example: `  agent-hooks run PreExecutionEnd --payload issue.json
  agent-hooks run PostExecutionEnd --data issueNumber=42 --data issueTitle="Fix login"
  agent-hooks session start
  agent-hooks config show`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.AddCommand(
		a.newRunCmd(),
		a.newSessionCmd(),
		a.newConfigCmd(),
		a.newApprovalsCmd(),
		a.newNotifyCmd(),
		a.newActionCmd(),
		a.newInstallCmd(),
		a.newUninstallCmd(),
		a.newDoctorCmd(),
		a.newHookCmd(),
		a.newExplainCmd(),
		a.newRulesCmd(),
		a.newTelemetryCmd(),
		a.newVersionCmd(),
	)
	root.SetHelpCommand(newHelpCmd())
	root.InitDefaultCompletionCmd()
	rejectUnknownSubcommands(root)
	addVersionFlag(root)
	a.registerCompletions(root)
	return root
}

// autoagentHome is $AUTOAGENT_HOME, else ~/.autoagent.
func (a *app) autoagentHome() (string, error) {
	if h := a.getenv("AUTOAGENT_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home, err := a.userHome()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".autoagent"), nil
}

// userHome is $HOME (USERPROFILE on Windows).
func (a *app) userHome() (string, error) {
	for _, k := range []string{"HOME", "USERPROFILE"} {
		if h := a.getenv(k); h != "" {
			return h, nil
		}
	}
	return "", errors.New("cannot find the home directory: set HOME or AUTOAGENT_HOME")
}

// absPath is path relative to the current directory made absolute; "" stays "".
func (a *app) absPath(path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(a.cwd, path)
}

// writeJSON prints v as indented JSON: the --json output of every command.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// managedConfig is the managed layer's configuration file: $AGENT_HOOKS_MANAGED_CONFIG, else
// where the agent hosts keep their managed settings on this system.
func (a *app) managedConfig() string {
	if p := a.getenv("AGENT_HOOKS_MANAGED_CONFIG"); p != "" {
		return a.absPath(p)
	}
	return defaultManagedConfig(runtime.GOOS, a.getenv)
}

// defaultManagedConfig is the managed configuration's place on goos.
func defaultManagedConfig(goos string, getenv func(string) string) string {
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
