package droid

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/configedit"
)

// settings are Droid's hook settings (0.215.0): "hooks" of ~/.factory/settings.json and
// .factory/settings.json, in Claude Code's matcher groups, timeouts in seconds. Droid reads each
// scope's hooks.json too (events at its top level; .factory/hooks/hooks.json before), whose
// events replace the same events of settings.json: doctor says when one hides agent-hooks.
var settings = sync.OnceValue(func() *hostsettings.Spec {
	s := &hostsettings.Spec{
		Name:   "droid",
		Title:  "Factory Droid",
		Events: eventList,
		Known: []string{"PreToolUse", "PostToolUse", "Notification", "UserPromptSubmit", "Stop", "SubagentStop",
			"PreCompact", "SessionStart", "SessionEnd"},
		HookTypes: []string{"command"},
		// Droid checks the whole "hooks" object against its schema and drops all of it when one hook
		// or group is off the schema (a hook without "type", a "timeout" that is not a number).
		TypeRequired: hostsettings.FileIgnored,
		NotEvents:    map[string]bool{"hooksDisabled": true, "showHookOutput": true},
		Files:        files,
		CheckRoot: func(c *hostsettings.Checker, root map[string]any) bool {
			if h, ok := root["hooks"].(map[string]any); ok && h["hooksDisabled"] == true {
				c.Add(hostsettings.NeverRuns, `remove "hooksDisabled"`, []any{"hooks", "hooksDisabled"}, `"hooksDisabled": true turns off the hooks`)
			}
			return false
		},
		Help: hostsettings.Help{
			Install: fmt.Sprintf("Factory Droid: .factory/settings.json (--user: ~/.factory/settings.json); an event its hooks.json beside it defines hides settings.json's (doctor says so). Droid waits %s for a hook without a timeout.", defaultTimeout),
			Hook:    fmt.Sprintf("Factory Droid waits a hook's \"timeout\" (default %s) and reads Claude Code's answers; exit 2 blocks.", defaultTimeout),
			Example: `# .factory/settings.json
{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "agent-hooks hook droid --timeout 600", "timeout": 600}]}]}}`,
		},
		InstalledNotes: []string{"droid --no-hooks runs no hook at all"},
	}
	s.DoctorChecks = doctorChecks
	return s
})

// doctorChecks are settings' DoctorChecks, set by init: they read settings, which the Spec
// cannot refer to while it is built.
var doctorChecks func(context.Context, hostsettings.Env, hostsettings.DoctorOptions, *hostsettings.Report) error

func init() {
	doctorChecks = func(_ context.Context, env hostsettings.Env, _ hostsettings.DoctorOptions, rep *hostsettings.Report) error {
		for _, f := range files(env) {
			rep.Findings = append(rep.Findings, shadowed(f.Path)...)
		}
		return nil
	}
}

// Settings implements agents.Agent.
func (Agent) Settings() *hostsettings.Spec { return settings() }

// Title implements agents.Agent.
func (Agent) Title() string { return settings().Title }

// files are Droid's settings files, the user's first.
func files(env hostsettings.Env) []hostsettings.File {
	return []hostsettings.File{
		{Scope: hostsettings.User, Path: filepath.Join(env.Home, ".factory", "settings.json")},
		{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".factory", "settings.json")},
	}
}

// hooksFile is the hooks.json Droid reads beside settings (the scope's folder's, else the older
// hooks/hooks.json), "" when there is none.
func hooksFile(settingsPath string) string {
	dir := filepath.Dir(settingsPath)
	for _, p := range []string{filepath.Join(dir, "hooks.json"), filepath.Join(dir, "hooks", "hooks.json")} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// hooksJSONEvents are the events a hooks.json defines (its top-level keys of Droid's events,
// which replace the same events of settings.json); nil when it cannot be read.
func hooksJSONEvents(src []byte) map[string]json.RawMessage {
	var top map[string]json.RawMessage
	if json.Unmarshal(src, &top) != nil {
		return nil
	}
	out := map[string]json.RawMessage{}
	for k, v := range top {
		if slices.Contains(settings().Known, k) {
			out[k] = v
		}
	}
	return out
}

// shadowed reports agent-hooks' hooks of the settings file at path that Droid never runs
// because the scope's hooks.json defines their event.
func shadowed(path string) []hostsettings.Finding {
	hf := hooksFile(path)
	if hf == "" {
		return nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	hsrc, err := os.ReadFile(hf)
	if err != nil {
		return nil
	}
	events := hooksJSONEvents(hsrc)
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(src, &s) != nil {
		return nil
	}
	var out []hostsettings.Finding
	for _, ev := range eventList {
		if _, hidden := events[ev]; !hidden {
			continue
		}
		for _, g := range s.Hooks[ev] {
			if slices.ContainsFunc(g.Hooks, func(h struct {
				Command string `json:"command"`
			}) bool {
				return settings().Owns(h.Command)
			}) {
				f := settings().NewFinding(path, fmt.Sprintf("%s defines %s, which replaces this file's %s hooks", hf, ev, ev), hostsettings.NeverRuns,
					fmt.Sprintf("add agent-hooks' %s entry to %s too, or move that file's %s hooks here", ev, filepath.Base(hf), ev))
				f.Line, f.Col, _ = configedit.Position(src, "hooks", ev)
				out = append(out, f)
				break
			}
		}
	}
	return out
}
