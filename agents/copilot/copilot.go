// Package copilot is GitHub Copilot CLI's hook protocol (measured on @github/copilot 1.0.102; the
// cloud agent reads the same .github/hooks files): the events it fires, how it names its tools,
// how long it waits, and the JSON it accepts in answer.
//
// Copilot has two dialects, chosen by how the event is spelled in its hooks file. Under a
// camelCase key (preToolUse, agentStop, …), which install writes, the input names neither the
// event nor its fields the way Claude Code does: no hook_event_name (the event is given on the
// command line, --event), sessionId, toolName, toolArgs (an object; a JSON string in GitHub's
// older documentation). The answer is flat: permissionDecision and permissionDecisionReason,
// a permissionRequest's behavior and message, an agentStop's decision "block" and reason, and
// additionalContext. Under a PascalCase key (PreToolUse, Stop, …) the input is Claude Code's
// shape with Claude's tool names, and the answer Claude Code's, which Copilot also accepts from
// .claude/settings.json.
//
// Copilot reads stdout as one JSON document whatever else it holds (two documents, or stray
// text, are no answer at all, and the tool runs), denies a preToolUse whose hook exits non-zero,
// but lets it run when the hook outlives timeoutSec (30 s unless set): agent-hooks answers
// before that.
package copilot

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/claude"
	"github.com/autoagent/agent-hooks/hooks"
)

// Host is GitHub Copilot CLI.
type Agent struct{}

// Name implements agents.Agent.
func (Agent) Name() string { return "copilot" }

// events are Copilot's events with a canonical one, in both spellings. userPromptTransformed
// has none: it fires under its own name for hooks of a declared custom event.
var events = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"sessionStart": hooks.SessionStart, "SessionStart": hooks.SessionStart,
		"sessionEnd": hooks.SessionEnd, "SessionEnd": hooks.SessionEnd,
		"userPromptSubmitted": hooks.UserPromptSubmit, "UserPromptSubmit": hooks.UserPromptSubmit,
		"preToolUse": hooks.PreToolUse, "PreToolUse": hooks.PreToolUse,
		"permissionRequest": hooks.PermissionRequest, "PermissionRequest": hooks.PermissionRequest,
		"postToolUse": hooks.PostToolUse, "PostToolUse": hooks.PostToolUse,
		"postToolUseFailure": hooks.PostToolUseFailure, "PostToolUseFailure": hooks.PostToolUseFailure,
		"agentStop": hooks.Stop, "Stop": hooks.Stop,
		"subagentStart": hooks.SubagentStart, "SubagentStart": hooks.SubagentStart,
		"subagentStop": hooks.SubagentStop, "SubagentStop": hooks.SubagentStop,
		"errorOccurred": hooks.Error, "ErrorOccurred": hooks.Error,
		"preCompact": hooks.PreCompact, "PreCompact": hooks.PreCompact,
		"notification": hooks.Notification, "Notification": hooks.Notification,
	}
})

// Events are Copilot's camelCase event names by canonical event, for install and the README.
var Events = []struct{ Agent, Canonical string }{
	{"sessionStart", hooks.SessionStart}, {"userPromptSubmitted", hooks.UserPromptSubmit},
	{"preToolUse", hooks.PreToolUse}, {"permissionRequest", hooks.PermissionRequest},
	{"postToolUse", hooks.PostToolUse}, {"postToolUseFailure", hooks.PostToolUseFailure},
	{"notification", hooks.Notification}, {"preCompact", hooks.PreCompact},
	{"subagentStart", hooks.SubagentStart}, {"subagentStop", hooks.SubagentStop},
	{"agentStop", hooks.Stop}, {"errorOccurred", hooks.Error}, {"sessionEnd", hooks.SessionEnd},
}

// Event implements agents.Agent.
func (Agent) Event(hostEvent string) (string, bool) {
	ev, ok := events()[hostEvent]
	return ev, ok
}

// DefaultTimeout is Copilot's timeoutSec of a hook entry that sets none.
const DefaultTimeout = 30 * time.Second

// Budget implements agents.Agent: the entry's timeoutSec (--timeout), else 30 s.
func (Agent) Budget(_ string, timeout time.Duration, _ func(string) string) time.Duration {
	return agents.TimeoutOr(timeout, DefaultTimeout)
}

// ProjectDirEnv implements agents.Agent.
func (Agent) ProjectDirEnv() string { return "COPILOT_PROJECT_DIR" }

// claudeNames are Claude Code's names of Copilot's tools, which Copilot's PascalCase matchers
// accept (its hooks reference, "Tool names").
var claudeNames = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"bash": {"Bash"}, "powershell": {"Bash"}, "view": {"Read"}, "create": {"Write"},
		"edit": {"Edit"}, "str_replace_editor": {"Edit"}, "apply_patch": {"Edit"},
		"grep": {"Grep"}, "rg": {"Grep"}, "glob": {"Glob"}, "web_fetch": {"WebFetch"},
		"web_search": {"WebSearch"}, "ask_user": {"AskUserQuestion"}, "update_todo": {"TodoWrite"},
		"task": {"Agent", "Task"},
	}
})

// ToolAliases implements agents.Agent: Claude Code's name of the tool.
func (Agent) ToolAliases(tool string) []string { return claudeNames()[tool] }

// ShellCommand implements agents.Agent: the command of bash and powershell (Bash in the
// PascalCase dialect).
func (Agent) ShellCommand(tool string, input map[string]any) string {
	switch tool {
	case "bash", "powershell", "Bash":
		s, _ := input["command"].(string)
		return s
	}
	return ""
}

