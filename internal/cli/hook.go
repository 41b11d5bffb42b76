package cli

import (
	"context"
	"io"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/all"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
)

// HookFlags are `agent-hooks hook <agent>`'s command line.
type HookFlags struct {
	Agent   string // the one argument
	Timeout string // --timeout
	Event   string // --event
}

// Hook answers one hook event of an agent: `agent-hooks hook <agent>`. A mistake on the command
// line must not read as "proceed" to the agent: every error is exit 2 with the reason on stderr,
// which the agents read as a block. A lean program given a configuration it cannot run returns
// a *HandOffError, having written nothing.
func (a *App) Hook(ctx context.Context, f HookFlags) error {
	host, err := all.Lookup(f.Agent)
	if err != nil {
		return &BlockedError{Reason: "agent-hooks hook: " + err.Error()}
	}
	limit, err := hostsettings.ParseTimeout(f.Timeout)
	if err != nil {
		return a.HookError(f.Agent, "agent-hooks hook: --timeout: "+err.Error())
	}
	r, err := a.NewRunner()
	if err != nil {
		return a.HookError(f.Agent, "agent-hooks hook: "+err.Error())
	}
	r.Progress = nil // the agent reads stderr: not a line more, terminal or not
	reply := agents.Handle(ctx, agents.Options{
		Agent: host, Runner: r, Stdin: a.Stdin, Getenv: a.Getenv, Timeout: limit,
		Event: f.Event, Start: a.Start, Messages: a.Stderr,
	})
	if reply.HandOff != nil {
		return &HandOffError{Cause: reply.HandOff, Input: reply.Input, Read: true}
	}
	if _, err := a.Stdout.Write(reply.Stdout); err != nil {
		return &BlockedError{Reason: "agent-hooks hook: write the answer: " + err.Error()}
	}
	_, _ = io.WriteString(a.Stderr, reply.Stderr)
	reply.Settle()
	if reply.ExitCode != 0 {
		return &SilentError{Code: reply.ExitCode}
	}
	return nil
}

// HookError is a mistake on the hook's command line: exit 2 with the reason, which Claude Code
// and Codex read as a block, and, for an agent that reads no exit code as one (Cline), its own
// refusal on stdout as well.
func (a *App) HookError(agent, reason string) error {
	ag, _ := all.Lookup(agent)
	if r, ok := ag.(agents.Refuser); ok {
		_, _ = a.Stdout.Write(append(r.Refusal(reason), '\n'))
	}
	return &BlockedError{Reason: reason}
}
