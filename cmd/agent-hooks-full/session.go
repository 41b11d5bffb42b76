package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/runner/remote"
	"github.com/autoagent/agent-hooks/sessions"
	"github.com/autoagent/agent-hooks/sessions/view"
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
		Example: `  id=$(agent-hooks session start --provider anthropic)
  AUTOAGENT_SESSION_ID=$id agent-hooks run PreExecutionStart --data issueNumber=42
  agent-hooks session end --status completed
  agent-hooks session list --limit 5`,
	}
	cmd.AddCommand(
		a.newSessionStartCmd(),
		a.newSessionEndCmd(nil),
		a.newSessionShowCmd(),
		a.newSessionListCmd(),
		a.newSessionCurrentCmd(),
		a.newSessionResumeCmd(),
		a.newSessionVerifyCmd(),
		a.newSessionReplayCmd(),
		a.newSessionPushCmd(),
		a.newSessionPullCmd(),
		a.newSessionPruneCmd(),
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
  agent-hooks session start --provider anthropic --json
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
	fl.StringVar(&provider, "provider", "", "the agent's primary provider, recorded in the session (anthropic, openai, …)")
	fl.StringVar(&name, "name", "", "the session's human name (letters, digits, _ and -; at most 64): every payload carries it as sessionName, and it is iteratr's {{session}}")
	fl.BoolVar(&asJSON, "json", false, "print the session record instead of its id")
	return cmd
}

// endOptions are session end's arguments and flags.
type endOptions struct {
	ID        string // the session ("" for $AUTOAGENT_SESSION_ID, else the workspace's active one)
	Status    sessions.Status
	Workspace string
	JSON      bool
}

// newSessionEndCmd is `agent-hooks session end`; runF does the work (a.endSession when nil).
func (a *app) newSessionEndCmd(runF func(context.Context, endOptions) error) *cobra.Command {
	if runF == nil {
		runF = a.endSession
	}
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

With "sessions": {"push": true} the ended session is then pushed to the remote, within
"sessions": {"pushTimeout"} (default 30s) in all. A push that fails or times out is a warning on
stderr, not a failure (the session has ended): the session stays marked "not pushed" (session
list and show say so) and is pushed by the next session end in the workspace, or by session
push --pending.

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
			return runF(cmd.Context(), endOptions{ID: id, Status: status, Workspace: workspace, JSON: asJSON})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&id, "session", "", "session id (default $AUTOAGENT_SESSION_ID, else the workspace's active session)")
	fl.StringVar(&statusFlag, "status", string(sessions.StatusCompleted), "final status: completed, interrupted or failed")
	fl.StringVar(&workspace, "workspace", "", "workspace whose session ends and whose hooks run (default the session's, else the current directory's)")
	fl.BoolVar(&asJSON, "json", false, `print {"session", "stop", "sessionEnd"} instead of the hooks' output`)
	return cmd
}

// endSession ends a session (session end).
func (a *app) endSession(ctx context.Context, o endOptions) error {
	r, err := a.newRunner()
	if err != nil {
		return err
	}
	out, err := r.EndSession(ctx, runner.EndRequest{SessionID: o.ID, Workspace: o.Workspace, Status: o.Status, CaptureStdout: o.JSON})
	if err != nil {
		return err
	}
	if !o.JSON {
		return cli.FireError(out)
	}
	doc := map[string]any{"session": out.Session, "stop": out.Stop}
	if !out.Blocked() {
		doc["sessionEnd"] = out.SessionEnd
	}
	if err := cli.WriteJSON(a.Stdout, doc); err != nil {
		return err
	}
	if out.Blocked() {
		return &cli.SilentError{Code: cli.ExitBlocked}
	}
	return nil
}

func (a *app) newSessionShowCmd() *cobra.Command {
	var opts showOptions
	var onRemote remoteFlags
	cmd := &cobra.Command{
		Use:   "show [ID]",
		Short: "Show a session (default $AUTOAGENT_SESSION_ID, else the current one)",
		Long: `Show a session's record (status, workspace, times, issues, git branch and commit) and what
happened in it: one row per agent tool call (the tool, its command or paths, the answer the
agent got, why, and how long the call took from its first hook to its last, PostToolUse
included), and one row per hook run for events that are not tool calls. --blocked keeps only
the calls and hooks that were refused.

--html writes the same as one self-contained HTML page (a timeline of the calls and their
decisions; no script, nothing fetched), --markdown as GitHub-flavoured Markdown with a Mermaid
timeline (what the Action adds to the job summary). Both go to stdout.

--events shows the audit trail instead, one row per hook execution. --json prints the record as
stored (with --events, an "events" array is added to it, with the trail's lines as they were
written). The trail is read line by line, so a trail of millions of lines shows at once in
constant memory.`,
		Example: `  agent-hooks session show
  agent-hooks session show --blocked
  agent-hooks session show --html > session.html
  agent-hooks session show session-1704067200000-abc123 --events
  agent-hooks session show --json | jq .issuesCompleted`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			sess, src, err := a.sessionAndTrail(cmd, args, &onRemote)
			if err != nil {
				return err
			}
			var pending *sessions.PendingPush
			if !onRemote.set() {
				r, err := a.newRunner()
				if err != nil {
					return err
				}
				one := []*sessions.Session{sess}
				r.EndIdle(one)
				sess = one[0]
				if pending, err = r.Store().PushPending(sess.ID); err != nil {
					a.reportProblems([]error{err})
				}
			}
			return a.showSession(sess, pending, src, opts)
		},
	}
	onRemote.flags(cmd, "show the session as it was last pushed to this remote (read into a cache under $AUTOAGENT_HOME/remote-sessions, nothing checked out)")
	opts.flags(cmd)
	return cmd
}

