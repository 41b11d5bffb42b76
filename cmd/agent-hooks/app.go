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
	"syscall"

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

var errInterrupted = errors.New("interrupted")

// Main runs agent-hooks with the process's arguments and returns the exit code.
func Main() int {
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
	}
	a.executable, _ = os.Executable()
	// SIGHUP too: a closed terminal must stop the running hook's group (and mark a pending local
	// approval cancelled) like Ctrl-C does.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return a.execute(ctx, os.Args[1:])
}

// execute runs one command line and prints a failure as one line on stderr.
func (a *app) execute(ctx context.Context, args []string) int {
	root := a.newRootCmd()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && ctx.Err() != nil {
		err = errInterrupted
	}
	code := exitCode(err)
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
		a.newTelemetryCmd(),
		a.newVersionCmd(),
	)
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

// writeJSON prints v as indented JSON: the --json output of every command.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
