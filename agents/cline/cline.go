// Package cline is Cline's hook protocol (measured on the cline CLI 3.0.65, whose SDK runtime the
// VS Code extension shares): the events it fires, how it names its tools, how long it waits, and
// the JSON it accepts in answer.
//
// Cline has no hook settings: it runs every executable named after an event (PreToolUse,
// TaskStart, …) in .clinerules/hooks/, .cline/hooks/, ~/.cline/hooks/ and
// ~/Documents/Cline/Hooks/, with one JSON object on stdin that names the event in hookName
// (tool_call, tool_result, agent_start, …; the legacy extension used the file names), the task
// in taskId and the workspace in workspaceRoots.
//
// Cline ignores exit codes: a hook that crashes, times out (120 s for tool hooks) or prints
// anything but JSON lets the tool run. The only refusal is {"cancel": true, "errorMessage": …} on
// stdout, which ends the whole task (the model is not told why, and cannot try another way).
// So agent-hooks answers every refusal, including its own failures, with that document.
package cline

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/hooks"
)

// Host is Cline.
type Agent struct{}

// Name implements agents.Agent.
func (Agent) Name() string { return "cline" }

// FailureEvent is the name agent-hooks gives a tool_result whose tool failed: Cline fires one
// event for both outcomes, agent-hooks two.
const FailureEvent = "PostToolUseFailure"

// events are Cline's events with a canonical one: the SDK's hookName, the hook file's name (the
// legacy extension's hookName), and FailureEvent.
var events = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"agent_start": hooks.SessionStart, "TaskStart": hooks.SessionStart,
		"agent_resume": hooks.SessionStart, "TaskResume": hooks.SessionStart,
		"prompt_submit": hooks.UserPromptSubmit, "UserPromptSubmit": hooks.UserPromptSubmit,
		"tool_call": hooks.PreToolUse, "PreToolUse": hooks.PreToolUse,
		"tool_result": hooks.PostToolUse, "PostToolUse": hooks.PostToolUse,
		FailureEvent: hooks.PostToolUseFailure,
		"agent_end":  hooks.Stop, "TaskComplete": hooks.Stop,
		"agent_error": hooks.Error, "TaskError": hooks.Error,
		"agent_abort": hooks.SessionEnd, "TaskCancel": hooks.SessionEnd,
		"session_shutdown": hooks.SessionEnd, "SessionShutdown": hooks.SessionEnd,
		"PreCompact": hooks.PreCompact,
	}
})

// Files are Cline's hook file names by canonical event, in the order a task fires them, for
// install and the README. TaskCancel is left out: SessionShutdown follows it.
var Files = []struct{ Name, Canonical string }{
	{"TaskStart", hooks.SessionStart}, {"TaskResume", hooks.SessionStart},
	{"UserPromptSubmit", hooks.UserPromptSubmit}, {"PreToolUse", hooks.PreToolUse},
	{"PostToolUse", hooks.PostToolUse}, {"TaskComplete", hooks.Stop}, {"TaskError", hooks.Error},
	{"SessionShutdown", hooks.SessionEnd},
}

// Event implements agents.Agent.
func (Agent) Event(hostEvent string) (string, bool) {
	ev, ok := events()[hostEvent]
	return ev, ok
}

// ToolTimeout is how long Cline waits for a PreToolUse or PostToolUse hook before it kills it
// and goes on; it waits for no other hook (they run detached).
const ToolTimeout = 120 * time.Second

// detachedTimeout bounds the hooks of events Cline does not wait for.
const detachedTimeout = 600 * time.Second

// Budget implements agents.Agent: Cline's fixed 120 s for tool hooks, which no setting changes
// (--timeout may shorten it); --timeout, else 600 s, for the others.
func (Agent) Budget(hostEvent string, timeout time.Duration, _ func(string) string) time.Duration {
	switch events()[hostEvent] {
	case hooks.PreToolUse, hooks.PostToolUse, hooks.PostToolUseFailure, "":
		if timeout > 0 && timeout < ToolTimeout {
			return timeout
		}
		return ToolTimeout
	}
	if timeout > 0 {
		return timeout
	}
	return detachedTimeout
}

// ProjectDirEnv implements agents.Agent: Cline names the workspace only in its input.
func (Agent) ProjectDirEnv() string { return "" }

// claudeNames are Claude Code's names of Cline's tools (the SDK's, then the legacy extension's).
var claudeNames = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"run_commands": {"Bash"}, "execute_command": {"Bash"},
		"read_files": {"Read"}, "read_file": {"Read"},
		"editor": {"Write", "Edit"}, "apply_patch": {"Write", "Edit"},
		"write_to_file": {"Write"}, "replace_in_file": {"Edit"},
		"search_codebase": {"Grep"}, "search_files": {"Grep"}, "list_files": {"Glob"},
		"fetch_web_content": {"WebFetch"}, "web_fetch": {"WebFetch"},
		"spawn_agent": {"Agent", "Task"}, "new_task": {"Agent", "Task"},
	}
})

// ToolAliases implements agents.Agent: Claude Code's name of the tool.
func (Agent) ToolAliases(tool string) []string { return claudeNames()[tool] }

// ShellCommand implements agents.Agent: run_commands' commands, one a line (a call runs several),
// or execute_command's command (the legacy extension).
func (Agent) ShellCommand(tool string, input map[string]any) string {
	switch tool {
	case "run_commands":
		return strings.Join(commands(input["commands"]), "\n")
	case "execute_command":
		s, _ := input["command"].(string)
		return s
	}
	return ""
}

