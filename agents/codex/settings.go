package codex

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/autoagent/agent-hooks/agents/hostfmt"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/hooks"
)

// settings are Codex's hook settings (0.169.0): $CODEX_HOME/hooks.json (~/.codex) and the
// project's .codex/hooks.json, in Claude Code's shape; a project's hooks run only in a trusted
// project, and each hook only once trusted (see trust.go).
var settings = sync.OnceValue(func() *hostsettings.Spec {
	s := &hostsettings.Spec{
		Name:   "codex",
		Title:  "Codex",
		Events: eventList,
		Known: []string{"PreModelRequest", "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact",
			"PostCompact", "SessionStart", "SessionEnd", "SubagentStart", "SubagentStop", "Interrupt",
			"UserPromptSubmit", "Stop"},
		MaxTimeout:   map[string]int{"SessionEnd": 3},
		HookTypes:    []string{"command"},
		Files:        files,
		EmptyIgnored: true,
		GroupEffect:  hostsettings.NeverRuns, // Codex reads the entry as a group with no hooks
		SkippedTypes: []string{"prompt", "agent"},
		FieldTypes: func(string) map[string]hostsettings.FieldType {
			return map[string]hostsettings.FieldType{"command": hostsettings.IsString, "timeout": hostsettings.IsSeconds,
				"async": hostsettings.IsBool, "statusMessage": hostsettings.IsString}
		},
		Help: hostsettings.Help{
			Install: "Codex: .codex/hooks.json (--user: ~/.codex/hooks.json). Codex runs a project's hooks only in a trusted project, and any hook only once it is trusted: with --trust, install asks codex (--codex, else codex on PATH) to record both in ~/.codex/config.toml; without it, install says what is missing.",
			Hook:    fmt.Sprintf("Codex waits %s for a hook by default.", defaultTimeout),
			Example: `# .codex/hooks.json
{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agent-hooks hook codex --timeout 600", "timeout": 600}]}]}}`,
		},
		Vars: [][2]string{{"CODEX_HOME", "Codex's home (default ~/.codex)"}},
	}
	s.DoctorChecks = doctorChecks
	return s
})

// doctorChecks are settings' DoctorChecks, set by init: they read settings, which the Spec
// cannot refer to while it is built.
var doctorChecks func(context.Context, hostsettings.Env, hostsettings.DoctorOptions, *hostsettings.Report) error

func init() {
	doctorChecks = func(ctx context.Context, env hostsettings.Env, opt hostsettings.DoctorOptions, rep *hostsettings.Report) error {
		return doctorTrust(ctx, env, opt, rep)
	}
}

// Settings implements agents.Agent.
func (Agent) Settings() *hostsettings.Spec { return settings() }

// Title implements agents.Agent.
func (Agent) Title() string { return settings().Title }

// userDir is Codex's home: $CODEX_HOME, else ~/.codex.
func userDir(env hostsettings.Env) string {
	if d := env.Var("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(env.Home, ".codex")
}

// files are Codex's hooks files, the user's first.
func files(env hostsettings.Env) []hostsettings.File {
	return []hostsettings.File{
		{Scope: hostsettings.User, Path: filepath.Join(userDir(env), "hooks.json")},
		{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".codex", "hooks.json")},
	}
}

// Format implements agents.Agent: Codex's hooks.json files as a format (format "codex"): their
// JSON read on exit 0 only, as Codex reads it.
func (Agent) Format() hooks.Format {
	return hostfmt.New(hostfmt.Spec{Settings: settings(), ProjectDirEnv: Agent{}.ProjectDirEnv()})
}