// printSession prints a session's record as `session show` does, buffered: tabwriter writes
// every cell on its own, which on an unbuffered stdout is a system call each. A session whose
// push did not happen (pending, nil for none) says so.
func printSession(out io.Writer, s *sessions.Session, pending *sessions.PendingPush) error {
	w := bufio.NewWriter(out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// Some of a record comes from the agent (its session id, the files it wrote): shown as text.
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, view.Printable(v)) }
	row("id", s.ID)
	if s.Name != "" {
		row("name", s.Name)
	}
	if s.EndReason != "" {
		row("status", string(s.Status)+" ("+sessLine(s.EndReason)+")")
	} else {
		row("status", string(s.Status))
	}
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
	if pending != nil {
		row("push", fmt.Sprintf("not pushed to %s (failed %s: %s); push it with: agent-hooks session push --pending",
			pending.Remote, sessTime(pending.Time), sessLine(pending.Error)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return w.Flush()
}

func (a *app) newSessionListCmd() *cobra.Command {
	var limit int
	var asJSON bool
	var onRemote remoteFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List sessions, newest first",
		Long: `List sessions, newest first, with their name and agent (- for none). Only the records shown
are read, so a folder of thousands of sessions lists at once. A corrupt record or a file that is
not a session is reported on stderr and skipped. The current session is marked with *.

An active session listed that has had no event for "sessions": {"idleEnd"} of its workspace's
config.json (default 24h, 0 never) is ended as interrupted first, with endReason "idle" (a
warning says so): an agent that never sent SessionEnd does not leave it active forever. A process
firing an event in it keeps it active. session show does the same for the session it shows, and
a run that finds its workspace's active session idle ends it and starts a new one.`,
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
			if onRemote.set() {
				list, problems, err := remote.List(cmd.Context(), r, onRemote.request(), limit)
				if err != nil {
					return err
				}
				a.reportProblems(problems)
				if asJSON {
					if list == nil {
						list = []*remote.Session{}
					}
					return cli.WriteJSON(a.Stdout, list)
				}
				recs := make([]*sessions.Session, len(list))
				for i, rs := range list {
					recs[i] = rs.Session
				}
				return printSessionList(a.Stdout, recs, "", nil)
			}
			store := r.Store()
			list, problems, err := store.List(limit)
			if err != nil {
				return err
			}
			a.reportProblems(problems)
			r.EndIdle(list)
			marks, problems, err := store.PendingPushes()
			if err != nil {
				problems = append(problems, err)
			}
			a.reportProblems(problems)
			pending := map[string]*sessions.PendingPush{}
			for i := range marks {
				pending[marks[i].ID] = &marks[i]
			}
			if asJSON {
				recs := make([]json.RawMessage, len(list))
				for i, s := range list {
					if recs[i], err = recordJSON(s, pending[s.ID]); err != nil {
						return err
					}
				}
				return cli.WriteJSON(a.Stdout, recs)
			}
			current, _ := store.CurrentID()
			return printSessionList(a.Stdout, list, current, pending)
		},
	}
	onRemote.flags(cmd, "list the sessions pushed to this remote instead, newest first (reading only the records shown)")
	cmd.Flags().IntVar(&limit, "limit", 10, "how many sessions to show (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of session records")
	return cmd
}

