package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/all"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/runner"
)

// ruleCases is a `rules test` file.
type ruleCases struct {
	Cases []ruleCase `json:"cases"`
}

// ruleCase is one case: an agent's hook input (agent, input) or a run-mode event (event,
// payload), and the decision wanted: deny, ask, allow or none (no rule decides); rule, when set,
// names the rule that must decide it.
type ruleCase struct {
	Name    string         `json:"name"`
	Agent   string         `json:"agent"`
	Input   map[string]any `json:"input"`
	Event   string         `json:"event"`
	Payload hooks.Payload  `json:"payload"`
	Want    string         `json:"want"`
	Rule    string         `json:"rule"`
}

func (a *app) newRulesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "rules",
		Short:   "Test the configuration's rules",
		Example: "  agent-hooks rules test policy-cases.json",
	}
	var workspace string
	test := &cobra.Command{
		Use:   "test FILE",
		Short: "Check the rules' decisions against cases, without side effects",
		Long: `rules test runs each case of FILE through the rules of the workspace's configuration, as
` + "`agent-hooks explain`" + ` does (no hook runs, nothing is written), and compares the decision with the
one the case wants. It exits 1 listing every mismatch, so that a policy's own CI can check it.

FILE is JSON: {"cases": [...]}, each case either an agent's hook input —
  {"name": "no force push", "agent": "` + exampleAgent() + `", "input": {"hook_event_name": "PreToolUse",
   "tool_name": "Bash", "tool_input": {"command": "git push -f"}}, "want": "deny"}
— or a run-mode event: {"event": "PreExecutionEnd", "payload": {...}, "want": "none"}.
want is deny, ask, allow or none (no rule decides); "rule" names the rule that must decide. An
input without "cwd" runs in the workspace.`,
		Example: `  agent-hooks rules test policy-cases.json
  agent-hooks rules test --workspace ./repo .autoagent/rules-cases.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := os.ReadFile(a.AbsPath(args[0]))
			if err != nil {
				return err
			}
			var file ruleCases
			dec := json.NewDecoder(bytes.NewReader(src))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&file); err != nil {
				return fmt.Errorf("%s: %v", args[0], err)
			}
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			ws, err := r.Workspace(workspace)
			if err != nil {
				return err
			}
			failed := 0
			for i, c := range file.Cases {
				label := c.Name
				if label == "" {
					label = fmt.Sprintf("case %d", i+1)
				}
				got, rule, err := a.decideCase(cmd, r, ws, c)
				switch {
				case err != nil:
					failed++
					fmt.Fprintf(a.Stdout, "FAIL %s: %v\n", label, err)
				case got != c.Want || c.Rule != "" && rule != c.Rule:
					failed++
					fmt.Fprintf(a.Stdout, "FAIL %s: got %s", label, got)
					if rule != "" {
						fmt.Fprintf(a.Stdout, " (rule %s)", rule)
					}
					fmt.Fprintf(a.Stdout, ", want %s", c.Want)
					if c.Rule != "" {
						fmt.Fprintf(a.Stdout, " (rule %s)", c.Rule)
					}
					fmt.Fprintln(a.Stdout)
				default:
					fmt.Fprintf(a.Stdout, "ok   %s\n", label)
				}
			}
			fmt.Fprintf(a.Stdout, "%d cases, %d failed\n", len(file.Cases), failed)
			if failed > 0 {
				return &cli.SilentError{Code: cli.ExitFailure}
			}
			return nil
		},
	}
	test.Flags().StringVar(&workspace, "workspace", "", "workspace directory")
	cmd.AddCommand(test)
	return cmd
}

// decideCase is the rules' decision of one case ("none" when no rule decides) and the first rule
// that made it.
func (a *app) decideCase(cmd *cobra.Command, r *runner.Runner, ws string, c ruleCase) (decision, rule string, err error) {
	switch c.Want {
	case "deny", "ask", "allow", "none":
	default:
		return "", "", fmt.Errorf(`want %q: want deny, ask, allow or none`, c.Want)
	}
	var events []*hooks.Explanation
	decision = "none"
	if c.Agent != "" {
		host, err := all.Lookup(c.Agent)
		if err != nil {
			return "", "", err
		}
		in := c.Input
		if in == nil {
			in = map[string]any{}
		}
		if _, ok := in["cwd"]; !ok {
			in["cwd"] = ws
		}
		b, _ := json.Marshal(in)
		ex, err := agents.Explain(cmd.Context(), agents.Options{Agent: host, Runner: r, Stdin: bytes.NewReader(b)})
		if err != nil {
			return "", "", err
		}
		if ex.Decision != "" {
			decision = ex.Decision
		}
		events = ex.Events
	} else {
		if c.Event == "" {
			return "", "", fmt.Errorf(`a case needs "agent" and "input", or "event"`)
		}
		ex, err := r.Explain(runner.Request{Event: c.Event, Data: c.Payload, Workspace: ws})
		if err != nil {
			return "", "", err
		}
		if ex.Decision != "" {
			decision = ex.Decision
		}
		events = []*hooks.Explanation{ex}
	}
	for _, e := range events {
		for _, en := range e.Entries {
			if en.Applies && strings.EqualFold(en.Decision, decision) && rule == "" {
				rule = en.Name
			}
		}
	}
	return decision, rule, nil
}
