package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
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
			ws, err := a.workspace(workspace)
			if err != nil {
				return err
			}
			store, err := a.sessionStore()
			if err != nil {
				return err
			}
			command, cmdArgs := "agent-hooks", []string{"session", "start"}
			if len(args) > 0 {
				command, cmdArgs = args[0], args[1:]
			}
			sess, err := store.Create(newSessionParams(ws, command, cmdArgs, provider))
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
			store, sess, err := a.sessionToEnd(id, workspace)
			if err != nil {
				return err
			}
			return a.endSession(cmd, store, sess, status, workspace, asJSON)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&id, "session", "", "session id (default $AUTOAGENT_SESSION_ID, else the workspace's active session)")
	fl.StringVar(&statusFlag, "status", string(sessions.StatusCompleted), "final status: completed, interrupted or failed")
	fl.StringVar(&workspace, "workspace", "", "workspace whose session ends and whose hooks run (default the session's, else the current directory's)")
	fl.BoolVar(&asJSON, "json", false, `print {"session", "stop", "sessionEnd"} instead of the hooks' output`)
	return cmd
}

func (a *app) endSession(cmd *cobra.Command, store *sessions.Store, sess *sessions.Session, status sessions.Status, workspace string, asJSON bool) error {
	if !sess.Active() {
		return fmt.Errorf("session %s is already %s", sess.ID, sess.Status)
	}
	if workspace == "" {
		workspace = sess.Workspace
		if _, err := os.Stat(workspace); err != nil {
			fmt.Fprintf(a.stderr, "agent-hooks: warning: session workspace %s is gone; running the hooks of the current directory's workspace\n", sess.Workspace)
			workspace = ""
		}
	}
	reason := string(status)
	if status == sessions.StatusFailed {
		reason = "error" // the seed's Stop reasons are completed, interrupted and error
	}
	data := hooks.Payload{
		"reason":          reason,
		"status":          string(status),
		"issuesCompleted": len(sess.IssuesCompleted),
		"issuesFailed":    len(sess.IssuesFailed),
		"issuesTotal":     len(sess.IssuesPlanned),
		"duration":        max(0, time.Since(sess.StartTime).Milliseconds()),
	}
	req := fireRequest{Event: hooks.Stop, Data: data, SessionID: sess.ID, Workspace: workspace, JSON: asJSON, Output: io.Discard}
	out := map[string]any{}
	stop, err := a.fire(cmd.Context(), req)
	out["stop"] = stop
	if err != nil {
		if asJSON && stop != nil && stop.Blocked {
			out["session"] = sess
			if werr := writeJSON(a.stdout, out); werr != nil {
				return werr
			}
			return &silentError{code: exitBlocked}
		}
		return err
	}
	req.Event = hooks.SessionEnd
	req.Data = hooks.Payload{}
	for k, v := range data {
		req.Data[k] = v
	}
	end, err := a.fire(cmd.Context(), req)
	var blocked *blockedError
	var silent *silentError
	if err != nil && !errors.As(err, &blocked) && !errors.As(err, &silent) {
		return err
	}
	out["sessionEnd"] = end
	final, err := store.Update(sess.ID, func(x *sessions.Session) error {
		x.End(status, time.Now())
		x.StopBlockCount = 0
		return nil
	})
	if err != nil {
		return err
	}
	if asJSON {
		out["session"] = final
		return writeJSON(a.stdout, out)
	}
	return nil
}

// sessionToEnd reads the session named by id, else $AUTOAGENT_SESSION_ID, else the active session of
// the workspace (--workspace, else found from the current directory).
func (a *app) sessionToEnd(id, workspaceFlag string) (*sessions.Store, *sessions.Session, error) {
	if id != "" || a.getenv("AUTOAGENT_SESSION_ID") != "" {
		return a.resolveSession(id)
	}
	store, err := a.sessionStore()
	if err != nil {
		return nil, nil, err
	}
	ws, err := a.workspace(workspaceFlag)
	if err != nil {
		return nil, nil, err
	}
	sess, err := store.Active(ws, findActiveScan)
	if err == nil && sess == nil {
		err = fmt.Errorf("no active session in %s (name one, or start one with agent-hooks session start)", ws)
	}
	return store, sess, err
}

// resolveSession reads the session named by id, else $AUTOAGENT_SESSION_ID, else the current one.
func (a *app) resolveSession(id string) (*sessions.Store, *sessions.Session, error) {
	store, err := a.sessionStore()
	if err != nil {
		return nil, nil, err
	}
	if id == "" {
		id = a.getenv("AUTOAGENT_SESSION_ID")
	}
	var sess *sessions.Session
	if id != "" {
		sess, err = store.Get(id)
	} else {
		sess, err = store.Current()
		if errors.Is(err, sessions.ErrNoCurrent) {
			err = errors.New("no current session (start one with agent-hooks session start)")
		}
	}
	return store, sess, err
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
			store, sess, err := a.resolveSession(id)
			if err != nil {
				return err
			}
			var trail []sessions.Event
			if events {
				var problems []error
				if trail, problems, err = store.Events(sess.ID); err != nil {
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

func printSession(w io.Writer, s *sessions.Session, trail []sessions.Event, events bool) error {
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
	if err := tw.Flush(); err != nil {
		return err
	}
	if !events {
		return nil
	}
	fmt.Fprintln(w)
	if len(trail) == 0 {
		_, err := fmt.Fprintln(w, "no hook has run in this session")
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tEVENT\tHOOK\tSOURCE\tSTATUS\tEXIT\tMS\tDECISION\tREASON")
	for _, e := range trail {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", sessTime(e.Time), e.Event, e.Name,
			e.Source, e.Status, e.ExitCode, e.DurationMs, sessDash(e.Decision), sessLine(e.Reason))
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
			store, err := a.sessionStore()
			if err != nil {
				return err
			}
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
			store, err := a.sessionStore()
			if err != nil {
				return err
			}
			sess, err := store.Current()
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
			store, err := a.sessionStore()
			if err != nil {
				return err
			}
			sess, err := store.Update(args[0], func(x *sessions.Session) error {
				switch x.Status {
				case sessions.StatusInterrupted, sessions.StatusActive:
				default:
					return fmt.Errorf("session %s is %s; only an interrupted session can be resumed", x.ID, x.Status)
				}
				x.Status = sessions.StatusActive
				x.EndTime = time.Time{}
				x.Metadata.TotalDuration = 0
				return nil
			})
			if err != nil {
				return fmt.Errorf("resume: %w", err)
			}
			if err := store.SetCurrent(sess.ID); err != nil {
				return err
			}
			return a.printSessionID(sess, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session record")
	return cmd
}

// printSessionID prints a session's id alone on a line, or with asJSON its record.
func (a *app) printSessionID(sess *sessions.Session, asJSON bool) error {
	if asJSON {
		return writeJSON(a.stdout, sess)
	}
	_, err := fmt.Fprintln(a.stdout, sess.ID)
	return err
}

// reportProblems prints the files a command skipped, one line each, on stderr.
func (a *app) reportProblems(problems []error) {
	for _, p := range problems {
		fmt.Fprintf(a.stderr, "agent-hooks: warning: skipped %v\n", p)
	}
}

func sessTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func sessIssues(list []int) string {
	if len(list) == 0 {
		return "-"
	}
	parts := make([]string, len(list))
	for i, n := range list {
		parts[i] = fmt.Sprintf("#%d", n)
	}
	return strings.Join(parts, " ")
}

func sessHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func sessDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sessLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}
