package copilot

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/configedit"
)

// settings are GitHub Copilot CLI's hook settings (1.0.102). It runs the hooks of every *.json
// file in .github/hooks/ and ~/.copilot/hooks/ (and of the project's .claude/settings.json,
// which it also reads); install writes agent-hooks' own file in either folder,
// agent-hooks.json, with the camelCase events, whose input names no event: the command says it
// (--event).
var settings = sync.OnceValue(func() *hostsettings.Spec {
	return &hostsettings.Spec{
		Name:  "copilot",
		Title: "GitHub Copilot CLI",
		Events: func() []string {
			var out []string
			for _, e := range Events {
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
		Shape:     shape,
		Files:     files,
		InstallFiles: func(env hostsettings.Env) (user, project hostsettings.File) {
			dirs := dirs(env)
			return hostsettings.File{Scope: hostsettings.User, Path: filepath.Join(dirs[0].Path, ownFile)},
				hostsettings.File{Scope: hostsettings.Project, Path: filepath.Join(dirs[1].Path, ownFile)}
		},
		AlsoRunsNote: "Copilot also reads %s, where agent-hooks is installed for %s: Copilot runs agent-hooks twice per event (uninstall one)",
		AlsoRuns:     map[string][]hostsettings.Scope{"claude": {hostsettings.Project, hostsettings.Local}},
		CheckRoot:    check,
		InstalledNotes: []string{
			"Copilot loads a repository's hooks in -p mode only in a folder it trusts (--trust-folder, or COPILOT_ALLOW_ALL=true); its user hooks (--user) always load",
			"Copilot cannot block a session's start (sessionStart): gates on it only record",
		},
		Help: hostsettings.Help{
			Install: `GitHub Copilot CLI: agent-hooks' own hooks file, .github/hooks/agent-hooks.json (--user: ~/.copilot/hooks/agent-hooks.json), with "timeoutSec" on each camelCase event.`,
			Hook:    fmt.Sprintf("GitHub Copilot CLI waits %s by default; its camelCase hooks get an input that names no event: --event gives it (preToolUse, agentStop, …).", DefaultTimeout),
			Example: `# .github/hooks/agent-hooks.json (GitHub Copilot CLI)
{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "agent-hooks hook copilot --event preToolUse --timeout 30", "timeoutSec": 30}]}}`,
		},
		Vars: [][2]string{{"COPILOT_HOME", "GitHub Copilot CLI's home (default ~/.copilot)"}},
	}
})

// Settings implements agents.Agent.
func (Agent) Settings() *hostsettings.Spec { return settings() }

// Title implements agents.Agent.
func (Agent) Title() string { return settings().Title }

// ownFile is agent-hooks' hooks file in a Copilot hooks folder.
const ownFile = "agent-hooks.json"

// dirs are Copilot's hooks folders, user first: $COPILOT_HOME/hooks (~/.copilot/hooks)
// and the repository's .github/hooks.
func dirs(env hostsettings.Env) []hostsettings.File {
	home := env.Var("COPILOT_HOME")
	if home == "" {
		home = filepath.Join(env.Home, ".copilot")
	}
	return []hostsettings.File{
		{Scope: hostsettings.User, Path: filepath.Join(home, "hooks")},
		{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".github", "hooks")},
	}
}

// files are the hooks files of Copilot's folders: agent-hooks.json (install's, whether or not it
// exists) and every other *.json there.
func files(env hostsettings.Env) []hostsettings.File {
	var out []hostsettings.File
	for _, d := range dirs(env) {
		own := filepath.Join(d.Path, ownFile)
		out = append(out, hostsettings.File{Scope: d.Scope, Path: own})
		others, _ := filepath.Glob(filepath.Join(d.Path, "*.json"))
		slices.Sort(others)
		for _, p := range others {
			if p != own {
				out = append(out, hostsettings.File{Scope: d.Scope, Path: p})
			}
		}
	}
	return out
}

// check checks a Copilot hooks file: "version": 1, the events, and each hook.
func check(c *hostsettings.Checker, obj map[string]any) bool {
	if v, ok := obj["version"].(float64); !ok || v != 1 {
		c.Add(hostsettings.FileIgnored, `add "version": 1`, []any{"version"}, `the file does not say "version": 1`)
		return true
	}
	if obj["disableAllHooks"] == true {
		c.Add(hostsettings.NeverRuns, `remove "disableAllHooks"`, []any{"disableAllHooks"}, `"disableAllHooks": true turns off every hook of this file`)
	}
	raw, ok := obj["hooks"]
	if !ok {
		return true
	}
	events, ok := raw.(map[string]any)
	if !ok {
		c.Add(hostsettings.FileIgnored, "", []any{"hooks"}, `"hooks" is not an object of events`)
		return true
	}
	for _, name := range hostsettings.SortedKeys(events) {
		at := []any{"hooks", name}
		c.KnownEvent(name, at)
		list, ok := events[name].([]any)
		if !ok {
			c.Add(hostsettings.FileIgnored, "", at, "hooks.%s is not an array of hooks", name)
			continue
		}
		for i, v := range list {
			checkHook(c, name, append(append([]any(nil), at...), i), v)
		}
	}
	return true
}

// checkHook checks one hook of a Copilot hooks file. Copilot drops a malformed hook alone.
func checkHook(c *hostsettings.Checker, event string, at []any, v any) {
	h, ok := v.(map[string]any)
	if !ok {
		c.Add(hostsettings.NeverRuns, "", at, "a hook is not an object")
		return
	}
	typ, _ := h["type"].(string)
	if typ == "" {
		typ = "command"
	}
	if !slices.Contains(c.Spec().HookTypes, typ) {
		c.Add(hostsettings.NeverRuns, "", append(at, "type"), "unknown hook type %q (want %s)", typ, "command, http or prompt")
		return
	}
	if typ == "http" && (event == "preToolUse" || event == "PreToolUse") {
		c.Add(hostsettings.Misconfigured, "use a command hook", at, "an http preToolUse hook fails open: Copilot runs the tool when it does not answer")
	}
	if typ != "command" {
		return
	}
	for key, want := range map[string]hostsettings.FieldType{"bash": hostsettings.IsString, "powershell": hostsettings.IsString, "command": hostsettings.IsString, "cwd": hostsettings.IsString, "timeoutSec": hostsettings.IsPosNum, "timeout": hostsettings.IsPosNum} {
		if val, ok := h[key]; ok && !want.OK(val) {
			c.Add(hostsettings.NeverRuns, "", append(at, key), "%q is %s, want %s", key, hostsettings.Describe(val), want.Name)
		}
	}
	_, hasBash := h["bash"].(string)
	_, hasCommand := h["command"].(string)
	_, hasExec := h["exec"].(string)
	if !hasBash && !hasCommand && !hasExec {
		if _, ps := h["powershell"]; !ps {
			c.Add(hostsettings.NeverRuns, "", at, `command hook without "bash", "command" or "exec"`)
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
		c.Add(hostsettings.Misconfigured, fmt.Sprintf("timeouts are in seconds: %g?", to/1000), append(at, key),
			"%s %g is %s, milliseconds written where seconds are meant", key, to, hostsettings.Seconds(to))
	}
	cmd, _ := h["bash"].(string)
	if cmd == "" {
		cmd, _ = h["command"].(string)
	}
	if !hasTimeout {
		to = DefaultTimeout.Seconds()
	}
	if _, _, _, ok := hostsettings.OwnCommand(cmd); ok {
		cmdKey := "bash"
		if _, ok := h["bash"]; !ok {
			cmdKey = "command"
		}
		if got := hostsettings.FlagValue(cmd, "--event"); got != event {
			c.Add(hostsettings.NeverRuns, "run agent-hooks install copilot again", append(at, cmdKey),
				"the command names the event %q, not %q: agent-hooks answers another event than Copilot asks", got, event)
		}
		c.Own(event, at, cmdKey, cmd, to, true)
	}
}

// shape is where Copilot's hooks file keeps a hook:
//
//	{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": "…", "timeoutSec": 30}]}}
var shape = configedit.HostShape{Flat: true, CommandKey: "bash", TimeoutKey: "timeoutSec", Empty: "{\n  \"version\": 1\n}\n"}
