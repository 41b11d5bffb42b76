package droid

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/autoagent/agent-hooks/agents/hostfmt"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/configfile"
)

// format is Droid's hook settings as a format (format "droid"): per scope, the "hooks" of
// settings.json with the events of hooks.json in their place, as Droid merges them; their hooks
// run as Droid runs them (Claude Code's stdin and answers, FACTORY_PROJECT_DIR).
type format struct {
	inner hostfmt.Format
}

// Format implements agents.Agent.
func (Agent) Format() hooks.Format {
	return format{inner: hostfmt.New(hostfmt.Spec{Settings: settings(), ProjectDirEnv: Agent{}.ProjectDirEnv()})}
}

// Name implements hooks.Format.
func (format) Name() string { return settings().Name }

// ConfigPaths implements hooks.ConfigPather: settings.json and both places of hooks.json, per
// scope.
func (f format) ConfigPaths(env hooks.LoadEnv) []string {
	var out []string
	for _, p := range f.inner.ConfigPaths(env) {
		dir := filepath.Dir(p)
		out = append(out, p, filepath.Join(dir, "hooks.json"), filepath.Join(dir, "hooks", "hooks.json"))
	}
	return out
}

// Load implements hooks.Format.
func (f format) Load(env hooks.LoadEnv) (hooks.Loaded, error) {
	if env.Agent == settings().Name {
		return hooks.Loaded{}, nil // Droid runs these itself
	}
	var out hooks.Loaded
	for _, fl := range hostfmt.RunOrder(settings(), env) {
		if fl.Scope == "user" && (env.DisableUserHooks || env.UserHome == "") {
			continue
		}
		src, err := read(fl.Path)
		if err != nil {
			return hooks.Loaded{}, err
		}
		var hidden map[string]json.RawMessage
		if hf := hooksFile(fl.Path); hf != "" {
			hsrc, err := read(hf)
			if err != nil {
				return hooks.Loaded{}, err
			}
			hidden = hooksJSONEvents(hsrc)
			if len(hidden) > 0 {
				doc, _ := json.Marshal(map[string]any{"hooks": hidden})
				hs, ds := f.inner.Parse(hostfmt.File{Path: hf, Scope: fl.Scope}, doc)
				out.Hooks, out.Diagnostics = append(out.Hooks, hs...), append(out.Diagnostics, ds...)
				out.Diagnostics = append(out.Diagnostics, commandRegex(hf, doc)...)
			}
		}
		if src == nil {
			continue
		}
		if len(hidden) > 0 {
			src = without(src, hidden)
		}
		hs, ds := f.inner.Parse(hostfmt.File{Path: fl.Path, Scope: fl.Scope}, src)
		out.Hooks, out.Diagnostics = append(out.Hooks, hs...), append(out.Diagnostics, ds...)
		out.Diagnostics = append(out.Diagnostics, commandRegex(fl.Path, src)...)
	}
	return out, nil
}

// read is a settings file's content, nil when it does not exist.
func read(path string) ([]byte, error) {
	src, err := configfile.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return src, err
}

// without is settings.json's content without the events hooks.json replaces.
func without(src []byte, hidden map[string]json.RawMessage) []byte {
	var root map[string]json.RawMessage
	if json.Unmarshal(src, &root) != nil {
		return src // unreadable: Parse says so
	}
	var h map[string]json.RawMessage
	if json.Unmarshal(root["hooks"], &h) != nil {
		return src
	}
	for ev := range hidden {
		delete(h, ev)
	}
	root["hooks"], _ = json.Marshal(h)
	out, _ := json.Marshal(root)
	return out
}

// commandRegex warns of the matcher groups that narrow Execute calls by "commandRegex", which
// agent-hooks does not read: their hooks run for every call their matcher matches.
func commandRegex(path string, src []byte) []hooks.Diagnostic {
	var s struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(src, &s) != nil {
		return nil
	}
	var out []hooks.Diagnostic
	for ev, raw := range s.Hooks {
		var groups []struct {
			CommandRegex string `json:"commandRegex"`
		}
		if json.Unmarshal(raw, &groups) != nil {
			continue
		}
		for i, g := range groups {
			if strings.TrimSpace(g.CommandRegex) != "" {
				out = append(out, hooks.Diagnostic{Severity: hooks.SeverityWarning, File: path,
					Message: "hooks." + ev + "[" + strconv.Itoa(i) + "]: agent-hooks does not read \"commandRegex\": the group's hooks run for every call its matcher matches"})
			}
		}
	}
	return out
}
