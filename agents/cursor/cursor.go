// Package cursor is Cursor's hook protocol (from its documentation, cursor.com/docs/hooks: Cursor
// cannot run offline, so it is tested against the documentation's payloads, in
// testdata/agents/cursor): the events of .cursor/hooks.json and what they map to, how Cursor names
// its sessions, workspace and tools, and the JSON it accepts in answer.
//
// Cursor fails open unless a hook entry says "failClosed": true (install writes it): a crash, a
// timeout or output that is not JSON lets the action through. So every answer here is exit 0 and
// one JSON object, a refusal being {"permission": "deny", "user_message": …, "agent_message": …}.
//
// Its input is not shaped like Claude Code's: the session is conversation_id, the project
// workspace_roots, and beforeShellExecution, beforeReadFile, beforeMCPExecution and their after*
// events carry the tool call in fields of their own. They are read as the Shell, Read, MCP:<tool>
// and Write calls of preToolUse and postToolUse, so that one hook sees every tool call alike.
package cursor

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/hooks"
)

// Agent is Cursor (its agent, in the editor or the cursor-agent CLI).
type Agent struct{}

// Name implements agents.Agent.
func (Agent) Name() string { return settings().Name }

// Events maps Cursor's events onto the canonical events. afterAgentResponse, afterAgentThought,
// beforeTabFileRead, afterTabFileEdit and workspaceOpen have none: they fire under their own
// names for hooks of a declared custom event.
var Events = map[string]string{
	"sessionStart":         hooks.SessionStart,
	"beforeSubmitPrompt":   hooks.UserPromptSubmit,
	"preToolUse":           hooks.PreToolUse,
	"beforeShellExecution": hooks.PreToolUse,
	"beforeMCPExecution":   hooks.PreToolUse,
	"beforeReadFile":       hooks.PreToolUse,
	"postToolUse":          hooks.PostToolUse,
	"afterShellExecution":  hooks.PostToolUse,
	"afterMCPExecution":    hooks.PostToolUse,
	"afterFileEdit":        hooks.PostToolUse,
	"postToolUseFailure":   hooks.PostToolUseFailure,
	"subagentStart":        hooks.SubagentStart,
	"subagentStop":         hooks.SubagentStop,
	"stop":                 hooks.Stop,
	"preCompact":           hooks.PreCompact,
	"sessionEnd":           hooks.SessionEnd,
}

// Event implements agents.Agent.
func (Agent) Event(hostEvent string) (string, bool) {
	e, ok := Events[hostEvent]
	return e, ok
}

// DefaultTimeout is the budget of a hook run without --timeout. Cursor does not document its
// default ("platform default"); install always writes a timeout, and this is a guess on the
// short side, so that a refusal comes before Cursor gives up.
const DefaultTimeout = 30 * time.Second

// Budget implements agents.Agent: the hook entry's timeout (seconds, like --timeout).
func (Agent) Budget(_ string, timeout time.Duration, _ func(string) string) time.Duration {
	return agents.TimeoutOr(timeout, DefaultTimeout)
}

// ProjectDirEnv implements agents.Agent.
func (Agent) ProjectDirEnv() string { return "CURSOR_PROJECT_DIR" }

// Shell is Cursor's shell tool.
const Shell = "Shell"

// ToolAliases implements agents.Agent: Cursor reads Claude's Bash as Shell and Edit as Write,
// so a "tools" filter written for Claude matches the same calls.
func (Agent) ToolAliases(tool string) []string {
	switch tool {
	case Shell:
		return []string{"Bash"}
	case "Write":
		return []string{"Edit"}
	}
	return nil
}

// ShellCommand implements agents.Agent: Shell's command.
func (Agent) ShellCommand(tool string, input map[string]any) string {
	if tool != Shell {
		return ""
	}
	s, _ := input["command"].(string)
	return s
}

// EditedFiles implements agents.Agent: the file of a Write (postToolUse, afterFileEdit).
func (Agent) EditedFiles(event, tool string, input map[string]any) []string {
	if event != hooks.PostToolUse || tool != "Write" {
		return nil
	}
	return agents.FilePaths(input, "file_path")
}

