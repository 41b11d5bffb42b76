// Package opencode is OpenCode's hook protocol (measured on opencode-ai 1.18.33). OpenCode runs no
// hook commands: it loads plugins, JavaScript or TypeScript modules from the plugin folders of its
// configuration directories (.opencode/plugins/ or .opencode/plugin/ in the project,
// ~/.config/opencode/plugins/ for the user), and calls their functions in process:
// tool.execute.before before a tool runs (a throw refuses the call, and the model receives the
// error's message as the call's result), tool.execute.after after it, chat.message for a
// prompt, experimental.session.compacting before a compaction, event for everything the session
// does (session.created, session.idle when the agent has finished, session.error), dispose when
// OpenCode shuts down.
//
// So `agent-hooks install opencode` writes one plugin of its own, agent-hooks.js (plugin.js),
// which hands each of those to `agent-hooks hook opencode` as a JSON object in Claude Code's shape
// (session_id, cwd, hook_event_name with the canonical event's name, tool_name, tool_input,
// tool_use_id, tool_response, prompt; OpenCode's own name of the moment in opencode_hook), and
// reads one JSON answer back ({"decision", "reason", "context", "warning"}). It refuses (throws)
// a tool call or a prompt when agent-hooks denies it, exits non-zero, outlasts its timeout or
// cannot be run at all: it fails closed.
package opencode

import (
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/hooks"
)

// Agent is OpenCode.
type Agent struct{}

// Name implements agents.Agent.
func (Agent) Name() string { return settings().Name }

// eventList are the events the plugin sends, by their canonical names, in the order a session
// fires them.
var eventList = []string{hooks.SessionStart, hooks.UserPromptSubmit, hooks.PreToolUse, hooks.PostToolUse,
	hooks.PreCompact, hooks.Stop, hooks.Error, hooks.SessionEnd}

// Event implements agents.Agent: the plugin names every event it sends by its canonical name.
func (Agent) Event(hostEvent string) (string, bool) {
	for _, e := range eventList {
		if e == hostEvent {
			return e, true
		}
	}
	return hostEvent, false
}

// DefaultTimeout is how long the plugin waits for agent-hooks when install is given no
// --timeout: OpenCode itself waits for a plugin without end.
const DefaultTimeout = 600 * time.Second

// Budget implements agents.Agent: the plugin's timeout (--timeout, which install writes into the
// plugin), after which the plugin kills agent-hooks and refuses.
func (Agent) Budget(_ string, timeout time.Duration, _ func(string) string) time.Duration {
	return agents.TimeoutOr(timeout, DefaultTimeout)
}

// ProjectDirEnv implements agents.Agent: the plugin always sends cwd (OpenCode's directory).
func (Agent) ProjectDirEnv() string { return "" }

// claudeNames are Claude Code's names of OpenCode's tools, so that "tools" matches the same.
var claudeNames = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"bash": {"Bash"}, "read": {"Read"}, "write": {"Write"}, "edit": {"Edit"}, "multiedit": {"MultiEdit"},
		"apply_patch": {"Write", "Edit"}, "patch": {"Write", "Edit"}, "grep": {"Grep"}, "glob": {"Glob"},
		"list": {"LS"}, "webfetch": {"WebFetch"}, "websearch": {"WebSearch"}, "task": {"Agent", "Task"},
		"todowrite": {"TodoWrite"},
	}
})

// ToolAliases implements agents.Agent.
func (Agent) ToolAliases(tool string) []string { return claudeNames()[tool] }

// ShellCommand implements agents.Agent: bash's command.
func (Agent) ShellCommand(tool string, input map[string]any) string {
	if tool != "bash" {
		return ""
	}
	s, _ := input["command"].(string)
	return s
}

// EditedFiles implements agents.Agent: after a call, the file of write, edit and multiedit, and
// the files of an apply_patch patch.
func (Agent) EditedFiles(event, tool string, input map[string]any) []string {
	if event != hooks.PostToolUse {
		return nil
	}
	switch tool {
	case "write", "edit", "multiedit":
		return agents.FilePaths(input, "filePath")
	case "apply_patch", "patch":
		s, _ := input["patchText"].(string)
		return agents.PatchFiles(s)
	}
	return nil
}

// CanAsk implements agents.Agent: the plugin cannot ask OpenCode's user.
func (Agent) CanAsk() bool { return false }

// answer is what the plugin reads back.
type answer struct {
	// Decision "deny" refuses: the plugin throws Reason (a tool call: the model reads it as the
	// call's result; a prompt: it is dropped).
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Context is appended to a tool's output (PostToolUse) or to the compaction's context
	// (PreCompact), for the model.
	Context string `json:"context,omitempty"`
	// Warning is written on OpenCode's standard error (its log).
	Warning string `json:"warning,omitempty"`
}

// Answer implements agents.Agent: a deny of a tool call or a prompt (an ask is a deny: no one
// can be asked); what the hooks want the model to know after a tool call or before a
// compaction; warnings. Stop cannot be blocked: OpenCode has finished when it says so.
func (Agent) Answer(v *agents.Verdict) ([]byte, error) {
	var a answer
	switch v.Event {
	case hooks.PreToolUse, hooks.UserPromptSubmit:
		if v.Decision == agents.Deny || v.Decision == agents.Ask {
			a.Decision, a.Reason = agents.Deny, agents.NonEmpty(v.Reason)
		}
	case hooks.PostToolUse:
		a.Context = v.Joined()
		if v.Block != "" {
			a.Context = join(v.Block, a.Context)
		}
	case hooks.PreCompact:
		a.Context = v.Joined()
	}
	a.Warning = v.Warning()
	if a == (answer{}) {
		return nil, nil
	}
	return agents.Marshal(a)
}

func join(a, b string) string {
	if b == "" {
		return a
	}
	return a + "\n\n" + b
}

// Refusal implements agents.Refuser: the plugin refuses on any exit code but 0, yet a refusal
// it can read names the reason.
func (Agent) Refusal(reason string) []byte {
	b, err := agents.Marshal(answer{Decision: agents.Deny, Reason: agents.NonEmpty(reason)})
	if err != nil {
		return []byte(`{"decision":"deny","reason":"agent-hooks failed"}`)
	}
	return b
}