// commands reads run_commands' commands: a list of strings (or of objects with a command), or
// the legacy string form, a JSON list in a string.
func commands(v any) []string {
	switch c := v.(type) {
	case []any:
		var out []string
		for _, x := range c {
			switch x := x.(type) {
			case string:
				out = append(out, x)
			case map[string]any:
				if s, ok := x["command"].(string); ok {
					out = append(out, s)
				}
			}
		}
		return out
	case string:
		var list []any
		if json.Unmarshal([]byte(c), &list) == nil {
			return commands(list)
		}
		return []string{c}
	}
	return nil
}

// EditedFiles implements agents.Agent: after a call succeeded, the files of an apply_patch patch,
// and the path of editor, write_to_file and replace_in_file.
func (Agent) EditedFiles(event, tool string, input map[string]any) []string {
	if event != hooks.PostToolUse {
		return nil
	}
	switch tool {
	case "apply_patch":
		s, _ := input["input"].(string)
		return agents.PatchFiles(s)
	case "editor", "write_to_file", "replace_in_file":
		return agents.FilePaths(input, "path", "file_path")
	}
	return nil
}

// CanAsk implements agents.Agent: a Cline hook cannot ask the user.
func (Agent) CanAsk() bool { return false }

// Decode implements agents.Decoder: the event from hookName (else the one given on the command
// line: the hook file's name), with source startup or resume for a task's start, the session
// from taskId, the workspace from workspaceRoots, the
// tool call from tool_call or tool_result (the legacy extension's preToolUse or postToolUse).
func (Agent) Decode(in *agents.Input, event string) error {
	f := in.Fields
	in.HostEvent = agents.Str(f, "hookName")
	if _, known := events()[in.HostEvent]; !known && event != "" {
		in.HostEvent = event
	}
	if in.HostEvent == "" {
		return errors.New(`the input names no event ("hookName"): give it with --event (agent-hooks hook cline --event PreToolUse)`)
	}
	// Claude's SessionStart says how the session began in source, which matchers (and Cline's
	// own TaskResume hook files, read natively) go by; Cline says it by its event.
	if _, set := f["source"]; !set {
		switch in.HostEvent {
		case "agent_start", "TaskStart":
			f["source"] = "startup"
		case "agent_resume", "TaskResume":
			f["source"] = "resume"
		}
	}
	in.Session = agents.Str(f, "taskId")
	if roots, ok := f["workspaceRoots"].([]any); ok && len(roots) > 0 {
		in.Dir, _ = roots[0].(string)
	}
	if info, ok := f["workspaceInfo"].(map[string]any); ok && in.Dir == "" {
		in.Dir = agents.Str(info, "rootPath")
	}
	failed := false
	for _, k := range []string{"tool_call", "tool_result"} {
		if call, ok := f[k].(map[string]any); ok {
			in.ToolName, in.UseID = agents.Str(call, "name"), agents.Str(call, "id")
			in.Args, _ = call["input"].(map[string]any)
			if e, ok := call["error"]; ok && e != nil && e != "" {
				failed = true
			}
		}
	}
	for _, k := range []string{"preToolUse", "postToolUse"} {
		if legacy, ok := f[k].(map[string]any); ok {
			if in.ToolName == "" {
				in.ToolName = agents.Str(legacy, "toolName")
				in.Args, _ = legacy["parameters"].(map[string]any)
			}
			if ok, isBool := legacy["success"].(bool); isBool && !ok {
				failed = true
			}
		}
	}
	if failed && events()[in.HostEvent] == hooks.PostToolUse {
		in.HostEvent = FailureEvent
	}
	return nil
}

// output is Cline's answer.
type output struct {
	Cancel              bool   `json:"cancel,omitempty"`
	ContextModification string `json:"contextModification,omitempty"`
	ErrorMessage        string `json:"errorMessage,omitempty"`
}

// Answer implements agents.Agent: a refused tool call cancels the task with the reason; what the
// hooks want the model to know is contextModification of a tool hook (Cline reads no other
// hook's answer).
func (Agent) Answer(v *agents.Verdict) ([]byte, error) {
	var o output
	switch v.Event {
	case hooks.PreToolUse:
		if v.Decision == agents.Deny || v.Decision == agents.Ask {
			o.Cancel, o.ErrorMessage = true, agents.NonEmpty(v.Reason)
		}
		o.ContextModification = v.Joined()
	case hooks.PostToolUse, hooks.PostToolUseFailure:
		o.ContextModification = v.Joined()
		if v.Block != "" {
			o.ContextModification = strings.TrimSpace(v.Block + "\n\n" + o.ContextModification)
		}
	}
	if o == (output{}) {
		return nil, nil
	}
	return agents.Marshal(o)
}

// Refusal implements agents.Refuser: Cline proceeds on every exit code, so even a failure to
// answer is written as a cancel. Cline ignores the answers of the events it does not wait for.
func (Agent) Refusal(reason string) []byte {
	b, err := agents.Marshal(output{Cancel: true, ErrorMessage: agents.NonEmpty(reason)})
	if err != nil {
		return []byte(`{"cancel":true,"errorMessage":"agent-hooks failed"}`)
	}
	return b
}
