package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/all"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/runner"
)

func (a *app) newExplainCmd() *cobra.Command {
	var payload, workspace, event string
	var data []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain <agent|event>",
		Short: "Say which rules and hooks would decide an event, and how, without running any",
		Long: `Explain reads what ` + "`agent-hooks hook <agent>`" + ` would read (the agent's JSON on stdin), or an
event with its payload as ` + "`agent-hooks run`" + ` takes it (--payload, --data), and prints every rule and
hook of the event (and of the git gates of a shell command): whether it applies and why, and the
decision the rules make with its reason. It runs no hook, asks no one, and writes nothing: no
session is started and no audit line is written. Hooks that would run are listed as such; what
they decide is known only by running them.`,
		Example: `  echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":"'$PWD'"}' | agent-hooks explain ` + exampleAgent() + `
  agent-hooks explain PreExecutionEnd --payload issue.json --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			if host, err := all.Lookup(args[0]); err == nil {
				ex, err := agents.Explain(cmd.Context(), agents.Options{Agent: host, Runner: r, Stdin: a.Stdin, Getenv: a.Getenv, Event: event})
				if err != nil {
					return err
				}
				if asJSON {
					return cli.WriteJSON(a.Stdout, ex)
				}
				fmt.Fprintf(a.Stdout, "%s %s", ex.Agent, ex.HostEvent)
				if ex.Event != ex.HostEvent {
					fmt.Fprintf(a.Stdout, " (%s)", ex.Event)
				}
				fmt.Fprintln(a.Stdout)
				for _, e := range ex.Events {
					printExplanation(a, e)
				}
				printDecision(a, ex.Decision, ex.Reason, ex.WouldRun)
				return nil
			}
			p, err := a.ReadPayload(payload, data)
			if err != nil {
				return err
			}
			ex, err := r.Explain(runner.Request{Event: args[0], Data: p, Workspace: workspace})
			if err != nil {
				return err
			}
			if asJSON {
				return cli.WriteJSON(a.Stdout, ex)
			}
			printExplanation(a, ex)
			printDecision(a, ex.Decision, ex.Reason, ex.WouldRun)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&payload, "payload", "", "run mode: JSON object file with the event data (- for stdin)")
	fl.StringArrayVar(&data, "data", nil, "run mode: event data key=value; repeatable")
	fl.StringVar(&workspace, "workspace", "", "run mode: workspace directory")
	fl.StringVar(&event, "event", "", "the agent's name of the event, for an agent whose input does not name it (as hook --event)")
	fl.BoolVar(&asJSON, "json", false, "print the explanation as JSON")
	return cmd
}

// printExplanation prints one event's rules and hooks, one line each.
func printExplanation(a *app, ex *hooks.Explanation) {
	fmt.Fprintf(a.Stdout, "\n%s\n", ex.Event)
	if len(ex.Entries) == 0 {
		fmt.Fprintln(a.Stdout, "  no rule or hook")
		return
	}
	tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	for _, e := range ex.Entries {
		verdict := "-"
		switch {
		case e.Applies && e.Decision != "":
			verdict = e.Decision
		case e.Applies:
			verdict = "runs"
		}
		loc := e.Scope
		if e.File != "" {
			loc += " " + e.File
			if e.Line > 0 {
				loc += fmt.Sprintf(":%d", e.Line)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s %s\t%s\t%s\n", verdict, e.Type, e.Name, oneLine(e.Why), loc)
	}
	_ = tw.Flush()
}

func printDecision(a *app, decision, reason string, wouldRun int) {
	fmt.Fprintln(a.Stdout)
	switch {
	case decision == "":
		fmt.Fprint(a.Stdout, "decision: no rule decides")
	default:
		fmt.Fprintf(a.Stdout, "decision: %s: %s", decision, reason)
	}
	if wouldRun > 0 && decision != agents.Deny {
		fmt.Fprintf(a.Stdout, " (%d hook(s) would run and may still decide)", wouldRun)
	}
	fmt.Fprintln(a.Stdout)
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
