package cursor

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/configedit"
)

// settings are Cursor's hooks.json (from its documentation: cursor.com/docs/hooks):
// ~/.cursor/hooks.json and the project's .cursor/hooks.json. Its hooks are flat command objects
// under camelCase events, with timeouts in seconds, and fail open unless they say "failClosed":
// true. Cursor also runs Claude Code's hooks (its "third-party hooks", on by default).
var settings = sync.OnceValue(func() *hostsettings.Spec {
	return &hostsettings.Spec{
		Name:  "cursor",
		Title: "Cursor",
		// The generic tool events only: the specific ones (beforeShellExecution, afterFileEdit, …)
		// fire for the same calls, so agent-hooks would run twice for them.
		Events: []string{"sessionStart", "beforeSubmitPrompt", "preToolUse", "postToolUse",
			"postToolUseFailure", "subagentStart", "subagentStop", "stop", "preCompact", "sessionEnd"},
		Known: []string{"sessionStart", "sessionEnd", "beforeSubmitPrompt", "preToolUse", "postToolUse",
			"postToolUseFailure", "beforeShellExecution", "afterShellExecution", "beforeMCPExecution",
			"afterMCPExecution", "beforeReadFile", "afterFileEdit", "subagentStart", "subagentStop", "stop",
			"preCompact", "afterAgentResponse", "afterAgentThought", "beforeTabFileRead", "afterTabFileEdit",
			"workspaceOpen"},
		HookTypes:  []string{"command", "prompt"},
		Shape:      shape,
		FailClosed: []string{"preToolUse", "beforeSubmitPrompt", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile"},
		Files: func(env hostsettings.Env) []hostsettings.File {
			return []hostsettings.File{
				{Scope: hostsettings.User, Path: filepath.Join(env.Home, ".cursor", "hooks.json")},
				{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".cursor", "hooks.json")},
			}
		},
		AlsoRunsNote: "%s has agent-hooks for %s, which Cursor also runs (Include Third-Party Configs): agent-hooks runs twice per event; uninstall one, or turn that setting off",
		AlsoRuns:     map[string][]hostsettings.Scope{"claude": {hostsettings.User, hostsettings.Project, hostsettings.Local}},
		FieldTypes: func(string) map[string]hostsettings.FieldType {
			return map[string]hostsettings.FieldType{"command": hostsettings.IsString, "timeout": hostsettings.IsPosNum,
				"matcher": hostsettings.IsString, "failClosed": hostsettings.IsBool, "prompt": hostsettings.IsString}
		},
		CheckRoot: func(c *hostsettings.Checker, root map[string]any) bool {
			if v, ok := root["version"]; !ok || v != float64(shape.Version) {
				c.Add(hostsettings.Misconfigured, `write "version": 1`, []any{"version"}, `no "version": 1, which Cursor's hooks.json starts with`)
			}
			return false
		},
		Help: hostsettings.Help{
			Install: `Cursor: .cursor/hooks.json (--user: ~/.cursor/hooks.json), with "failClosed": true where a failure must block, since Cursor otherwise lets the action through.`,
			Hook:    fmt.Sprintf("Cursor does not document its default timeout: agent-hooks assumes %s.", DefaultTimeout),
			Example: `# .cursor/hooks.json
{"version": 1, "hooks": {"preToolUse": [{"command": "agent-hooks hook cursor --timeout 30", "timeout": 30, "failClosed": true}]}}`,
		},
	}
})

// Settings implements agents.Agent.
func (Agent) Settings() *hostsettings.Spec { return settings() }

// Title implements agents.Agent.
func (Agent) Title() string { return settings().Title }

// shape is where Cursor's hooks.json keeps a hook:
//
//	{"version": 1, "hooks": {"<event>": [{"command": "…", "timeout": 30, "failClosed": true}]}}
var shape = configedit.HostShape{Flat: true, Untyped: true, CommandKey: "command", TimeoutKey: "timeout", Empty: "{}\n", Version: 1}
