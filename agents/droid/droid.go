// Package droid is Factory Droid's hook protocol (measured on droid 0.215.0, `droid exec`): Claude
// Code's shape — the same stdin (session_id, transcript_path, cwd, permission_mode,
// hook_event_name, tool_name, tool_input, tool_response), exit code 2 blocks with stderr, the
// same JSON answers (hookSpecificOutput.permissionDecision, decision "block",
// additionalContext) — with Droid's own events (no PermissionRequest, PostToolUseFailure or
// SubagentStart), its own tool names (Execute, Create, Edit, ApplyPatch, …) and its own
// default timeout (60 s).
package droid

import (
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/hooks"
)

// Agent is Factory Droid.
type Agent struct{}

// Name implements agents.Agent.
func (Agent) Name() string { return settings().Name }

// eventList are Droid's events (its settings schema's, 0.215.0), all of the same name as the
// canonical ones, in the order install registers them.
var eventList = []string{hooks.SessionStart, hooks.UserPromptSubmit, hooks.PreToolUse, hooks.PostToolUse,
	hooks.Notification, hooks.PreCompact, hooks.SubagentStop, hooks.Stop, hooks.SessionEnd}

// Event implements agents.Agent.
func (Agent) Event(hostEvent string) (string, bool) {
	for _, e := range eventList {
		if e == hostEvent {
			return e, true
		}
	}
	return hostEvent, false
}

// defaultTimeout is Droid's timeout of a hook that sets none.
const defaultTimeout = 60 * time.Second

// Budget implements agents.Agent: the hook entry's timeout, else Droid's 60 s.
func (Agent) Budget(_ string, timeout time.Duration, _ func(string) string) time.Duration {
	return agents.TimeoutOr(timeout, defaultTimeout)
}

// ProjectDirEnv implements agents.Agent: Droid's hooks get FACTORY_PROJECT_DIR (and
// DROID_PROJECT_DIR, CLAUDE_PROJECT_DIR).
func (Agent) ProjectDirEnv() string { return "FACTORY_PROJECT_DIR" }

// claudeNames are Claude Code's names of Droid's tools, so that "tools" matches the same.
var claudeNames = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"Execute": {"Bash"}, "Create": {"Write"}, "ApplyPatch": {"Write", "Edit"}, "LS": {"LS"},
		"FetchUrl": {"WebFetch"}, "Task": {"Agent"},
	}
})

// ToolAliases implements agents.Agent.
func (Agent) ToolAliases(tool string) []string { return claudeNames()[tool] }

// ShellCommand implements agents.Agent: Execute's command.
func (Agent) ShellCommand(tool string, input map[string]any) string {
	if tool != "Execute" {
		return ""
	}
	s, _ := input["command"].(string)
	return s
}

// EditedFiles implements agents.Agent: after a call (Droid fires PostToolUse only for a call
// that succeeded), the file of Create, Edit and MultiEdit, the files of an ApplyPatch patch.
func (Agent) EditedFiles(event, tool string, input map[string]any) []string {
	if event != hooks.PostToolUse {
		return nil
	}
	switch tool {
	case "Create", "Edit", "MultiEdit":
		return agents.FilePaths(input, "file_path")
	case "ApplyPatch":
		s, _ := input["input"].(string)
		return agents.PatchFiles(s)
	}
	return nil
}

// CanAsk implements agents.Agent: Droid asks its user on permissionDecision "ask".
func (Agent) CanAsk() bool { return true }

// Answer implements agents.Agent: Claude Code's answers, for Droid's events.
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
	case hooks.UserPromptSubmit, hooks.Stop, hooks.SubagentStop:
		if v.Decision == agents.Deny {
			o.Block(v.Reason)
		}
		if v.Event != hooks.UserPromptSubmit {
			context = "" // Droid reads additionalContext of a prompt, a tool's result and a start only
		}
	case hooks.PostToolUse:
		if v.Block != "" {
			o.Block(v.Block)
		}
	case hooks.SessionStart:
		if v.Decision == agents.Deny {
			o.StopSession(v.Reason)
		}
	default: // Notification, PreCompact, SessionEnd: Droid shows their output to no one
		context = ""
	}
	if context != "" {
		o.Specific(v.HostEvent).AdditionalContext = context
	}
	o.SystemMessage = v.Warning()
	return o.Encode()
}
