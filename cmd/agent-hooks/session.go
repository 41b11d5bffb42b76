package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/autoagent/agent-hooks/internal/runner"
	"github.com/autoagent/agent-hooks/sessions"
	"github.com/spf13/cobra"
)

func (a *app) newSessionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "Start, end, inspect and resume sessions",
		Long: `A session groups the events of one agent run. Its record lives in
$AUTOAGENT_HOME/sessions/session-<unixms>-<random>.json (AUTOAGENT_HOME defaults to ~/.autoagent),
the "current" link points at the latest one, and <id>.events.jsonl beside it is the audit trail:
one JSON line per hook execution, skipped hooks included.

"agent-hooks run" attaches to --session, else $AUTOAGENT_SESSION_ID, else the active session of
the same workspace, else starts one.`,
		Example: `  id=$(agent-hooks session start --provider claude)
  AUTOAGENT_SESSION_ID=$id agent-hooks run PreExecutionStart --data issueNumber=42
  agent-hooks session end --status completed
  agent-hooks session list --limit 5`,
	}
	cmd.AddCommand(
		a.newSessionStartCmd(),
		a.newSessionEndCmd(),
		a.newSessionShowCmd(),
		a.newSessionListCmd(),
		a.newSessionCurrentCmd(),
		a.newSessionResumeCmd(),
		a.newSessionVerifyCmd(),
	)
	return cmd
}

func (a *app) newSessionStartCmd() *cobra.Command {
	var workspace, provider string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "start [flags] [-- COMMAND [ARG...]]",
		Short: "Start a session and make it current",
		Long: `Start a session: write its record, point the "current" link at it and print its id on
stdout (--json: the whole record). The git branch and commit checked out in the workspace are
recorded. The command and arguments after -- are recorded as the session's command and args
(default: agent-hooks session start).`,
		Example: `  agent-hooks session start
  agent-hooks session start --provider claude --json
  agent-hooks session start --workspace ./repo -- autoagent run --all`,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			command, cmdArgs := "agent-hooks", []string{"session", "start"}
			if len(args) > 0 {
				command, cmdArgs = args[0], args[1:]
			}
			sess, err := r.Start(runner.StartRequest{Workspace: workspace, Command: command, Args: cmdArgs, Provider: provider})
			if err != nil {
				return err
			}
			return a.printSessionID(sess, asJSON)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	fl.StringVar(&provider, "provider", "", "the agent's primary provider, recorded in the session (claude, gemini, …)")
	fl.BoolVar(&asJSON, "json", false, "print the session record instead of its id")
	return cmd
}

func (a *app) newSessionEndCmd() *cobra.Command {
	var id, statusFlag, workspace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "end [ID]",
		Short: "End a session: fire Stop, then SessionEnd, then record the end",
		Long: `End a session: ID, else --session, else $AUTOAGENT_SESSION_ID, else the active session of the
workspace (the current one if it is that workspace's), so that an agent ending its run never ends
another workspace's session.

Stop fires first, with reason, status, issuesCompleted, issuesTotal, duration, stopHookActive and
stopBlockCount in its payload. A Stop hook may block it: the agent must keep working, so the
session stays active and end exits 2 with the reason on stderr. After stopBlockLimit consecutive
blocked Stops (default 8, 0 = unlimited) the next one is let through with a warning. Otherwise
SessionEnd fires and the record gets its status, endTime and metadata.totalDuration.

Exit codes: 0 ended, 2 Stop blocked, 1 failure.`,
		Example: `  agent-hooks session end
  agent-hooks session end --status interrupted
  agent-hooks session end session-1704067200000-abc123 --status failed --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			status, err := sessions.ParseStatus(statusFlag)
			if err != nil {
				return err
			}
			if status == sessions.StatusActive {
				return errors.New("--status: a session cannot end as active")
			}
			if len(args) == 1 {
				id = args[0]
			}
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			out, err := r.EndSession(cmd.Context(), runner.EndRequest{SessionID: id, Workspace: workspace, Status: status, CaptureStdout: asJSON})
			if err != nil {
				return err
			}
			if !asJSON {
				return fireError(out)
			}
			doc := map[string]any{"session": out.Session, "stop": out.Stop}
			if !out.Blocked() {
				doc["sessionEnd"] = out.SessionEnd
			}
			if err := writeJSON(a.stdout, doc); err != nil {
				return err
			}
			if out.Blocked() {
				return &silentError{code: exitBlocked}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&id, "session", "", "session id (default $AUTOAGENT_SESSION_ID, else the workspace's active session)")
	fl.StringVar(&statusFlag, "status", string(sessions.StatusCompleted), "final status: completed, interrupted or failed")
	fl.StringVar(&workspace, "workspace", "", "workspace whose session ends and whose hooks run (default the session's, else the current directory's)")
	fl.BoolVar(&asJSON, "json", false, `print {"session", "stop", "sessionEnd"} instead of the hooks' output`)
	return cmd
}

