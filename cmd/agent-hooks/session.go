package main

import (
	"bufio"
	"encoding/json"
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
	)
	return cmd
}

func (a *app) newSessionStartCmd() *cobra.Command {
	var workspace, provider, name string
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
  agent-hooks session start --name auth-refactor
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
			sess, err := r.Start(runner.StartRequest{Workspace: workspace, Command: command, Args: cmdArgs, Provider: provider, Name: name})
			if err != nil {
				return err
			}
			return a.printSessionID(sess, asJSON)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	fl.StringVar(&provider, "provider", "", "the agent's primary provider, recorded in the session (claude, gemini, …)")
	fl.StringVar(&name, "name", "", "the session's human name (letters, digits, _ and -; at most 64): every payload carries it as sessionName, and it is iteratr's {{session}}")
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
(with --events, an "events" array is added to it).`,
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
			var trail []sessions.Event
			if events {
				var problems []error
				if trail, problems, err = r.Store().Events(sess.ID); err != nil {
					return err
				}
				a.reportProblems(problems)
			}
			if asJSON {
				if !events {
					return writeJSON(a.stdout, sess)
				}
				b, err := json.Marshal(sess)
				if err != nil {
					return err
				}
				var obj map[string]any
				if err := json.Unmarshal(b, &obj); err != nil {
					return err
				}
				if trail == nil {
					trail = []sessions.Event{}
				}
				obj["events"] = trail
				return writeJSON(a.stdout, obj)
			}
			return printSession(a.stdout, sess, trail, events)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session record as JSON")
	cmd.Flags().BoolVar(&events, "events", false, "include the audit trail")
	return cmd
}

// printSession prints a session (and its audit trail when events is set) as `session show` does,
// buffered: tabwriter writes every cell on its own, which on an unbuffered stdout is a system
// call each.
func printSession(out io.Writer, s *sessions.Session, trail []sessions.Event, events bool) error {
	w := bufio.NewWriter(out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	row("id", s.ID)
	if s.Name != "" {
		row("name", s.Name)
	}
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
	if s.Agent != "" {
		row("agent", strings.TrimSpace(s.Agent+" "+s.AgentSessionID))
	}
	if len(s.FilesModified) > 0 {
		row("files modified", strings.Join(s.FilesModified, " "))
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
	if err := tw.Flush(); err != nil {
		return err
	}
	if !events {
		return w.Flush()
	}
	fmt.Fprintln(w)
	if len(trail) == 0 {
		fmt.Fprintln(w, "no hook has run in this session")
		return w.Flush()
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tEVENT\tHOOK\tSOURCE\tSTATUS\tEXIT\tMS\tDECISION\tREASON")
	for _, e := range trail {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", sessTime(e.Time), e.Event, e.Name,
			e.Source, e.Status, e.ExitCode, e.DurationMs, sessDash(e.Decision), sessLine(e.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return w.Flush()
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
			return printSessionList(a.stdout, list, current)
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 10, "how many sessions to show (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of session records")
	return cmd
}

// printSessionList prints sessions as `session list` does, marking the current one, buffered
// (see printSession).
func printSessionList(out io.Writer, list []*sessions.Session, current string) error {
	w := bufio.NewWriter(out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tSTATUS\tSTARTED\tDONE/FAILED/PLANNED\tWORKSPACE")
	for _, s := range list {
		mark := " "
		if s.ID == current {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%d/%d/%d\t%s\n", mark, s.ID, s.Status, sessTime(s.StartTime),
			len(s.IssuesCompleted), len(s.IssuesFailed), len(s.IssuesPlanned), s.Workspace)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return w.Flush()
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
