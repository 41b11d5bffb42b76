// Package gemini is Gemini CLI's hook protocol (measured on @google/gemini-cli 0.61.0): the
// events it fires and what they map to, how long it waits (its timeouts are milliseconds, 60 s by
// default), how it names its tools, and the JSON it accepts in answer.
//
// Gemini CLI fails open on everything but an explicit refusal: a hook that exits 1, crashes,
// times out, prints text that is not JSON, or exits 2 without a word lets the tool run. So every
// answer here is exit 0 and exactly one JSON object, a refusal being {"decision": "deny",
// "reason": …} with a reason that is never empty (Gemini gives it to the model as "Tool execution
// blocked: <reason>"). Gemini reads the first of stdout and stderr that is not empty, so stdout
// is never left empty when there is something to say.
package gemini

import (
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/hooks"
)

// Agent is Gemini CLI.
type Agent struct{}

// Name implements agents.Agent.
func (Agent) Name() string { return settings().Name }

// eventList are Gemini CLI's events and their canonical events, in the order install registers
// them. BeforeModel, AfterModel and BeforeToolSelection have none: they fire under their own
// names for hooks of a declared custom event (AfterModel fires on every chunk of every answer).
// An AfterTool whose tool_response carries an error is PostToolUseFailure (Gemini has no event of
// its own for it).
var eventList = [][2]string{
	{"SessionStart", hooks.SessionStart}, {"BeforeAgent", hooks.UserPromptSubmit}, {"BeforeTool", hooks.PreToolUse},
	{"AfterTool", hooks.PostToolUse}, {"AfterAgent", hooks.Stop}, {"PreCompress", hooks.PreCompact},
	{"Notification", hooks.Notification}, {"SessionEnd", hooks.SessionEnd},
}

// Events maps Gemini CLI's events onto the canonical events.
var Events = func() map[string]string {
	m := map[string]string{}
	for _, e := range eventList {
		m[e[0]] = e[1]
	}
	return m
}()

// Event implements agents.Agent.
func (Agent) Event(hostEvent string) (string, bool) {
	e, ok := Events[hostEvent]
	return e, ok
}

// DefaultTimeout is Gemini CLI's timeout of a hook that sets none (DEFAULT_HOOK_TIMEOUT).
const DefaultTimeout = 60 * time.Second

// Budget implements agents.Agent: the hook's timeout (Gemini's "timeout" is milliseconds;
// install gives agent-hooks the same in seconds with --timeout), else 60 s.
func (Agent) Budget(_ string, timeout time.Duration, _ func(string) string) time.Duration {
	return agents.TimeoutOr(timeout, DefaultTimeout)
}

// ProjectDirEnv implements agents.Agent.
func (Agent) ProjectDirEnv() string { return "GEMINI_PROJECT_DIR" }

// Shell is Gemini CLI's shell tool.
const Shell = "run_shell_command"

// claudeNames are Claude Code's names of Gemini's tools, which a "tools" filter written for
// Claude (Bash, Write|Edit) then matches too.
// Its keys are every tool of Gemini CLI's.
var claudeNames = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		Shell: {"Bash"}, "write_file": {"Write"}, "replace": {"Edit"}, "read_file": {"Read"},
		"read_many_files": {"Read"}, "grep_search": {"Grep"}, "glob": {"Glob"}, "list_directory": {"LS"},
		"web_fetch": {"WebFetch"}, "google_web_search": {"WebSearch"}, "write_todos": {"TodoWrite"},
		"save_memory": nil,
	}
})

// ToolAliases implements agents.Agent.
func (Agent) ToolAliases(tool string) []string { return claudeNames()[tool] }

// ShellCommand implements agents.Agent: run_shell_command's command.
func (Agent) ShellCommand(tool string, input map[string]any) string {
	if tool != Shell {
		return ""
	}
	s, _ := input["command"].(string)
	return s
}

// EditedFiles implements agents.Agent: the file of write_file and replace, once the call
// succeeded.
func (Agent) EditedFiles(event, tool string, input map[string]any) []string {
	if event != hooks.PostToolUse || (tool != "write_file" && tool != "replace") {
		return nil
	}
	return agents.FilePaths(input, "file_path")
}

// Decode implements agents.Decoder: Claude Code's keys, and PostToolUseFailure for the
// AfterTool of a call that failed.
func (Agent) Decode(in *agents.Input, _ string) error {
	agents.CommonShape(in)
	if in.HostEvent == "AfterTool" {
		if resp, ok := in.Fields["tool_response"].(map[string]any); ok && resp["error"] != nil && resp["error"] != "" {
			in.Event = hooks.PostToolUseFailure
		}
	}
	return nil
}

// CanAsk implements agents.Agent. Gemini has a decision "ask", but a headless or --yolo run
// approves what it would ask about, so an ask is a refusal here.
func (Agent) CanAsk() bool { return false }

// Answer implements agents.Agent.
func (Agent) Answer(v *agents.Verdict) ([]byte, error) {
	var o agents.Output
	context := v.Joined()
	deny := func(reason string) { o.Decision, o.Reason = "deny", agents.NonEmpty(reason) }
	switch v.Event {
	case hooks.PreToolUse:
		switch v.Decision {
		case agents.Deny, agents.Ask:
			deny(v.Reason)
		case agents.Allow:
			o.Decision, o.Reason = "allow", v.Reason
		}
		if v.UpdatedInput != nil && v.Decision != agents.Deny && v.Decision != agents.Ask {
			o.Specific(v.HostEvent).ToolInput = v.UpdatedInput
		}
		context = "" // BeforeTool has no context for the model; a refusal's reason holds it
	case hooks.UserPromptSubmit, hooks.Stop:
		// BeforeAgent: the prompt is dropped. AfterAgent: the agent retries, the reason its
		// next prompt.
		if v.Decision == agents.Deny {
			deny(v.Reason)
		}
		if v.Event == hooks.Stop {
			context = ""
		}
	case hooks.PostToolUse, hooks.PostToolUseFailure:
		if v.Block != "" {
			deny(v.Block) // the tool's result is replaced by the reason
		}
	case hooks.SessionStart:
		if v.Decision == agents.Deny {
			o.StopSession(v.Reason)
		}
	default: // PreCompress, Notification, SessionEnd and events without a canonical one
		context = ""
	}
	if context != "" {
		o.Specific(v.HostEvent).AdditionalContext = context
	}
	o.SystemMessage = v.Warning()
	return o.Encode()
}

// PlainContext implements agents.PlainContexter: Gemini CLI ignores what a BeforeAgent hook only
// prints (0.61.0, checked against the real CLI); a SessionStart hook's reaches the model.
func (Agent) PlainContext(event string) bool { return event == hooks.SessionStart }

// Rewrites implements agents.Rewriter: Gemini CLI runs the call with hookSpecificOutput's
// tool_input (0.61.0, checked against the real CLI).
func (Agent) Rewrites() bool { return true }