// EditedFiles implements agents.Agent: the path of create, edit and str_replace_editor (Write and
// Edit in the PascalCase dialect), and the files of an apply_patch patch, once the call succeeded.
func (Agent) EditedFiles(event, tool string, input map[string]any) []string {
	if event != hooks.PostToolUse {
		return nil
	}
	switch tool {
	case "create", "edit", "str_replace_editor", "Write", "Edit":
		return agents.FilePaths(input, "path", "file_path")
	case "apply_patch":
		for _, k := range []string{"input", "patch", "command"} {
			if s, ok := input[k].(string); ok && agents.HasPatch(s) {
				return agents.PatchFiles(s)
			}
		}
	}
	return nil
}

// CanAsk implements agents.Agent: Copilot CLI asks its user on permissionDecision "ask" (the cloud
// agent reads it as a deny).
func (Agent) CanAsk() bool { return true }

// Decode implements agents.Decoder. Without --event, an input that names its event
// (hook_event_name) is the PascalCase dialect, Claude Code's shape. With --event it is the
// camelCase one, whatever else it carries (a camelCase notification also says
// hook_event_name "Notification"); a permissionRequest also names itself in hookName.
func (Agent) Decode(in *agents.Input, event string) error {
	if _, ok := in.Fields["hook_event_name"]; ok && event == "" {
		agents.CommonShape(in)
		return nil
	}
	in.HostEvent = event
	if in.HostEvent == "" {
		in.HostEvent = agents.Str(in.Fields, "hookName")
	}
	if in.HostEvent == "" {
		return fmt.Errorf(`the input names no event: give it with --event (agent-hooks hook copilot --event preToolUse)`)
	}
	in.Session = agents.Str(in.Fields, "sessionId")
	in.Dir = agents.Str(in.Fields, "cwd")
	in.ToolName = agents.Str(in.Fields, "toolName")
	in.Transcript = agents.Str(in.Fields, "transcriptPath")
	for _, k := range []string{"toolArgs", "toolInput"} {
		switch v := in.Fields[k].(type) {
		case map[string]any:
			in.Args = v
		case string: // GitHub's older documentation: the arguments as a JSON string
			var m map[string]any
			if json.Unmarshal([]byte(v), &m) == nil {
				in.Args = m
			}
		}
		if in.Args != nil {
			break
		}
	}
	return nil
}

// pascal reports whether the agent's event is spelled in the PascalCase dialect.
func pascal(hostEvent string) bool {
	return hostEvent != "" && hostEvent[0] >= 'A' && hostEvent[0] <= 'Z'
}

// output is Copilot's answer to a camelCase hook.
type output struct {
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	Behavior                 string `json:"behavior,omitempty"` // permissionRequest's
	Message                  string `json:"message,omitempty"`
	Decision                 string `json:"decision,omitempty"` // agentStop's, subagentStop's "block"
	Reason                   string `json:"reason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	// ModifiedArgs is the tool input the call runs with instead.
	ModifiedArgs map[string]any `json:"modifiedArgs,omitempty"`
}

// Answer implements agents.Agent: Claude Code's answer in the PascalCase dialect, else Copilot's
// flat one, with only what Copilot reads for the event. Copilot cannot block a session's start,
// and shows hooks' messages nowhere: agent-hooks' warnings go to stderr only.
func (Agent) Answer(v *agents.Verdict) ([]byte, error) {
	if pascal(v.HostEvent) && v.HostEvent != "PermissionRequest" { // Copilot sends that one camelCase
		return claude.Agent{}.Answer(v)
	}
	var o output
	context := v.Joined()
	switch v.Event {
	case hooks.PreToolUse:
		if v.Decision != "" {
			o.PermissionDecision, o.PermissionDecisionReason = v.Decision, v.Reason
			if v.Decision == agents.Deny {
				o.PermissionDecisionReason = agents.NonEmpty(v.Reason)
			}
		}
		if v.UpdatedInput != nil {
			o.ModifiedArgs = v.UpdatedInput
		}
		context = ""
	case hooks.PermissionRequest:
		switch v.Decision {
		case agents.Deny:
			o.Behavior, o.Message = "deny", agents.NonEmpty(v.Reason)
		case agents.Allow:
			o.Behavior = "allow"
		}
		context = ""
	case hooks.Stop, hooks.SubagentStop:
		if v.Decision == agents.Deny {
			o.Decision, o.Reason = "block", agents.NonEmpty(v.Reason)
		}
		context = ""
	case hooks.UserPromptSubmit:
		// Copilot drops the prompt on {"decision": "block"}, and hands the model the context of
		// one it lets through (1.0.102, both checked against the real CLI).
		if v.Decision == agents.Deny {
			o.Decision, o.Reason = "block", agents.NonEmpty(v.Reason)
			context = ""
		}
	case hooks.PostToolUse, hooks.PostToolUseFailure, hooks.SessionStart, hooks.SubagentStart, hooks.Notification:
		if v.Block != "" {
			context = join(v.Block, context)
		}
	default: // sessionEnd, errorOccurred, preCompact: Copilot reads no answer
		context = ""
	}
	o.AdditionalContext = context
	if o.PermissionDecision == "" && o.PermissionDecisionReason == "" && o.Behavior == "" && o.Message == "" &&
		o.Decision == "" && o.Reason == "" && o.AdditionalContext == "" && o.ModifiedArgs == nil {
		return nil, nil
	}
	return agents.Marshal(o)
}

func join(a, b string) string {
	if b == "" {
		return a
	}
	return a + "\n\n" + b
}

// Rewrites implements agents.Rewriter: Copilot CLI runs the call with modifiedArgs (1.0.102,
// checked against the real CLI), and its PascalCase dialect with Claude Code's updatedInput.
func (Agent) Rewrites() bool { return true }
