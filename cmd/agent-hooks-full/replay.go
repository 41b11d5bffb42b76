package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/sessions"
	"github.com/autoagent/agent-hooks/toolcall"
)

// replayed is one recorded tool call asked again of today's rules.
type replayed struct {
	Seq      int64  `json:"seq"`
	Event    string `json:"event"`
	Agent    string `json:"agent"`
	Tool     string `json:"tool"`
	Call     string `json:"call"`    // what it did, in one line
	Was      string `json:"was"`     // the decision recorded then ("" passed)
	Now      string `json:"now"`     // today's rules' decision ("" none decides)
	Reason   string `json:"reason"`  // today's reason
	Changed  bool   `json:"changed"` // Now differs from Was
	ToolUse  string `json:"toolUseId,omitempty"`
	Recorded string `json:"recorded"` // when
}

func (a *app) newSessionReplayCmd() *cobra.Command {
	var asJSON, all bool
	var remote remoteFlags
	cmd := &cobra.Command{
		Use:   "replay [ID]",
		Short: "Ask today's rules about a recorded session's tool calls",
		Long: `replay reads the tool calls a session recorded (their shape: tool, kind, files, commands — never
contents, and with secret-looking words redacted) and asks today's rules of the session's
workspace about each, as ` + "`agent-hooks explain`" + ` does: no hook runs and nothing is written. It lists the
calls the rules would now deny or ask about (--all: every call), with the decision recorded then.
A rule whose "when" reads fields the trail does not keep (toolInput) may not be able to decide: it
says so.`,
		Example: `  agent-hooks session replay
  agent-hooks session replay session-1704067200000-abc123 --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, src, err := a.sessionAndTrail(cmd, args, &remote)
			if err != nil {
				return err
			}
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			var out []replayed
			total := 0
			err = src.each(true, func(_ int, e *sessions.Event, _ []byte) error {
				call, ok := e.Details["call"].(map[string]any)
				if e.Type != "agent" || !ok {
					return nil
				}
				total++
				c := toolcall.FromPayload(map[string]any{"toolCall": call})
				if c == nil {
					return nil
				}
				p := hooks.Payload{"toolName": c.Tool, "tool_name": c.Tool, "toolCall": call, "agent": e.Name, "replay": true}
				ex, err := r.Explain(runner.Request{Event: e.Event, Data: p, Workspace: sess.Workspace, Agent: e.Name})
				if err != nil {
					return err
				}
				rp := replayed{Seq: e.Seq, Event: e.Event, Agent: e.Name, Tool: c.Tool, Call: summary(c), Was: e.Decision,
					Now: ex.Decision, Reason: ex.Reason, ToolUse: e.ToolUseID, Recorded: e.Time.UTC().Format("2006-01-02T15:04:05Z")}
				if rp.Now == "allow" {
					rp.Now = ""
				}
				was := rp.Was
				if was == "allow" {
					was = ""
				}
				rp.Changed = rp.Now != was
				if all || rp.Now == "deny" || rp.Now == "ask" {
					out = append(out, rp)
				}
				return nil
			}, func(err error) { fmt.Fprintf(a.Stderr, "agent-hooks: warning: %v\n", err) })
			if err != nil {
				return err
			}
			if asJSON {
				if out == nil {
					out = []replayed{}
				}
				return cli.WriteJSON(a.Stdout, out)
			}
			for _, rp := range out {
				now := rp.Now
				if now == "" {
					now = "passes"
				}
				was := rp.Was
				if was == "" {
					was = "passed"
				}
				fmt.Fprintf(a.Stdout, "%d\t%s %s\t%s\twas %s, now %s", rp.Seq, rp.Agent, rp.Tool, rp.Call, was, now)
				if rp.Reason != "" {
					fmt.Fprintf(a.Stdout, ": %s", oneLine(rp.Reason))
				}
				fmt.Fprintln(a.Stdout)
			}
			n := 0
			for _, rp := range out {
				if rp.Now == "deny" || rp.Now == "ask" {
					n++
				}
			}
			fmt.Fprintf(a.Stdout, "%d of %d recorded tool calls would now be denied or asked about\n", n, total)
			return nil
		},
	}
	remote.flags(cmd, "replay the session as it was last pushed to this remote")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the calls as JSON")
	cmd.Flags().BoolVar(&all, "all", false, "list every recorded call, not only those now denied or asked about")
	return cmd
}

// summary is a call in one line: its commands, else its kind and files.
func summary(c *toolcall.Call) string {
	if len(c.Commands) > 0 {
		parts := make([]string, len(c.Commands))
		for i, cmd := range c.Commands {
			parts[i] = strings.Join(cmd.Argv, " ")
		}
		return strings.Join(parts, "; ")
	}
	files := append(append([]string{}, c.Writes...), c.Reads...)
	return strings.TrimSpace(c.Kind + " " + strings.Join(files, " "))
}
