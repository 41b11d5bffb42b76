package hostsettings

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/configedit"
)

// DoctorOptions are what Doctor may look at beyond the files.
type DoctorOptions struct {
	// LookPath finds a program on the PATH the host runs its hooks with (exec.LookPath).
	LookPath func(string) (string, error)
	// CodexBin is the codex binary asked for its view of the hooks (trust, parse warnings);
	// empty when codex is not installed, and then trust is read from config.toml alone.
	CodexBin string
	// ProcEnv is the environment codex runs with.
	ProcEnv []string
}

// FileState is one of the host's settings files as Doctor found it.
type FileState struct {
	Scope  Scope  `json:"scope"`
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	// AgentHooks counts agent-hooks' hooks for the host in it.
	AgentHooks int `json:"agentHooks"`
}

// Report is what Doctor found for one host. Findings are problems (doctor exits non-zero);
// Notes are what the user should know but need not fix.
type Report struct {
	Host     string      `json:"agent"`
	Files    []FileState `json:"files"`
	Findings []Finding   `json:"findings"`
	Notes    []string    `json:"notes"`
}

// Doctor checks every settings file of the host for what would keep hooks from running (Check),
// and for Codex, whether the project and each hook are trusted.
func (h *Host) Doctor(ctx context.Context, env Env, opt DoctorOptions) (*Report, error) {
	rep := &Report{Host: h.Name, Findings: []Finding{}, Notes: []string{}}
	installed := 0
	for _, f := range h.Files(env) {
		st := FileState{Scope: f.Scope, Path: f.Path}
		if h.Scripts {
			own, findings, err := doctorScripts(h, f.Path, opt.LookPath)
			if err != nil {
				return nil, err
			}
			_, err = os.Stat(f.Path)
			st.Exists, st.AgentHooks = err == nil, own
			installed += own
			rep.Findings = append(rep.Findings, findings...)
			rep.Files = append(rep.Files, st)
			continue
		}
		src, err := os.ReadFile(f.Path)
		if err == nil {
			st.Exists = true
			st.AgentHooks = h.countOwn(src)
			installed += st.AgentHooks
			rep.Findings = append(rep.Findings, h.CheckSource(f.Path, src, opt.LookPath)...)
		} else if !os.IsNotExist(err) {
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		rep.Files = append(rep.Files, st)
	}
	if installed == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("agent-hooks is not installed for %s (agent-hooks install %s [--user])", h.Title, h.Name))
	}
	switch {
	case h == Copilot && installed > 0:
		for _, f := range Claude.Files(env)[1:] { // Copilot reads the project's Claude settings, not the user's
			if src, err := os.ReadFile(f.Path); err == nil && Claude.countOwn(src) > 0 {
				rep.Notes = append(rep.Notes, fmt.Sprintf("Copilot also reads %s, where agent-hooks is installed for Claude Code: Copilot runs agent-hooks twice per event (uninstall one)", f.Path))
			}
		}
		rep.Notes = append(rep.Notes, "Copilot loads a repository's hooks in -p mode only in a folder it trusts (--trust-folder, or COPILOT_ALLOW_ALL=true); its user hooks (--user) always load",
			"Copilot cannot block a prompt (userPromptSubmitted) nor a session's start: gates on those events only record")
	case h == Cline && installed > 0:
		rep.Notes = append(rep.Notes, "Cline refuses a tool only by ending the task: a PreToolUse gate that blocks stops the agent, and the model is not told why",
			"Cline does not wait for TaskStart, TaskComplete, TaskError, SessionShutdown or UserPromptSubmit hooks: gates on those events only record")
	}
	if h == Codex {
		if err := codexTrust(ctx, env, opt, rep); err != nil {
			return nil, err
		}
	}
	if h == Claude && env.ClaudeManagedDir != "" {
		rep.Findings = append(rep.Findings, claudeManaged(env.ClaudeManagedDir)...)
	}
	if h == Cursor && installed > 0 {
		// Cursor runs Claude Code's hooks too (its third-party hooks, on by default).
		for _, f := range Claude.Files(env) {
			if src, err := os.ReadFile(f.Path); err == nil && Claude.countOwn(src) > 0 {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s has agent-hooks for Claude Code, which Cursor also runs (Include Third-Party Configs): agent-hooks runs twice per event; uninstall one, or turn that setting off", f.Path))
			}
		}
	}
	if h == Gemini {
		for _, st := range rep.Files {
			if st.Scope == Project && st.AgentHooks > 0 {
				rep.Notes = append(rep.Notes, "Gemini CLI runs a project's hooks only in a trusted folder: trust it when Gemini asks (a headless run needs GEMINI_CLI_TRUST_WORKSPACE=true or --skip-trust)")
			}
		}
	}
	return rep, nil
}