// Decode implements agents.Decoder: Cursor names the session conversation_id, may give only
// workspace_roots for the directory, and its own events carry their tool's input at the top.
func (Agent) Decode(in *agents.Input, _ string) error {
	f := in.Fields
	in.HostEvent = agents.Str(f, "hook_event_name")
	in.Session, in.Dir, in.Transcript = agents.Str(f, "conversation_id"), agents.Str(f, "cwd"), agents.Str(f, "transcript_path")
	in.ToolName, in.UseID = agents.Str(f, "tool_name"), agents.Str(f, "tool_use_id")
	if in.Session == "" {
		in.Session = agents.Str(f, "session_id")
	}
	if roots, ok := f["workspace_roots"].([]any); ok && len(roots) > 0 && in.Dir == "" {
		in.Dir, _ = roots[0].(string)
	}
	in.Args = object(f["tool_input"])
	switch in.HostEvent {
	case "beforeShellExecution", "afterShellExecution":
		in.ToolName, in.Args = Shell, map[string]any{"command": f["command"]}
	case "beforeReadFile":
		in.ToolName, in.Args = "Read", map[string]any{"file_path": f["file_path"]}
	case "afterFileEdit":
		in.ToolName, in.Args = "Write", map[string]any{"file_path": f["file_path"], "edits": f["edits"]}
	case "beforeMCPExecution", "afterMCPExecution":
		if in.ToolName != "" && !strings.HasPrefix(in.ToolName, "MCP:") {
			in.ToolName = "MCP:" + in.ToolName // as preToolUse names an MCP tool
		}
	}
	return nil
}

// object is a tool input: an object, or the JSON text of one (beforeMCPExecution's tool_input).
func object(v any) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return v
	case string:
		dec := json.NewDecoder(bytes.NewReader([]byte(v)))
		dec.UseNumber()
		var m map[string]any
		if dec.Decode(&m) == nil {
			return m
		}
	}
	return nil
}

// CanAsk implements agents.Agent: preToolUse accepts "ask" but does not enforce it.
func (Agent) CanAsk() bool { return false }

// output is Cursor's hook output; every field is omitted when empty.
type output struct {
	Permission        string `json:"permission,omitempty"`
	Continue          *bool  `json:"continue,omitempty"`
	UserMessage       string `json:"user_message,omitempty"`
	AgentMessage      string `json:"agent_message,omitempty"`
	FollowupMessage   string `json:"followup_message,omitempty"`
	AdditionalContext string `json:"additional_context,omitempty"`
}

// Answer implements agents.Agent: per event, only what Cursor reads of it.
func (Agent) Answer(v *agents.Verdict) ([]byte, error) {
	var o output
	context := v.Joined()
	switch v.Event {
	case hooks.PreToolUse:
		switch v.Decision {
		case agents.Deny, agents.Ask:
			r := agents.NonEmpty(v.Reason)
			o.Permission, o.UserMessage, o.AgentMessage = "deny", withWarning(r, v), r
		case agents.Allow:
			o.Permission = "allow"
		}
	case hooks.UserPromptSubmit:
		if v.Decision == agents.Deny {
			f := false
			o.Continue, o.UserMessage = &f, withWarning(agents.NonEmpty(v.Reason), v)
		}
	case hooks.Stop, hooks.SubagentStop:
		if v.Decision == agents.Deny {
			o.FollowupMessage = agents.NonEmpty(v.Reason) // the agent keeps working on it
		}
	case hooks.PostToolUse:
		if v.HostEvent == "postToolUse" {
			o.AdditionalContext = strings.TrimSpace(v.Block + "\n\n" + context)
		}
	case hooks.SessionStart:
		o.AdditionalContext = context
	}
	if o == (output{}) {
		return nil, nil
	}
	return agents.Marshal(o)
}

// withWarning is a refusal's message for the user, with agent-hooks' warnings after it.
func withWarning(reason string, v *agents.Verdict) string {
	if w := v.Warning(); w != "" {
		return reason + "\n" + w
	}
	return reason
}
