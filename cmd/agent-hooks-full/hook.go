package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/agents/all"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/internal/cli"
)

// newHookCmd is `agent-hooks hook <agent>`; runF does the work (a.Hook when nil).
func (a *app) newHookCmd(runF func(context.Context, cli.HookFlags) error) *cobra.Command {
	if runF == nil {
		runF = a.Hook
	}
	var timeout, event string
	names := all.Names()
	cmd := &cobra.Command{
		Use:   "hook <agent>",
		Short: "Answer a coding agent's hook event (" + strings.Join(names, ", ") + ")",
		Long: `The command a coding agent runs for every hook event: put it in the agent's settings
(agent-hooks install does) and agent-hooks runs its hooks for the agent.

It reads the agent's JSON from stdin, fires the canonical event of its hook_event_name (PreToolUse,
PostToolUse, Stop, …) in the workspace of its cwd, in the agent-hooks session of the agent's own
session id, and answers in the agent's protocol: at most one JSON document on stdout, and exit 0.
Native hooks get the agent's fields unchanged plus agent, agentSessionId, transcriptPath, toolName,
toolInput and toolUseId. A Bash call that runs git commit or git push fires PreGitCommit or
PreGitPush first, so the repository's gates apply to the agent's own git; the files its edit tools
change are recorded and given to Stop and SessionEnd hooks as filesModified. PreToolUse and
PermissionRequest also get toolCall (tool, command, file, reason, cwd, input): an approval hook
shows it to the person who decides; a request nobody decided in time refuses the call as pending
and stays open, and the agent's next identical call picks the decision up.

On an event that can be blocked it fails closed within the agent's time budget: a broken
configuration, an internal error, or a blocking hook that fails or does not finish is a refusal
with the reason, answered before the agent's own timeout. --timeout must be the timeout of the
hook entry in the agent's settings (agents do not tell the hook), in seconds; without it the
agent's defaults apply.

` + agentHelp(func(h hostsettings.Help) string { return h.Hook }),
		Example: indent(agentHelp(func(h hostsettings.Help) string { return h.Example })),
		// A mistake on this command line must not read as "proceed" to the agent: every error is
		// exit 2 with the reason on stderr, which the agents read as a block.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &cli.BlockedError{Reason: fmt.Sprintf("agent-hooks hook: want one agent (%s), got %d arguments", strings.Join(names, ", "), len(args))}
			}
			return runF(cmd.Context(), cli.HookFlags{Agent: args[0], Timeout: timeout, Event: event})
		},
	}
	cmd.Flags().StringVar(&timeout, "timeout", "", `the hook entry's timeout in the agent's settings: seconds ("600", "1.5") or a duration ("10m")`)
	cmd.Flags().StringVar(&event, "event", "", `the agent's name of the event, for an agent whose input does not name it`)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		agent := ""
		if args := c.Flags().Args(); len(args) > 0 {
			agent = args[0]
		}
		return a.HookError(agent, "agent-hooks hook: "+err.Error())
	})
	return cmd
}

// indent indents every line of s by two spaces (an Example).
func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}
