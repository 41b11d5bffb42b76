package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/internal/cli"
)

// newRunCmd is `agent-hooks run`; runF does the work (a.Run when nil: tests give their own, to
// check the flags' mapping without running anything).
func (a *app) newRunCmd(runF func(context.Context, cli.RunFlags) error) *cobra.Command {
	if runF == nil {
		runF = a.Run
	}
	var f cli.RunFlags
	cmd := &cobra.Command{
		Use:   "run <event>",
		Short: "Run the hooks configured for an event",
		Long: `Run the hooks configured for one lifecycle event, in order, and decide.

Each command hook gets the event as one JSON object on stdin (eventName, sessionId, workspace,
timestamp and the caller's data) and in AUTOAGENT_PAYLOAD. A hook blocks a blockable event by
exiting 2 (stderr is the reason) or by printing {"decision":"block","reason":"…"}.

Exit codes: 0 proceed, 2 blocked (the reason on stderr), 3 skip (PreIteration only),
1 agent-hooks failed (bad config, bad payload), 130 interrupted.`,
		Example: `  agent-hooks run PreExecutionEnd --payload issue.json
  echo '{"issueNumber":42}' | agent-hooks run PreExecutionStart --payload -
  agent-hooks run PostExecutionEnd --data issueNumber=42 --data issueTitle="Fix login" --json
  agent-hooks run next_iteration --data iteration=3 --workspace ./repo`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.Event = args[0]
			return runF(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Payload, "payload", "", "JSON object file with the event data (- for stdin)")
	fl.StringArrayVar(&f.Data, "data", nil, "event data key=value (numbers, true/false and JSON stay typed); repeatable")
	fl.StringVar(&f.Session, "session", "", "session id (default $AUTOAGENT_SESSION_ID, else the workspace's active session)")
	fl.StringVar(&f.Workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	fl.StringVar(&f.Loop, "loop", "", "agent-pipelines stage file to read hooks from (default <workspace>/stage.yaml, else loop.yaml)")
	fl.StringVar(&f.Config, "config", "", "one more hook config file, loaded after the project's and before the user's (the Action's config input)")
	fl.BoolVar(&f.JSON, "json", false, "print one JSON result object on stdout")
	return cmd
}
