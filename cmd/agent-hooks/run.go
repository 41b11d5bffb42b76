package main

import (
	"github.com/autoagent/agent-hooks/runner"
	"github.com/spf13/cobra"
)

type runFlags struct {
	payload   string
	data      []string
	session   string
	workspace string
	loop      string
	config    string
	json      bool
}

func (a *app) newRunCmd() *cobra.Command {
	var f runFlags
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
			data, err := a.readPayload(f.payload, f.data)
			if err != nil {
				return err
			}
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			out, err := r.Fire(cmd.Context(), runner.Request{
				Event: args[0], Data: data, SessionID: f.session, Workspace: f.workspace,
				LoopFile: f.loop, ConfigFile: a.absPath(f.config), CaptureStdout: f.json,
			})
			if err != nil {
				return err
			}
			if f.json {
				if err := writeJSON(a.stdout, out.Result); err != nil {
					return err
				}
			}
			return fireError(out)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.payload, "payload", "", "JSON object file with the event data (- for stdin)")
	fl.StringArrayVar(&f.data, "data", nil, "event data key=value (numbers, true/false and JSON stay typed); repeatable")
	fl.StringVar(&f.session, "session", "", "session id (default $AUTOAGENT_SESSION_ID, else the workspace's active session)")
	fl.StringVar(&f.workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	fl.StringVar(&f.loop, "loop", "", "agent-pipelines stage file to read hooks from (default <workspace>/stage.yaml, else loop.yaml)")
	fl.StringVar(&f.config, "config", "", "one more hook config file, loaded after the project's and before the user's (the Action's config input)")
	fl.BoolVar(&f.json, "json", false, "print one JSON result object on stdout")
	return cmd
}

// fireError is the error that gives a fired event its exit code (see exitCode): a block is
// *blockedError, or *silentError when the blocking hook's stderr, already shown live, is the
// reason; a skip is *skipError; proceeding is nil.
func fireError(out *runner.Outcome) error {
	switch {
	case out.Blocked() && out.Streamed && out.ReasonStreamed():
		return &silentError{code: exitBlocked}
	case out.Blocked():
		return &blockedError{reason: out.Message()}
	case out.Skipped():
		return &skipError{reason: out.Message()}
	}
	return nil
}
