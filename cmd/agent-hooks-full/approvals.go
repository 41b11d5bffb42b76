package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/internal/cli"
)

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool { return approval.IsTerminal(r) }

// approvalStore is $AUTOAGENT_HOME/approvals.
func (a *app) approvalStore() (*approval.Store, error) {
	home, err := a.AutoagentHome()
	if err != nil {
		return nil, err
	}
	return approval.NewStore(filepath.Join(home, "approvals")), nil
}

// localApprovals is the "local" approval provider of this process: it prompts on the terminal
// when standard input is one (and this is not CI), and always records the request so that
// `agent-hooks approvals approve|reject` can decide it.
func (a *app) localApprovals() *approval.Local {
	dir := ""
	if s, err := a.approvalStore(); err == nil {
		dir = s.Dir
	}
	var term *approval.Terminal
	if isTerminal(a.Stdin) && a.Getenv("CI") == "" {
		term = &approval.Terminal{In: a.Stdin, Out: a.Stderr}
	}
	return approval.NewLocal(approval.LocalOptions{Dir: dir, Terminal: term, User: a.userName(), PID: os.Getpid()})
}

// inputApprovals is the "input" approval provider of this process (agent-pipelines'
// await_input): it may read this process's standard input, and asks there when it is a terminal.
func (a *app) inputApprovals() *approval.Input {
	return approval.NewInput(approval.InputOptions{Stdin: a.Stdin, StdinTerminal: isTerminal(a.Stdin)})
}

// userName is who decides an approval from this process.
func (a *app) userName() string {
	for _, k := range []string{"USER", "USERNAME", "LOGNAME"} {
		if v := a.Getenv(k); v != "" {
			return v
		}
	}
	return "local user"
}

func (a *app) newApprovalsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List, show, approve and reject local approval requests",
		Long: `An approval hook with "provider": "local" (the default) records each request in
$AUTOAGENT_HOME/approvals/<id>.json and waits. On a terminal it also asks there; otherwise, or from
anywhere else, decide it with "agent-hooks approvals approve|reject <id>". Without a decision
before the hook's timeout, its timeoutAction (block or approve) decides. A request about an
agent's tool call (agent-hooks hook <agent>) is not closed then: the call is refused as
pending, and the agent's next identical call in the session takes the decision made meanwhile.

An id may be shortened to any unique prefix.

Other providers: "github" asks in the pull request (see the examples); "http-poll" (the
agent-pipelines await_poll) GETs a URL every "interval" until its JSON answer matches
"abortWhen" (block) or "successWhen" (approve):

  {"type": "approval", "provider": "http-poll", "timeout": 86400000,
   "url": "${APPROVAL_API}/status/{{sessionId}}", "interval": "30s",
   "headers": {"Authorization": "Bearer ${APPROVAL_TOKEN}"},
   "successWhen": ".status == 'approved'", "abortWhen": ".status == 'rejected'",
   "reasonFrom": ".comment", "timeoutAction": "block"}

Conditions are a jq-like subset: paths (.a.b, .items[0], .["odd key"], . for the whole answer),
string, number, true/false/null literals, == and !=, && || ! and parentheses. A bare path holds
unless it is missing, null or false. ${VAR} comes from the environment and {{key}} from the
payload (percent-encoded in the URL); the URL and headers are never printed.

"callback" (the agent-pipelines await_webhook) sends one request to "url" carrying
{{approveUrl}} and {{rejectUrl}} (in "body"; they hold a token made for that request alone) and
waits on a server on 127.0.0.1 ("listen", "publicUrl") for a POST to one of them; its body is the
answer ("responseVar" hands it on to the event's later hooks). "input" (await_input) waits for an
answer ("approve" or "reject", and a reason) written to "file" after the question was asked, or
a line on standard input ("stdin").

  {"type": "approval", "provider": "callback", "timeout": "24h", "url": "${CHAT_WEBHOOK}",
   "body": {"text": "Deploy {{sessionId}}?", "approve": "{{approveUrl}}", "reject": "{{rejectUrl}}"},
   "responseVar": "APPROVAL_RESPONSE", "timeoutAction": "block"}`,
		Example: `  agent-hooks approvals list
  agent-hooks approvals approve apr-k3x9q2mz
  agent-hooks approvals reject k3x --reason "tests are red"
  agent-hooks approvals show apr-k3x9q2mz --json`,
	}
	cmd.AddCommand(a.newApprovalsListCmd(), a.newApprovalsShowCmd(),
		a.newApprovalsDecideCmd(true), a.newApprovalsDecideCmd(false))
	return cmd
}

