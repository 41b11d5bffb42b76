package cline

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
)

// settings are Cline's hooks (the Cline CLI 3.0.65 and its VS Code extension). Cline has no hook
// settings: it runs every executable named after an event in its hooks folders
// (.clinerules/hooks/, .cline/hooks/, ~/.cline/hooks/, ~/Documents/Cline/Hooks/), whatever their
// exit code. install writes one small script per event, `exec agent-hooks hook cline --event
// <Name>`.
var settings = sync.OnceValue(func() *hostsettings.Spec {
	return &hostsettings.Spec{
		Name:  "cline",
		Title: "Cline",
		Events: func() []string {
			var out []string
			for _, f := range Files {
				out = append(out, f.Name)
			}
			return out
		}(),
		Known: []string{"TaskStart", "TaskResume", "TaskCancel", "TaskComplete", "TaskError", "PreToolUse",
			"PostToolUse", "UserPromptSubmit", "PreCompact", "SessionShutdown"},
		Scripts:          true,
		ScriptExtensions: []string{"", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".ps1"},
		ScriptNeverRuns:  map[string]string{"PreCompact": "Cline's CLI and SDK do not run PreCompact hook files (only the legacy extension did)"},
		Files:            dirs,
		InstalledNotes: []string{
			"Cline refuses a tool only by ending the task: a PreToolUse gate that blocks stops the agent, and the model is not told why",
			"Cline does not wait for TaskStart, TaskComplete, TaskError, SessionShutdown or UserPromptSubmit hooks: gates on those events only record",
		},
		Help: hostsettings.Help{
			Install: "Cline: one script per event in .clinerules/hooks/ (--user: ~/.cline/hooks/), each running \"agent-hooks hook cline --event <Name>\"; Cline's own timeout applies, not --timeout.",
			Hook:    fmt.Sprintf("Cline waits a fixed %s for tool hooks, and reads no exit code: every refusal, and every failure to decide, is {\"cancel\": true, \"errorMessage\": …} on stdout, which ends the Cline task.", ToolTimeout),
			Example: `# .clinerules/hooks/PreToolUse (Cline), executable
#!/bin/sh
exec agent-hooks hook cline --event PreToolUse`,
		},
		Vars: [][2]string{{"CLINE_DIR", "Cline's global folder (default ~/.cline)"}},
	}
})

// Settings implements agents.Agent.
func (Agent) Settings() *hostsettings.Spec { return settings() }

// Title implements agents.Agent.
func (Agent) Title() string { return settings().Title }

// dirs are Cline's hooks folders, user first: $CLINE_DIR/hooks (~/.cline/hooks),
// ~/Documents/Cline/Hooks, then the project's .clinerules/hooks (where install writes) and
// .cline/hooks.
func dirs(env hostsettings.Env) []hostsettings.File {
	home := env.Var("CLINE_DIR")
	if home == "" {
		home = filepath.Join(env.Home, ".cline")
	}
	return []hostsettings.File{
		{Scope: hostsettings.User, Path: filepath.Join(home, "hooks")},
		{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".clinerules", "hooks")},
		{Scope: hostsettings.User, Path: filepath.Join(env.Home, "Documents", "Cline", "Hooks")},
		{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".cline", "hooks")},
	}
}
