package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/internal/progress"
)

// Stamped by the release build (.goreleaser.yaml): see cli.Stamp.
var version, commit, date string

// app is the process-wide state (cli.App) with the full program's commands.
type app struct{ *cli.App }

// Main runs agent-hooks-full with the process's arguments and returns the exit code.
func Main() int {
	start := time.Now()
	cli.InstallCrashHandling()
	ca, err := cli.NewApp(start, cli.Stamp{Version: version, Commit: commit, Date: date})
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent-hooks: %v\n", err)
		return cli.ExitFailure
	}
	a := &app{App: ca}
	ca.Types = a.registerTypes
	ca.Progress, ca.Stderr = progress.ForStderr(ca.Stderr, ca.Getenv)
	if ca.HandOffProblem != nil {
		return ca.Refuse(os.Args[1:], ca.HandOffProblem)
	}
	// Orphans of hook processes (a setsid'd grandchild) become ours, to be ended with their hook;
	// whatever is left when agent-hooks exits is ended then.
	process.AdoptOrphans()
	defer process.StopAll()
	ctx, stop := a.WatchSignals(context.Background())
	defer stop()
	return a.execute(ctx, os.Args[1:])
}

// execute runs one command line and prints a failure as one line on stderr.
func (a *app) execute(ctx context.Context, args []string) int {
	return a.executeRoot(ctx, a.newRootCmd(), args)
}

// executeRoot runs root with args. A panic that escaped every hook is agent-hooks failing (exit 1,
// the panic and its stack on stderr), never a decision.
func (a *app) executeRoot(ctx context.Context, root *cobra.Command, args []string) (code int) {
	defer a.Recover(&code)
	root.SetArgs(args)
	return a.Finish(ctx, root.ExecuteContext(ctx))
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
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	root.AddCommand(
		a.newRunCmd(nil),
		a.newSessionCmd(),
		a.newConfigCmd(),
		a.newApprovalsCmd(),
		a.newNotifyCmd(),
		a.newActionCmd(),
		a.newInitCmd(),
		a.newInstallCmd(nil),
		a.newUninstallCmd(),
		a.newDoctorCmd(),
		a.newHookCmd(nil),
		a.newExplainCmd(),
		a.newRulesCmd(),
		a.newTelemetryCmd(),
		a.newVersionCmd(),
	)
	root.SetHelpCommand(newHelpCmd())
	root.InitDefaultCompletionCmd()
	rejectUnknownSubcommands(root)
	plainErrors(root)
	a.addVersionFlag(root)
	a.registerCompletions(root)
	return root
}