// printSessionList prints sessions as `session list` does, marking the current one and those
// whose push did not happen (pending), buffered (see printSession).
func printSessionList(out io.Writer, list []*sessions.Session, current string, pending map[string]*sessions.PendingPush) error {
	w := bufio.NewWriter(out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tNAME\tAGENT\tSTATUS\tSTARTED\tDONE/FAILED/PLANNED\tWORKSPACE")
	for _, s := range list {
		mark := " "
		if s.ID == current {
			mark = "*"
		}
		status := string(s.Status)
		if pending[s.ID] != nil {
			status += " (not pushed)"
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t%s\t%d/%d/%d\t%s\n", mark, s.ID, sessDash(view.Printable(s.Name)), sessDash(view.Printable(s.Agent)),
			view.Printable(status), sessTime(s.StartTime), len(s.IssuesCompleted), len(s.IssuesFailed), len(s.IssuesPlanned), view.Printable(s.Workspace))
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

func (a *app) newSessionVerifyCmd() *cobra.Command {
	var asJSON bool
	var onRemote remoteFlags
	cmd := &cobra.Command{
		Use:   "verify [ID]",
		Short: "Check that a session's audit trail is as it was written",
		Long: `Check the hash chain of a session's audit trail (default $AUTOAGENT_SESSION_ID, else the
current session). Every line carries its number in the chain ("seq") and the SHA-256 of the line
before it ("prev"); every append notes the head it leaves beside the record (<id>.head) and the
record keeps it when it is written: a line changed, inserted or removed breaks the chain, and
lines cut from the end fall short of the head. verify reports the first line that is not as
written, or that an append found the trail cut, rewritten or extended and said so in it
("found"), as "broken", and exits 1. Lines past the head are vouched for by nothing agent-hooks
wrote (its note of the head was removed, damaged or rolled back, or something else added them):
verify reports them as "unanchored" and exits 1.

A trail written before agent-hooks chained its trails verifies as "unchained" (exit 0): there is
nothing to check it against. Lines that are not events at all (a write cut short by a crash) are
reported on stderr; the chain passes over them. The trail is read line by line, in constant
memory, up to the head it was read with (lines appended meanwhile are left to the next verify).

The chain shows edits; it is no signature: whoever can rewrite the trail, the note and the record
together can forge a chain that verifies. A session pushed with "agent-hooks session push" is out
of their reach: verify --remote checks it as it was pushed.

Exit codes: 0 intact (or unchained, or empty), 1 broken, unanchored or failure.`,
		Example: `  agent-hooks session verify
  agent-hooks session verify session-1704067200000-abc123 --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, src, err := a.sessionAndTrail(cmd, args, &onRemote)
			if err != nil {
				return err
			}
			v, err := verifySession(sess, src)
			if err != nil {
				return err
			}
			return a.printVerification(sess.ID, v, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"session", "status" (intact, broken, unanchored, unchained, empty), "lines", "chained", "unchained", "head", "afterHead", "problems", "break"}`)
	onRemote.flags(cmd, "verify the session as it was last pushed to this remote")
	return cmd
}

// sessionAndTrail finds the session the command names (args[0], else $AUTOAGENT_SESSION_ID, else
// the current one) and its audit trail: in the sessions folder, or with --remote as it was last
// pushed there (which needs the id).
func (a *app) sessionAndTrail(cmd *cobra.Command, args []string, onRemote *remoteFlags) (*sessions.Session, trailSource, error) {
	id := ""
	if len(args) == 1 {
		id = args[0]
	}
	r, err := a.newRunner()
	if err != nil {
		return nil, trailSource{}, err
	}
	if onRemote.set() {
		if id == "" {
			return nil, trailSource{}, fmt.Errorf("%s --remote: name the session (agent-hooks session list --remote lists them)", cmd.CommandPath())
		}
		rs, err := remote.Lookup(cmd.Context(), r, id, onRemote.request())
		if err != nil {
			return nil, trailSource{}, err
		}
		return rs.Session, remoteTrail(rs), nil
	}
	sess, err := r.Lookup(id)
	if err != nil {
		return nil, trailSource{}, err
	}
	// The record, its head and the trail's size at that head, taken together: a line appended
	// while the command reads is not read as one past the head.
	store := r.Store()
	sess, size, err := store.Snapshot(sess.ID)
	if err != nil {
		return nil, trailSource{}, err
	}
	return sess, localTrail(store, sess.ID, size), nil
}

// remoteFlags are --remote and --workspace of the commands that read or write sessions on a
// remote.
type remoteFlags struct {
	remote    string
	workspace string
	changed   func() bool
}

func (f *remoteFlags) flags(cmd *cobra.Command, usage string) {
	cmd.Flags().StringVar(&f.remote, "remote", "", usage)
	cmd.Flags().StringVar(&f.workspace, "workspace", "", "the repository whose remote it is (default the nearest ancestor with .autoagent or .git)")
	f.changed = func() bool { return cmd.Flags().Changed("remote") }
}

func (f *remoteFlags) set() bool { return f.changed != nil && f.changed() }

func (f *remoteFlags) request() remote.Request {
	return remote.Request{Remote: f.remote, Workspace: f.workspace}
}

func (a *app) newSessionPushCmd() *cobra.Command {
	var onRemote remoteFlags
	var asJSON, pending bool
	cmd := &cobra.Command{
		Use:   "push [ID | --pending]",
		Short: "Push a session and its audit trail to refs/agent-hooks/sessions/<id> on a remote",
		Long: `Push a session (default $AUTOAGENT_SESSION_ID, else the current one) to the remote of its
workspace's repository (--remote, else the config's "sessions": {"remote"}, else origin), as
the commit of refs/agent-hooks/sessions/<id>: its record (session.json) and its audit trail
(events/, cut at line ends into chunks), on top of the session's previous push. One ref per
session, so runners pushing their own sessions never contend; nothing else on the remote
changes. Credentials are git-push's: GITHUB_TOKEN or GH_TOKEN for https remotes of GitHub,
ssh keys or agent for ssh remotes.

"sessions": {"push": true} in config.json pushes every session when it ends, within
"sessions": {"pushTimeout"} (default 30s). A push that fails or times out then leaves the session
marked "not pushed" (session list and show say so): the next session end in the same workspace
pushes it, and so does session push ID, or --pending for every session so left (each to the
remote it was for). No wait on the remote is longer than "sessions": {"connectTimeout"} (15s) to
connect and {"idleTimeout"} (60s) once connected.

Read pushed sessions back with session list --remote, show --remote, verify --remote, pull.

Exit codes: 0 pushed, 1 failure (with --pending: any session not pushed, still marked).`,
		Example: `  agent-hooks session push
  agent-hooks session push session-1704067200000-abc123 --remote origin
  agent-hooks session push --pending
  git ls-remote origin 'refs/agent-hooks/sessions/*'`,
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
			if pending {
				if id != "" {
					return errors.New("--pending pushes every session left to push: name no session")
				}
				return a.pushPending(cmd, r, onRemote.request(), asJSON)
			}
			res, err := remote.Push(cmd.Context(), r, id, onRemote.request())
			if err != nil {
				return err
			}
			if asJSON {
				return cli.WriteJSON(a.Stdout, res)
			}
			_, err = fmt.Fprintf(a.Stdout, "%s %s (%d trail chunk(s))\n", res.Ref, res.Commit[:12], res.Chunks)
			return err
		},
	}
	onRemote.flags(cmd, "the remote to push to (default the config's sessions.remote, else origin; with --pending, the one each was for)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"ref", "commit", "parent", "chunks", "attempts"} (with --pending, [{"id", "remote", "result", "error"}])`)
	cmd.Flags().BoolVar(&pending, "pending", false, `push every session whose push did not happen (the sessions.push of its end failed or timed out)`)
	return cmd
}

// pushPending pushes the sessions left to push: one line per session pushed on stdout, one per
// failure on stderr; any failure is exit 1.
func (a *app) pushPending(cmd *cobra.Command, r *runner.Runner, req remote.Request, asJSON bool) error {
	results, problems, err := remote.PushPending(cmd.Context(), r, req)
	a.reportProblems(problems)
	if err != nil {
		return err
	}
	failed := 0
	for _, res := range results {
		if res.Err != nil {
			failed++
			fmt.Fprintf(a.Stderr, "agent-hooks: session %s was not pushed (still marked): %v\n", res.ID, res.Err)
			continue
		}
		if !asJSON {
			fmt.Fprintf(a.Stdout, "%s %s %s (%d trail chunk(s))\n", res.ID, res.Result.Ref, res.Result.Commit[:12], res.Result.Chunks)
		}
	}
	if asJSON {
		if results == nil {
			results = []remote.PendingResult{}
		}
		if err := cli.WriteJSON(a.Stdout, results); err != nil {
			return err
		}
	} else if len(results) == 0 {
		fmt.Fprintln(a.Stderr, "agent-hooks: no session is left to push")
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d session(s) left to push were not pushed; they stay marked", failed, len(results))
	}
	return nil
}

func (a *app) newSessionPullCmd() *cobra.Command {
	var onRemote remoteFlags
	var force bool
	cmd := &cobra.Command{
		Use:   "pull ID...",
		Short: "Copy sessions pushed to a remote into the local sessions folder",
		Long: `Copy sessions as they were last pushed to the remote (--remote, else the config's
"sessions": {"remote"}, else origin) into $AUTOAGENT_HOME/sessions, record and audit trail, so
that show, verify and resume work on them as on any local session. A session that is already
here is left alone unless --force.`,
		Example: `  agent-hooks session pull session-1704067200000-abc123
  agent-hooks session list --remote origin --json | jq -r '.[].id' | xargs agent-hooks session pull`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			for _, id := range args {
				rs, err := remote.Pull(cmd.Context(), r, id, onRemote.request(), force)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.Stdout, "%s %s\n", rs.ID, rs.Status)
			}
			return nil
		},
	}
	onRemote.flags(cmd, "the remote to pull from (default the config's sessions.remote, else origin)")
	cmd.Flags().BoolVar(&force, "force", false, "replace a session that is already here")
	return cmd
}
