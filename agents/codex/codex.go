// Package codex is Codex CLI's hook protocol (measured on Codex 0.169.0; its output schemas are
// in testdata/agents/codex/schemas): the events it fires, how it names its tools, and the JSON it
// accepts in answer. Codex reads stdout only on exit 0, validates it against a schema per event
// that allows no unknown key (an answer with one is dropped, and the tool runs), and rejects
// permissionDecision "allow" without updatedInput and "ask" outright, so neither is ever printed:
// an ask is a refusal (Codex cannot ask), a grant is simply no objection.
package codex

import (
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/hooks"
)

// Agent is Codex.
type Agent struct{}

// Name implements agents.Agent.
func (Agent) Name() string { return settings().Name }

// eventList are Codex's events that have a canonical event (of the same name), in the order
// install registers them. PostCompact, Interrupt and PreModelRequest fire under their own names
// for hooks of a declared custom event.
var eventList = []string{hooks.SessionStart, hooks.UserPromptSubmit, hooks.PreToolUse, hooks.PermissionRequest,
	hooks.PostToolUse, hooks.PreCompact, hooks.SubagentStart, hooks.SubagentStop, hooks.Stop, hooks.SessionEnd}

var events = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range eventList {
		m[e] = true
	}
	return m
})

// Event implements agents.Agent.
func (Agent) Event(hostEvent string) (string, bool) { return hostEvent, events()[hostEvent] }

// defaultTimeout is Codex's timeout of a hook entry without one; it allows no less than a second.
const defaultTimeout = 600 * time.Second

// Budget implements agents.Agent.
func (Agent) Budget(_ string, timeout time.Duration, _ func(string) string) time.Duration {
	if timeout == 0 {
		return defaultTimeout
	}
	return max(timeout, time.Second)
}

// ProjectDirEnv implements agents.Agent: Codex names the project only in its input's cwd.
func (Agent) ProjectDirEnv() string { return "" }

// ToolAliases implements agents.Agent: Codex's matchers Write and Edit match apply_patch.
func (Agent) ToolAliases(tool string) []string {
	if tool == "apply_patch" {
		return []string{"Write", "Edit"}
	}
	return nil
}

// ShellCommand implements agents.Agent: Codex reports its shell tool (exec_command) as Bash.
func (Agent) ShellCommand(tool string, input map[string]any) string {
	if tool != "Bash" {
		return ""
	}
	s, _ := input["command"].(string)
	return s
}

// EditedFiles implements agents.Agent: the files of an apply_patch patch after the call, and of a
// patch a shell command applies (apply_patch <<'EOF' …) before it, since Codex fires nothing
// after that one.
func (Agent) EditedFiles(event, tool string, input map[string]any) []string {
	command, _ := input["command"].(string)
	switch {
	case event == hooks.PostToolUse && tool == "apply_patch":
		return agents.PatchFiles(command)
	case event == hooks.PreToolUse && tool == "Bash" && agents.HasPatch(command):
		return agents.PatchFiles(command)
	}
	return nil
}

// CanAsk implements agents.Agent: Codex has no "ask" for a hook.
func (Agent) CanAsk() bool { return false }

// Answer implements agents.Agent: per event, only the fields Codex's schema for it allows.
func (Agent) Answer(v *agents.Verdict) ([]byte, error) {
	var o agents.Output
	context := v.Joined()
	switch v.Event {
	case hooks.PreToolUse:
		switch {
		case v.Decision == agents.Deny || v.Decision == agents.Ask:
			s := o.Specific(v.HostEvent)
			s.PermissionDecision, s.PermissionDecisionReason = "deny", agents.NonEmpty(v.Reason)
		case v.UpdatedInput != nil:
			// Codex takes a rewritten input with "allow" only (and "allow" only with one).
			s := o.Specific(v.HostEvent)
			s.PermissionDecision, s.UpdatedInput = "allow", v.UpdatedInput
		}
	case hooks.PermissionRequest:
		switch v.Decision {
		case agents.Deny:
			o.Specific(v.HostEvent).Decision = &agents.Permission{Behavior: "deny", Message: agents.NonEmpty(v.Reason)}
		case agents.Allow:
			o.Specific(v.HostEvent).Decision = &agents.Permission{Behavior: "allow"}
		}
		context = ""
	case hooks.UserPromptSubmit:
		if v.Decision == agents.Deny {
			o.Block(v.Reason)
		}
	case hooks.Stop, hooks.SubagentStop:
		if v.Decision == agents.Deny {
			o.Block(v.Reason)
		}
		context = "" // no additionalContext in Codex's Stop answers
	case hooks.PostToolUse:
		if v.Block != "" {
			o.Block(v.Block)
		}
	case hooks.SessionStart:
		if v.Decision == agents.Deny {
			o.StopSession(v.Reason)
		}
	case hooks.SubagentStart:
	case hooks.PreCompact:
		context = ""
	default: // SessionEnd (Codex reads no answer) and events without a canonical one
		return nil, nil
	}
	if context != "" {
		o.Specific(v.HostEvent).AdditionalContext = context
	}
	o.SystemMessage = v.Warning()
	return o.Encode()
}

// Rewrites implements agents.Rewriter: Codex runs the call with updatedInput under
// permissionDecision "allow" (0.169.0, checked against the real CLI).
func (Agent) Rewrites() bool { return true }
