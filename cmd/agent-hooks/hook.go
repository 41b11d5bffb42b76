package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/spf13/cobra"
)

func (a *app) newHookCmd() *cobra.Command {
	var timeout, event string
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range agentHosts() {
			if !yield(n) {
				return
			}
		}
	})
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
agent's defaults apply (Claude Code: 600 s, UserPromptSubmit 30 s, SessionEnd 1.5 s; Codex 600 s;
Copilot CLI 30 s; Cline a fixed 120 s for tool hooks). Gemini CLI writes its timeouts in
milliseconds: give --timeout the same in seconds (60000 ms is --timeout 60; its default). Cursor
does not document its default: agent-hooks assumes 30 s.

GitHub Copilot CLI's camelCase hooks get an input that names no event: --event gives it
(preToolUse, agentStop, …). Cline reads no exit code: every refusal, and every failure to decide,
is {"cancel": true, "errorMessage": …} on stdout, which ends the Cline task.`,
		Example: `  # .claude/settings.json
  {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "agent-hooks hook claude --timeout 600", "timeout": 600}]}]}}
  # .codex/hooks.json
  {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agent-hooks hook codex --timeout 600", "timeout": 600}]}]}}
  # .github/hooks/agent-hooks.json (GitHub Copilot CLI)
  {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "agent-hooks hook copilot --event preToolUse --timeout 30", "timeoutSec": 30}]}}
  # .clinerules/hooks/PreToolUse (Cline), executable
  #!/bin/sh
  exec agent-hooks hook cline --event PreToolUse
  # .gemini/settings.json (Gemini's timeouts are milliseconds)
  {"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "agent-hooks hook gemini --timeout 60", "timeout": 60000}]}]}}
  # .cursor/hooks.json
  {"version": 1, "hooks": {"preToolUse": [{"command": "agent-hooks hook cursor --timeout 30", "timeout": 30, "failClosed": true}]}}`,
		// A mistake on this command line must not read as "proceed" to the agent: every error is
		// exit 2 with the reason on stderr, which the agents read as a block.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &blockedError{reason: fmt.Sprintf("agent-hooks hook: want one agent (%s), got %d arguments", strings.Join(names, ", "), len(args))}
			}
			host, ok := agentHosts()[args[0]]
			if !ok {
				return &blockedError{reason: fmt.Sprintf("agent-hooks hook: unknown agent %q (known: %s)", args[0], strings.Join(names, ", "))}
			}
			limit, err := parseHookTimeout(timeout)
			if err != nil {
				return a.hookError(args[0], "agent-hooks hook: --timeout: "+err.Error())
			}
			r, err := a.newRunner()
			if err != nil {
				return a.hookError(args[0], "agent-hooks hook: "+err.Error())
			}
			reply := agents.Handle(cmd.Context(), agents.Options{
				Agent: host, Runner: r, Stdin: a.stdin, Getenv: a.getenv, Timeout: limit,
				Event: event, Start: a.start, Messages: a.stderr,
			})
			if _, err := a.stdout.Write(reply.Stdout); err != nil {
				return &blockedError{reason: "agent-hooks hook: write the answer: " + err.Error()}
			}
			_, _ = io.WriteString(a.stderr, reply.Stderr)
			reply.Settle()
			if reply.ExitCode != 0 {
				return &silentError{code: reply.ExitCode}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&timeout, "timeout", "", `the hook entry's timeout in the agent's settings: seconds ("600", "1.5") or a duration ("10m")`)
	cmd.Flags().StringVar(&event, "event", "", `the agent's name of the event, for an agent whose input does not name it (Copilot CLI's camelCase hooks)`)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		agent := ""
		if args := c.Flags().Args(); len(args) > 0 {
			agent = args[0]
		}
		return a.hookError(agent, "agent-hooks hook: "+err.Error())
	})
	return cmd
}

// hookError is a mistake on the hook's command line: exit 2 with the reason, which Claude Code
// and Codex read as a block, and, for an agent that reads no exit code as one (Cline), its own
// refusal on stdout as well.
func (a *app) hookError(agent, reason string) error {
	if r, ok := agentHosts()[agent].(agents.Refuser); ok {
		_, _ = a.stdout.Write(append(r.Refusal(reason), '\n'))
	}
	return &blockedError{reason: reason}
}

// parseHookTimeout reads --timeout: a number of seconds, as the agents write their timeouts, or
// a Go duration; "" is none.
func parseHookTimeout(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs <= 0 || secs > 1e6 {
			return 0, fmt.Errorf("want a positive number of seconds, got %s", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want seconds (600) or a duration (10m), got %q", s)
	}
	return d, nil
}
