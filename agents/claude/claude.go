// Package claude is Claude Code's hook protocol (measured on Claude Code 2.1.197): the events it
// fires and how long it waits for each, how it names its tools, and the JSON it accepts in answer.
// Claude Code reads the answer's JSON on any exit code; it drops the whole answer when
// hookSpecificOutput.hookEventName is missing or names another event, and its permissionDecision
// "allow" skips its own permission prompt, so that is printed only when a hook granted it.
package claude

import (
	"strconv"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/hooks"
)

// Host is Claude Code.
type Agent struct{}

// Name implements agents.Agent.
func (Agent) Name() string { return settings().Name }

// eventList are Claude Code's events that have a canonical event (of the same name), in the
// order install registers them. Its others (PostToolBatch, StopFailure, PermissionDenied, Setup,
// …) fire under their own names for hooks of a declared custom event.
var eventList = []string{hooks.SessionStart, hooks.UserPromptSubmit, hooks.PreToolUse, hooks.PermissionRequest,
	hooks.PostToolUse, hooks.PostToolUseFailure, hooks.Notification, hooks.PreCompact, hooks.SubagentStart,
	hooks.SubagentStop, hooks.Stop, hooks.SessionEnd}

var events = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range eventList {
		m[e] = true
	}
	return m
})

// Event implements agents.Agent.
func (Agent) Event(hostEvent string) (string, bool) { return hostEvent, events()[hostEvent] }

// Claude Code's default timeouts (its hook runner's constants).
const (
	defaultTimeout          = 600 * time.Second
	userPromptSubmitTimeout = 30 * time.Second
	sessionEndTimeout       = 1500 * time.Millisecond
	sessionEndCap           = 60 * time.Second
)

// Budget implements agents.Agent: the hook entry's timeout, else 600 s, except UserPromptSubmit
// (30 s by default) and SessionEnd, whose hooks together get the largest of their timeouts
// between 1.5 and 60 s, or $CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS.
func (Agent) Budget(hostEvent string, timeout time.Duration, getenv func(string) string) time.Duration {
	switch hostEvent {
	case hooks.SessionEnd:
		if ms, err := strconv.ParseInt(getenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"), 10, 64); err == nil && ms > 0 {
			return time.Duration(ms) * time.Millisecond
		}
		if timeout == 0 {
			timeout = sessionEndTimeout
		}
		return max(sessionEndTimeout, min(timeout, sessionEndCap))
	case hooks.UserPromptSubmit:
		if timeout == 0 {
			return userPromptSubmitTimeout
		}
	}
	if timeout == 0 {
		return defaultTimeout
	}
	return timeout
}

// ProjectDirEnv implements agents.Agent.
func (Agent) ProjectDirEnv() string { return "CLAUDE_PROJECT_DIR" }

// renamed are Claude Code's old tool names, which its matchers still accept, by the new name.
var renamed = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"Agent":                  {"Task"},
		"TaskStop":               {"KillShell", "KillBash"},
		"TaskOutput":             {"AgentOutputTool", "BashOutputTool", "AgentOutput", "BashOutput"},
		"ListAgents":             {"ListPeers"},
		"SendUserMessage":        {"Brief"},
		"ListMcpResourcesTool":   {"ListMcpResources"},
		"ReadMcpResourceTool":    {"ReadMcpResource"},
		"ReadMcpResourceDirTool": {"ReadMcpResourceDir"},
	}
})

// ToolAliases implements agents.Agent.
func (Agent) ToolAliases(tool string) []string { return renamed()[tool] }

// ShellCommand implements agents.Agent: Bash's command.
func (Agent) ShellCommand(tool string, input map[string]any) string {
	if tool != "Bash" {
		return ""
	}
	s, _ := input["command"].(string)
	return s
}

// EditedFiles implements agents.Agent: the file of Write, Edit, MultiEdit and NotebookEdit, once
// the call succeeded (PostToolUse; a failed call fires PostToolUseFailure instead).
func (Agent) EditedFiles(event, tool string, input map[string]any) []string {
	if event != hooks.PostToolUse {
		return nil
	}
	switch tool {
	case "Write", "Edit", "MultiEdit":
		return agents.FilePaths(input, "file_path")
	case "NotebookEdit":
		return agents.FilePaths(input, "notebook_path")
	}
	return nil
}

// CanAsk implements agents.Agent: Claude Code asks its user on permissionDecision "ask".
func (Agent) CanAsk() bool { return true }

// Answer implements agents.Agent.
func (Agent) Answer(v *agents.Verdict) ([]byte, error) {
	var o agents.Output
	context := v.Joined()
	switch v.Event {
	case hooks.PreToolUse:
		if v.Decision != "" {
			s := o.Specific(v.HostEvent)
			s.PermissionDecision, s.PermissionDecisionReason = v.Decision, v.Reason
			if v.Decision == agents.Deny {
				s.PermissionDecisionReason = agents.NonEmpty(v.Reason)
			}
		}
		if v.UpdatedInput != nil {
			o.Specific(v.HostEvent).UpdatedInput = v.UpdatedInput
		}
	case hooks.PermissionRequest:
		switch v.Decision {
		case agents.Deny:
			o.Specific(v.HostEvent).Decision = &agents.Permission{Behavior: "deny", Message: agents.NonEmpty(v.Reason)}
		case agents.Allow:
			o.Specific(v.HostEvent).Decision = &agents.Permission{Behavior: "allow"}
		}
		context = "" // nothing reaches the model from a permission prompt
	case hooks.UserPromptSubmit, hooks.Stop, hooks.SubagentStop:
		if v.Decision == agents.Deny {
			o.Block(v.Reason)
		}
	case hooks.PostToolUse:
		if v.Block != "" {
			o.Block(v.Block)
		}
	case hooks.SessionStart:
		if v.Decision == agents.Deny {
			o.StopSession(v.Reason)
		}
	case hooks.PostToolUseFailure, hooks.SubagentStart, hooks.Notification:
		if v.Block != "" {
			context = join(v.Block, context)
		}
	default: // PreCompact, SessionEnd and events of Claude Code's without a canonical one
		context = ""
	}
	if context != "" {
		o.Specific(v.HostEvent).AdditionalContext = context
	}
	o.SystemMessage = v.Warning()
	return o.Encode()
}

func join(a, b string) string {
	if b == "" {
		return a
	}
	return a + "\n\n" + b
}

// Rewrites implements agents.Rewriter: Claude Code runs the call with hookSpecificOutput's
// updatedInput (2.1.197, checked against the real CLI).
func (Agent) Rewrites() bool { return true }
