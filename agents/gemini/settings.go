package gemini

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
)

// settings are Gemini CLI's hook settings (0.61.0): ~/.gemini/settings.json and the project's
// .gemini/settings.json, in Claude Code's shape but with its own event names and timeouts in
// milliseconds; hooksConfig (or the older hooks) may switch hooks off.
var settings = sync.OnceValue(func() *hostsettings.Spec {
	s := &hostsettings.Spec{
		Name:  "gemini",
		Title: "Gemini CLI",
		Events: func() []string {
			out := make([]string, len(eventList))
			for i, e := range eventList {
				out[i] = e[0]
			}
			return out
		}(),
		Known: []string{"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel",
			"AfterModel", "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification"},
		HookTypes:    []string{"command"},
		Millis:       true,
		Files:        files,
		GroupEffect:  hostsettings.NeverRuns, // Gemini drops the entry
		TypeRequired: hostsettings.NeverRuns,
		FieldTypes: func(string) map[string]hostsettings.FieldType {
			return map[string]hostsettings.FieldType{"command": hostsettings.IsString, "timeout": hostsettings.IsPosMillis,
				"name": hostsettings.IsString, "description": hostsettings.IsString}
		},
		CheckRoot:    checkSwitches,
		NotEvents:    Switches,
		CheckMatcher: checkMatcher,

		Help: hostsettings.Help{
			Install: "Gemini CLI: .gemini/settings.json (--user: ~/.gemini/settings.json), its timeouts in milliseconds.",
			Hook:    fmt.Sprintf("Gemini CLI writes its timeouts in milliseconds: give --timeout the same in seconds (60000 ms is --timeout 60; its default is %s).", DefaultTimeout),
			Example: `# .gemini/settings.json (Gemini's timeouts are milliseconds)
{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "agent-hooks hook gemini --timeout 60", "timeout": 60000}]}]}}`,
		},
	}
	s.DoctorChecks = doctorChecks
	return s
})

// doctorChecks are settings' DoctorChecks, set by init: they read settings, which the Spec
// cannot refer to while it is built.
var doctorChecks func(context.Context, hostsettings.Env, hostsettings.DoctorOptions, *hostsettings.Report) error

func init() {
	doctorChecks = func(_ context.Context, _ hostsettings.Env, _ hostsettings.DoctorOptions, rep *hostsettings.Report) error {
		for _, st := range rep.Files {
			if st.Scope == hostsettings.Project && st.AgentHooks > 0 {
				rep.Notes = append(rep.Notes, "Gemini CLI runs a project's hooks only in a trusted folder: trust it when Gemini asks (a headless run needs GEMINI_CLI_TRUST_WORKSPACE=true or --skip-trust)")
			}
		}
		return nil
	}
}

// Settings implements agents.Agent.
func (Agent) Settings() *hostsettings.Spec { return settings() }

// Title implements agents.Agent.
func (Agent) Title() string { return settings().Title }

// Switches are the keys of Gemini's "hooks" object that are switches, not events.
var Switches = map[string]bool{"enabled": true, "disabled": true, "notifications": true}

// files are Gemini CLI's settings files, the user's first.
func files(env hostsettings.Env) []hostsettings.File {
	return []hostsettings.File{
		{Scope: hostsettings.User, Path: filepath.Join(env.Home, ".gemini", "settings.json")},
		{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".gemini", "settings.json")},
	}
}

// checkSwitches reports Gemini's switches that turn hooks off: hooksConfig.enabled false (also
// the older hooks.enabled), and agent-hooks' hooks named in hooksConfig.disabled.
func checkSwitches(c *hostsettings.Checker, obj map[string]any) bool {
	for _, key := range []string{"hooksConfig", "hooks"} {
		cfg, _ := obj[key].(map[string]any)
		if cfg["enabled"] == false {
			c.Add(hostsettings.NeverRuns, fmt.Sprintf(`remove "%s.enabled"`, key), []any{key, "enabled"}, `"%s.enabled": false turns off every hook`, key)
		}
		disabled, _ := cfg["disabled"].([]any)
		for i, d := range disabled {
			if s, _ := d.(string); c.Spec().Owns(s) {
				c.Add(hostsettings.NeverRuns, "take it out of the list", []any{key, "disabled", i}, "%s.disabled lists agent-hooks' hook", key)
			}
		}
	}
	return false
}

// claudeTools are Claude Code's tool names, written by mistake in a Gemini matcher.
var claudeTools = []string{"Bash", "Write", "Edit", "MultiEdit", "Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "TodoWrite", "Task"}

// checkMatcher reports a BeforeTool or AfterTool matcher that names Claude Code's tools, not
// Gemini's (Gemini tests it as a regular expression against its own tool names): its hooks never
// run.
func checkMatcher(c *hostsettings.Checker, event string, at []any, m string) {
	if (event != "BeforeTool" && event != "AfterTool") || m == "" || m == "*" {
		return
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return // Gemini then compares it as a plain name
	}
	for t := range claudeNames() {
		if re.MatchString(t) {
			return
		}
	}
	for _, t := range claudeTools {
		if re.MatchString(t) {
			c.Add(hostsettings.NeverRuns, "Gemini's shell tool is run_shell_command, Write is write_file, Edit is replace", append(at, "matcher"),
				"matcher %q names Claude Code's tools, not Gemini CLI's", m)
			return
		}
	}
}
