package hostsettings

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// DoctorOptions are what Doctor may look at beyond the files.
type DoctorOptions struct {
	// LookPath finds a program on the PATH the host runs its hooks with (exec.LookPath).
	LookPath func(string) (string, error)
	// AgentBin is the agent's own program, for the checks that ask it (Codex's view of its
	// hooks' trust); empty when it is not installed.
	AgentBin string
	// ProcEnv is the environment the agent's program runs with.
	ProcEnv []string
	// Lookup finds another agent's settings by name (Spec.AlsoRuns); nil skips those notes.
	Lookup func(name string) *Spec
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
	Agent    string      `json:"agent"`
	Files    []FileState `json:"files"`
	Findings []Finding   `json:"findings"`
	Notes    []string    `json:"notes"`
}

// Doctor checks every settings file of the agent for what would keep hooks from running (Check),
// then the agent's own checks (Spec.DoctorChecks: a project's trust, managed settings).
func (h *Spec) Doctor(ctx context.Context, env Env, opt DoctorOptions) (*Report, error) {
	rep := &Report{Agent: h.Name, Findings: []Finding{}, Notes: []string{}}
	installed := 0
	for _, f := range h.Files(env) {
		st := FileState{Scope: f.Scope, Path: f.Path}
		if h.Scripts || h.Plugin != nil {
			doctorFolder := doctorScripts
			if h.Plugin != nil {
				doctorFolder = doctorPlugin
			}
			own, findings, err := doctorFolder(h, f.Path, opt.LookPath)
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
	if installed > 0 {
		for _, name := range SortedScopesKeys(h.AlsoRuns) {
			other := (*Spec)(nil)
			if opt.Lookup != nil {
				other = opt.Lookup(name)
			}
			if other == nil {
				continue
			}
			for _, f := range other.Files(env) {
				if !slices.Contains(h.AlsoRuns[name], f.Scope) {
					continue
				}
				if src, err := os.ReadFile(f.Path); err == nil && other.countOwn(src) > 0 {
					note := h.AlsoRunsNote
					if note == "" {
						note = h.Title + " also runs the hooks of %s, where agent-hooks is installed for %s: agent-hooks runs twice per event (uninstall one)"
					}
					rep.Notes = append(rep.Notes, fmt.Sprintf(note, f.Path, other.Title))
				}
			}
		}
		rep.Notes = append(rep.Notes, h.InstalledNotes...)
	}
	if h.DoctorChecks != nil {
		if err := h.DoctorChecks(ctx, env, opt, rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// countOwn counts agent-hooks' hooks for the host in a settings file: those in matcher groups,
// and in a flat shape (Copilot's, Cursor's) those right under the event, where "type" may be
// left out.
func (h *Spec) countOwn(src []byte) int { return h.CountOwn(src) }

// CountOwn counts agent-hooks' hooks for the agent in a settings file's content.
func (h *Spec) CountOwn(src []byte) int {
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

// SortedScopesKeys are the names of an AlsoRuns map, sorted.
func SortedScopesKeys(m map[string][]Scope) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// NewFinding is a finding about the agent's settings, for an agent's own checks.
func (h *Spec) NewFinding(file, problem string, effect Effect, fix string) Finding {
	return Finding{Agent: h.Name, Title: h.Title, File: file, Problem: problem, Effect: effect, Fix: fix}
}
