package hostsettings

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/autoagent/agent-hooks/agents/copilot"
	"github.com/autoagent/agent-hooks/configedit"
	"github.com/autoagent/agent-hooks/hooks"
)

// Copilot is GitHub Copilot CLI (1.0.102). It runs the hooks of every *.json file in
// .github/hooks/ and ~/.copilot/hooks/ (and of .claude/settings.json, which it also reads);
// install writes agent-hooks' own file in either folder, agent-hooks.json, with the camelCase
// events, whose input names no event: the command says it (--event).
var Copilot = &Host{
	Name:  "copilot",
	Title: "GitHub Copilot CLI",
	Events: func() []string {
		var out []string
		for _, e := range copilot.Events {
			out = append(out, e.Agent)
		}
		return out
	}(),
	Known: []string{"sessionStart", "sessionEnd", "userPromptSubmitted", "userPromptTransformed", "preToolUse",
		"permissionRequest", "postToolUse", "postToolUseFailure", "agentStop", "subagentStart", "subagentStop",
		"errorOccurred", "preCompact", "notification",
		"SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
		"PostToolUseFailure", "Stop", "SubagentStart", "SubagentStop", "ErrorOccurred", "PreCompact", "Notification"},
	HookTypes: []string{"command", "http", "prompt"},
	EventFlag: true,
	shape:     configedit.CopilotShape,
}

// copilotFile is agent-hooks' hooks file in a Copilot hooks folder.
const copilotFile = "agent-hooks.json"

// copilotDirs are Copilot's hooks folders, user first: $COPILOT_HOME/hooks (~/.copilot/hooks)
// and the repository's .github/hooks.
func copilotDirs(env Env) []File {
	home := env.getenv("COPILOT_HOME")
	if home == "" {
		home = filepath.Join(env.Home, ".copilot")
	}
	return []File{
		{User, filepath.Join(home, "hooks")},
		{Project, filepath.Join(env.Workspace, ".github", "hooks")},
	}
}

// copilotFiles are the hooks files of Copilot's folders: agent-hooks.json (install's, whether
// or not it exists) and every other *.json there.
func copilotFiles(env Env) []File {
	var out []File
	for _, d := range copilotDirs(env) {
		own := filepath.Join(d.Path, copilotFile)
		out = append(out, File{d.Scope, own})
		others, _ := filepath.Glob(filepath.Join(d.Path, "*.json"))
		slices.Sort(others)
		for _, p := range others {
			if p != own {
				out = append(out, File{d.Scope, p})
			}
		}
	}
	return out
}

// checkCopilot checks a Copilot hooks file: "version": 1, the events, and each hook.
func (c *checker) checkCopilot(obj map[string]any) {
	if v, ok := obj["version"].(float64); !ok || v != 1 {
		c.add(FileIgnored, `add "version": 1`, []any{"version"}, `the file does not say "version": 1`)
		return
	}
	if obj["disableAllHooks"] == true {
		c.add(NeverRuns, `remove "disableAllHooks"`, []any{"disableAllHooks"}, `"disableAllHooks": true turns off every hook of this file`)
	}
	raw, ok := obj["hooks"]
	if !ok {
		return
	}
	events, ok := raw.(map[string]any)
	if !ok {
		c.add(FileIgnored, "", []any{"hooks"}, `"hooks" is not an object of events`)
		return
	}
	for _, name := range sortedKeys(events) {
		at := []any{"hooks", name}
		c.knownEvent(name, at)
		list, ok := events[name].([]any)
		if !ok {
			c.add(FileIgnored, "", at, "hooks.%s is not an array of hooks", name)
			continue
		}
		for i, v := range list {
			c.copilotHook(name, append(append([]any(nil), at...), i), v)
		}
	}
}

// copilotHook checks one hook of a Copilot hooks file. Copilot drops a malformed hook alone.
func (c *checker) copilotHook(event string, at []any, v any) {
	h, ok := v.(map[string]any)
	if !ok {
		c.add(NeverRuns, "", at, "a hook is not an object")
		return
	}
	typ, _ := h["type"].(string)
	if typ == "" {
		typ = "command"
	}
	if !slices.Contains(c.host.HookTypes, typ) {
		c.add(NeverRuns, "", append(at, "type"), "unknown hook type %q (want %s)", typ, "command, http or prompt")
		return
	}
	if typ == "http" && (event == "preToolUse" || event == "PreToolUse") {
		c.add(Misconfigured, "use a command hook", at, "an http preToolUse hook fails open: Copilot runs the tool when it does not answer")
	}
	if event == "userPromptSubmitted" || event == "UserPromptSubmit" {
		if cmd, _ := h["bash"].(string); AgentHooksCommand(cmd) {
			return // install puts agent-hooks there for the record, not as a gate
		}
	}
	if typ != "command" {
		return
	}
	for key, want := range map[string]fieldType{"bash": isString, "powershell": isString, "command": isString, "cwd": isString, "timeoutSec": isPosNum, "timeout": isPosNum} {
		if val, ok := h[key]; ok && !want.ok(val) {
			c.add(NeverRuns, "", append(at, key), "%q is %s, want %s", key, describe(val), want.name)
		}
	}
	_, hasBash := h["bash"].(string)
	_, hasCommand := h["command"].(string)
	_, hasExec := h["exec"].(string)
	if !hasBash && !hasCommand && !hasExec {
		if _, ps := h["powershell"]; !ps {
			c.add(NeverRuns, "", at, `command hook without "bash", "command" or "exec"`)
		}
		return
	}
	key := "timeoutSec"
	to, hasTimeout := h[key].(float64)
	if !hasTimeout {
		key = "timeout"
		to, hasTimeout = h[key].(float64)
	}
	if hasTimeout && to >= 1000 {
		c.add(Misconfigured, fmt.Sprintf("timeouts are in seconds: %g?", to/1000), append(at, key),
			"%s %g is %s, milliseconds written where seconds are meant", key, to, seconds(to))
	}
	cmd, _ := h["bash"].(string)
	if cmd == "" {
		cmd, _ = h["command"].(string)
	}
	if !hasTimeout {
		to = copilot.DefaultTimeout.Seconds()
	}
	if _, _, _, ok := ownCommand(cmd); ok {
		cmdKey := "bash"
		if _, ok := h["bash"]; !ok {
			cmdKey = "command"
		}
		if got := flagValue(cmd, "--event"); got != event {
			c.add(NeverRuns, "run agent-hooks install copilot again", append(at, cmdKey),
				"the command names the event %q, not %q: agent-hooks answers another event than Copilot asks", got, event)
		}
		c.own(event, at, cmdKey, cmd, to, true)
	}
}

// knownEvent reports an event name the host does not know.
func (c *checker) knownEvent(name string, at []any) {
	if slices.Contains(c.host.Known, name) {
		return
	}
	fix := ""
	if s := hooks.Suggest(name, c.host.Known); s != "" {
		fix = fmt.Sprintf("did you mean %q?", s)
	} else if _, err := hooks.ResolveEvent(name, nil); err == nil {
		fix = "an agent-hooks event goes in .autoagent/config.json, not in the host's settings"
	}
	c.add(NeverRuns, fix, at, "unknown %s event %q", c.host.Title, name)
}