// claudeManaged reports the managed-settings switches that keep every hook of the user's and
// the project's files from running: disableAllHooks, allowManagedHooksOnly.
func claudeManaged(dir string) []Finding {
	files := []string{filepath.Join(dir, "managed-settings.json")}
	dropIns, _ := filepath.Glob(filepath.Join(dir, "managed-settings.d", "*.json"))
	var out []Finding
	for _, path := range append(files, dropIns...) {
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
			f := Finding{Host: Claude.Name, hostTitle: Claude.Title, File: path, Problem: problem, Effect: NeverRuns,
				Fix: "managed settings are the administrator's: ask them"}
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

// countOwn counts agent-hooks' hooks for the host in a settings file: those in matcher groups,
// and in a flat shape (Copilot's, Cursor's) those right under the event, where "type" may be
// left out.
func (h *Host) countOwn(src []byte) int {
	var s struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	if json.Unmarshal(src, &s) != nil {
		return 0
	}
	shape := h.settingsShape()
	n := 0
	count := func(hk map[string]any, key string, untyped bool) {
		typ, typed := hk["type"].(string)
		if cmd, _ := hk[key].(string); (typ == "command" || untyped && !typed) && h.Owns(cmd) {
			n++
		}
	}
	for _, list := range s.Hooks {
		for _, e := range list {
			if shape.Flat {
				count(e, shape.CommandKey, true)
			}
			group, _ := e["hooks"].([]any)
			for _, hk := range group {
				if m, ok := hk.(map[string]any); ok {
					count(m, "command", false)
				}
			}
		}
	}
	return n
}

// codexTrust adds what Codex's trust keeps from running: the project's hooks.json in a project
// config.toml does not trust, and (asking codex) every hook it does not trust.
func codexTrust(ctx context.Context, env Env, opt DoctorOptions, rep *Report) error {
	var project *FileState
	for i := range rep.Files {
		if rep.Files[i].Scope == Project && rep.Files[i].Exists {
			project = &rep.Files[i]
		}
	}
	const trustFix = "agent-hooks install codex --trust, or start codex in the project and trust it"
	if project != nil {
		level, err := ProjectTrust(env, env.Workspace)
		if err != nil {
			return err
		}
		if level != "trusted" {
			problem := fmt.Sprintf("the project %s is not trusted in %s", env.Workspace, ConfigFile(env))
			if level != "" {
				problem = fmt.Sprintf("the project %s is marked %q in %s", env.Workspace, level, ConfigFile(env))
			}
			rep.Findings = append(rep.Findings, Finding{Host: Codex.Name, hostTitle: Codex.Title, File: project.Path,
				Problem: problem, Effect: FileIgnored, Fix: trustFix})
		}
	}
	if opt.CodexBin == "" {
		rep.Notes = append(rep.Notes, "codex not found on PATH: whether Codex trusts each hook was not checked")
		return nil
	}
	app, err := StartCodexApp(ctx, opt.CodexBin, env.Workspace, opt.ProcEnv)
	if err != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("could not ask codex about its hooks: %v", err))
		return nil
	}
	defer app.Close()
	list, err := app.Hooks(env.Workspace)
	if err != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("could not ask codex about its hooks: %v", err))
		return nil
	}
	ignored := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Effect == FileIgnored {
			ignored[f.File] = true
		}
	}
	for _, w := range append(list.Warnings, list.Errors...) {
		if mentionsAny(w, ignored) {
			continue // already reported
		}
		effect := Misconfigured
		if strings.Contains(w, "failed to parse") {
			effect = FileIgnored
		}
		rep.Findings = append(rep.Findings, Finding{Host: Codex.Name, hostTitle: Codex.Title, Problem: "codex says: " + w, Effect: effect})
	}
	for _, hk := range list.Hooks {
		switch {
		case !hk.Enabled:
			rep.Findings = append(rep.Findings, Finding{Host: Codex.Name, hostTitle: Codex.Title, File: hk.SourcePath,
				Problem: fmt.Sprintf("hook %s (%s) is disabled in Codex", hk.Key, hk.Command), Effect: NeverRuns})
		case hk.TrustStatus == "untrusted" || hk.TrustStatus == "modified":
			what := "is not trusted"
			if hk.TrustStatus == "modified" {
				what = "changed since it was trusted"
			}
			rep.Findings = append(rep.Findings, Finding{Host: Codex.Name, hostTitle: Codex.Title, File: hk.SourcePath,
				Problem: fmt.Sprintf("hook %s (%s) %s", hk.Key, hk.Command, what), Effect: NeverRuns, Fix: trustFix})
		}
	}
	return nil
}

func mentionsAny(s string, paths map[string]bool) bool {
	for p := range paths {
		if strings.Contains(s, p) {
			return true
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && strings.Contains(s, real) {
			return true
		}
	}
	return false
}
