package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/autoagent/agent-hooks/agents/hostfmt"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/configedit"
	"github.com/autoagent/agent-hooks/hooks"
)

// settings are Claude Code's hook settings (2.1.197: the events of its settings schema):
// ~/.claude/settings.json ($CLAUDE_CONFIG_DIR), .claude/settings.json and
// .claude/settings.local.json, hooks in matcher groups, timeouts in seconds.
var settings = sync.OnceValue(func() *hostsettings.Spec {
	s := &hostsettings.Spec{
		Name:   "claude",
		Title:  "Claude Code",
		Events: eventList,
		Known: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
			"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure",
			"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "PermissionRequest", "PermissionDenied",
			"Setup", "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult",
			"ConfigChange", "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged",
			"MessageDisplay"},
		MaxTimeout:   map[string]int{"SessionEnd": int(sessionEndCap.Seconds())},
		HookTypes:    []string{"command", "prompt", "agent", "http", "mcp_tool"},
		Files:        files,
		TypeRequired: hostsettings.FileIgnored, // Claude drops a settings file whose hooks fail its schema
		CheckRoot: func(c *hostsettings.Checker, root map[string]any) bool {
			if root["disableAllHooks"] == true {
				c.Add(hostsettings.NeverRuns, `remove "disableAllHooks"`, []any{"disableAllHooks"}, `"disableAllHooks": true turns off every hook of every settings file`)
			}
			return false
		},
		Help: hostsettings.Help{
			Install: "Claude Code: .claude/settings.json (--user: ~/.claude/settings.json); it stops SessionEnd hooks after 60 s whatever --timeout says.",
			Hook: fmt.Sprintf("Claude Code waits %s for a hook by default, %s on UserPromptSubmit, and gives SessionEnd's hooks %s (at most %s, or $CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS).",
				defaultTimeout, userPromptSubmitTimeout, sessionEndTimeout, sessionEndCap),
			Example: `# .claude/settings.json
{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "agent-hooks hook claude --timeout 600", "timeout": 600}]}]}}`,
		},
		Vars: [][2]string{{"CLAUDE_CONFIG_DIR", "Claude Code's user settings folder (default ~/.claude)"}, {"CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS", "Claude Code's SessionEnd budget, as Claude Code reads it"}},
	}
	s.DoctorChecks = doctorChecks
	return s
})

// doctorChecks are settings' DoctorChecks, set by init: they read settings, which the Spec
// cannot refer to while it is built.
var doctorChecks func(context.Context, hostsettings.Env, hostsettings.DoctorOptions, *hostsettings.Report) error

func init() {
	doctorChecks = func(_ context.Context, env hostsettings.Env, _ hostsettings.DoctorOptions, rep *hostsettings.Report) error {
		if env.GOOS != "" {
			rep.Findings = append(rep.Findings, managed(filepath.Join(env.SystemRoot, managedDir(env.GOOS)))...)
		}
		return nil
	}
}

// Settings implements agents.Agent.
func (Agent) Settings() *hostsettings.Spec { return settings() }

// Title implements agents.Agent.
func (Agent) Title() string { return settings().Title }

// UserDir is Claude Code's user folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func UserDir(env hostsettings.Env) string {
	if d := env.Var("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(env.Home, ".claude")
}

// files are Claude Code's settings files, the user's first.
func files(env hostsettings.Env) []hostsettings.File {
	return []hostsettings.File{
		{Scope: hostsettings.User, Path: filepath.Join(UserDir(env), "settings.json")},
		{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".claude", "settings.json")},
		{Scope: hostsettings.Local, Path: filepath.Join(env.Workspace, ".claude", "settings.local.json")},
	}
}

// managedDir is where Claude Code reads managed settings on goos.
func managedDir(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

// managed reports the managed-settings switches that keep every hook of the user's and the
// project's files from running: disableAllHooks, allowManagedHooksOnly.
func managed(dir string) []hostsettings.Finding {
	paths := []string{filepath.Join(dir, "managed-settings.json")}
	dropIns, _ := filepath.Glob(filepath.Join(dir, "managed-settings.d", "*.json"))
	var out []hostsettings.Finding
	for _, path := range append(paths, dropIns...) {
		src, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var s struct {
			DisableAllHooks       bool `json:"disableAllHooks"`
			AllowManagedHooksOnly bool `json:"allowManagedHooksOnly"`
		}
		if json.Unmarshal(src, &s) != nil {
			continue
		}
		add := func(key, problem string) {
			f := settings().NewFinding(path, problem, hostsettings.NeverRuns, "managed settings are the administrator's: ask them")
			f.Line, f.Col, _ = configedit.Position(src, key)
			out = append(out, f)
		}
		if s.DisableAllHooks {
			add("disableAllHooks", `the managed settings say "disableAllHooks": true: no hook of any settings file runs`)
		}
		if s.AllowManagedHooksOnly {
			add("allowManagedHooksOnly", `the managed settings say "allowManagedHooksOnly": true: the user's and the project's hooks never run`)
		}
	}
	return out
}

// Format implements agents.Agent: Claude Code's settings files as a format (format "claude"):
// its hooks run as Claude Code runs them, their JSON read whatever their exit code.
func (Agent) Format() hooks.Format {
	return hostfmt.New(hostfmt.Spec{Settings: settings(), ProjectDirEnv: Agent{}.ProjectDirEnv(), AnyExitJSON: true})
}