func (a *app) newApprovalsListCmd() *cobra.Command {
	var all, asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List pending approval requests (--all: decided ones too), oldest first",
		Example: `  agent-hooks approvals list
  agent-hooks approvals list --json | jq -r '.[0].id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := a.approvalStore()
			if err != nil {
				return err
			}
			list, problems, err := store.List()
			if err != nil {
				return err
			}
			a.reportProblems(problems)
			now := time.Now()
			shown := []*approval.Request{}
			for _, r := range list {
				r.State = r.StateAt(now)
				if all || r.State == approval.StatePending {
					shown = append(shown, r)
				}
			}
			if asJSON {
				return cli.WriteJSON(a.Stdout, shown)
			}
			if len(shown) == 0 {
				fmt.Fprintln(a.Stderr, "agent-hooks: no pending approval requests")
				return nil
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATE\tSESSION\tEVENT\tCREATED\tEXPIRES\tMESSAGE")
			for _, r := range shown {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.State, sessDash(r.SessionID), r.Event,
					sessTime(r.CreatedAt), sessTime(r.ExpiresAt), approval.Printable(sessLine(r.Message)))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also list decided, expired and cancelled requests")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of requests")
	return cmd
}

func (a *app) newApprovalsShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "show <id>",
		Short:   "Show one approval request and its decision",
		Example: "  agent-hooks approvals show apr-k3x9q2mz",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, r, err := a.findApproval(args[0])
			if err != nil {
				return err
			}
			r.State = r.StateAt(time.Now())
			if asJSON {
				return cli.WriteJSON(a.Stdout, r)
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
			rows := [][2]string{
				{"id", r.ID}, {"state", r.State}, {"session", sessDash(r.SessionID)}, {"event", r.Event},
				{"hook", sessDash(r.Hook)}, {"workspace", sessDash(r.Workspace)}, {"created", sessTime(r.CreatedAt)},
				{"expires", sessTime(r.ExpiresAt)}, {"timeoutAction", r.TimeoutAction},
			}
			if d := r.Decision; d != nil {
				rows = append(rows, [2]string{"decided", sessTime(d.At) + " via " + d.Via}, [2]string{"by", sessDash(d.By)}, [2]string{"reason", sessDash(d.Reason)})
			}
			for _, row := range rows {
				fmt.Fprintf(tw, "%s:\t%s\n", row[0], row[1])
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.Stdout, "\n%s\n", approval.Printable(r.Message))
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the request as JSON")
	return cmd
}

func (a *app) findApproval(idOrPrefix string) (*approval.Store, *approval.Request, error) {
	store, err := a.approvalStore()
	if err != nil {
		return nil, nil, err
	}
	id, err := store.Resolve(idOrPrefix)
	if err != nil {
		return nil, nil, withListHint(err)
	}
	r, err := store.Get(id)
	if err != nil {
		return nil, nil, withListHint(err)
	}
	return store, r, nil
}

func withListHint(err error) error {
	if errors.Is(err, approval.ErrNotFound) {
		return fmt.Errorf("%w (see agent-hooks approvals list)", err)
	}
	return err
}

func (a *app) newApprovalsDecideCmd(approve bool) *cobra.Command {
	var reason, by string
	verb, state := "reject", approval.StateRejected
	if approve {
		verb, state = "approve", approval.StateApproved
	}
	cmd := &cobra.Command{
		Use:   verb + " <id>",
		Short: strings.ToUpper(verb[:1]) + verb[1:] + " a pending approval request",
		Long: fmt.Sprintf(`%s a pending request; the run waiting for it sees the decision within a second.
The reason is shown to the agent (a rejection's reason is the block reason).`, strings.ToUpper(verb[:1])+verb[1:]),
		Example: fmt.Sprintf("  agent-hooks approvals %s apr-k3x9q2mz --reason \"looks good\"", verb),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, r, err := a.findApproval(args[0])
			if err != nil {
				return err
			}
			if r.StateAt(time.Now()) == approval.StateExpired && r.State == approval.StatePending {
				return fmt.Errorf("approval %s expired at %s; nothing waits for it any more", r.ID, sessTime(r.ExpiresAt))
			}
			if by == "" {
				by = a.userName()
			}
			r, err = store.Decide(r.ID, state, approval.Decision{By: by, Via: "cli", Reason: reason})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stderr, "agent-hooks: %s %s (%s, session %s)\n", r.State, r.ID, r.Event, sessDash(r.SessionID))
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (shown to the agent)")
	cmd.Flags().StringVar(&by, "by", "", "who decides (default $USER)")
	return cmd
}