func (a *app) newSessionShowCmd() *cobra.Command {
	var asJSON, events bool
	cmd := &cobra.Command{
		Use:   "show [ID]",
		Short: "Show a session (default $AUTOAGENT_SESSION_ID, else the current one)",
		Long: `Show a session's record: status, workspace, times, issues, git branch and commit.
--events adds its audit trail, one line per hook execution. --json prints the record as stored
(with --events, an "events" array is added to it, with the trail's lines as they were written).
The trail is read line by line, so a trail of millions of lines shows at once in constant memory.`,
		Example: `  agent-hooks session show
  agent-hooks session show session-1704067200000-abc123 --events
  agent-hooks session show --json | jq .issuesCompleted`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			sess, err := r.Lookup(id)
			if err != nil {
				return err
			}
			src := localTrail(r.Store(), sess.ID)
			return a.showSession(sess, src, asJSON, events)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session record as JSON")
	cmd.Flags().BoolVar(&events, "events", false, "include the audit trail")
	return cmd
}

func printSession(w io.Writer, s *sessions.Session) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	row("id", s.ID)
	row("status", string(s.Status))
	row("workspace", s.Workspace)
	row("started", sessTime(s.StartTime))
	if !s.EndTime.IsZero() {
		row("ended", sessTime(s.EndTime))
		row("duration", (time.Duration(s.Metadata.TotalDuration) * time.Millisecond).String())
	}
	row("command", strings.TrimSpace(s.Command+" "+strings.Join(s.Args, " ")))
	if s.Provider != "" {
		row("provider", s.Provider)
	}
	if s.Metadata.GitBranch != "" || s.Metadata.GitCommit != "" {
		row("git", strings.TrimSpace(s.Metadata.GitBranch+" "+sessHash(s.Metadata.GitCommit)))
	}
	row("planned", sessIssues(s.IssuesPlanned))
	row("completed", sessIssues(s.IssuesCompleted))
	row("failed", sessIssues(s.IssuesFailed))
	if s.CurrentIssue != nil {
		row("current", fmt.Sprintf("#%d", *s.CurrentIssue))
	}
	if s.StopBlockCount > 0 {
		row("stop blocks", fmt.Sprint(s.StopBlockCount))
	}
	return tw.Flush()
}

func (a *app) newSessionListCmd() *cobra.Command {
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List sessions, newest first",
		Long: `List sessions, newest first. Only the records shown are read, so a folder of thousands of
sessions lists at once. A corrupt record or a file that is not a session is reported on stderr
and skipped. The current session is marked with *.`,
		Example: `  agent-hooks session list
  agent-hooks session list --limit 0
  agent-hooks session list --json | jq -r '.[] | select(.status == "failed") | .id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return errors.New("--limit: want a number >= 0 (0 lists every session)")
			}
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			store := r.Store()
			list, problems, err := store.List(limit)
			if err != nil {
				return err
			}
			a.reportProblems(problems)
			if asJSON {
				if list == nil {
					list = []*sessions.Session{}
				}
				return writeJSON(a.stdout, list)
			}
			current, _ := store.CurrentID()
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  ID\tSTATUS\tSTARTED\tDONE/FAILED/PLANNED\tWORKSPACE")
			for _, s := range list {
				mark := " "
				if s.ID == current {
					mark = "*"
				}
				fmt.Fprintf(tw, "%s %s\t%s\t%s\t%d/%d/%d\t%s\n", mark, s.ID, s.Status, sessTime(s.StartTime),
					len(s.IssuesCompleted), len(s.IssuesFailed), len(s.IssuesPlanned), s.Workspace)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 10, "how many sessions to show (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of session records")
	return cmd
}

func (a *app) newSessionCurrentCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "current",
		Short: "Print the current session's id",
		Long: `Print the id of the session the "current" link points at (--json: its record). Exits 1
when there is none.`,
		Example: `  agent-hooks session current
  agent-hooks session current --json | jq .status`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			sess, err := r.Store().Current()
			if errors.Is(err, sessions.ErrNoCurrent) {
				return errors.New("no current session (start one with agent-hooks session start)")
			}
			if err != nil {
				return err
			}
			return a.printSessionID(sess, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session record")
	return cmd
}

func (a *app) newSessionResumeCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "resume ID",
		Short: "Make an interrupted session current and active again",
		Long: `Resume a session that ended as interrupted (or is still active): it becomes active again,
loses its endTime, and the "current" link points at it, so that runs in its workspace attach to
it. A completed or failed session cannot be resumed. Prints the id.`,
		Example: `  agent-hooks session resume session-1704067200000-abc123
  agent-hooks session list --json | jq -r '[.[] | select(.status == "interrupted")][0].id' | xargs agent-hooks session resume`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			sess, err := r.Resume(args[0])
			if err != nil {
				return err
			}
			return a.printSessionID(sess, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session record")
	return cmd
}

func (a *app) newSessionVerifyCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify [ID]",
		Short: "Check that a session's audit trail is as it was written",
		Long: `Check the hash chain of a session's audit trail (default $AUTOAGENT_SESSION_ID, else the
current session). Every line carries its number in the chain ("seq") and the SHA-256 of the line
before it ("prev"), and the session record keeps the head (the last line when the record was last
written): a line changed, inserted or removed breaks the chain, and lines cut from the end fall
short of the head. verify reports the first line that is not as written and exits 1.

A trail written before agent-hooks chained its trails verifies as "unchained" (exit 0): there is
nothing to check it against. Lines that are not events at all (a write cut short by a crash) are
reported on stderr; the chain passes over them. The trail is read line by line, in constant
memory.

Exit codes: 0 intact (or unchained), 1 broken or failure.`,
		Example: `  agent-hooks session verify
  agent-hooks session verify session-1704067200000-abc123 --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			sess, err := r.Lookup(id)
			if err != nil {
				return err
			}
			v, err := verifySession(sess, localTrail(r.Store(), sess.ID))
			if err != nil {
				return err
			}
			return a.printVerification(sess.ID, v, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"session", "status", "lines", "chained", "unchained", "head", "afterHead", "problems", "break"}`)
	return cmd
}
