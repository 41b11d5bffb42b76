package hostsettings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/autoagent/agent-hooks/agents/cline"
	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// Cline is the Cline CLI (3.0.65) and its VS Code extension. Cline has no hook settings: it runs
// every executable named after an event in its hooks folders (.clinerules/hooks/,
// .cline/hooks/, ~/.cline/hooks/, ~/Documents/Cline/Hooks/), whatever their exit code. install
// writes one small script per event, `exec agent-hooks hook cline --event <Name>`.
var Cline = &Host{
	Name:  "cline",
	Title: "Cline",
	Events: func() []string {
		var out []string
		for _, f := range cline.Files {
			out = append(out, f.Name)
		}
		return out
	}(),
	Known: []string{"TaskStart", "TaskResume", "TaskCancel", "TaskComplete", "TaskError", "PreToolUse",
		"PostToolUse", "UserPromptSubmit", "PreCompact", "SessionShutdown"},
	Scripts: true,
}

// clineExtensions are the extensions Cline accepts on a hook file's name.
var clineExtensions = []string{"", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".ps1"}

// clineDirs are Cline's hooks folders, user first: $CLINE_DIR/hooks (~/.cline/hooks),
// ~/Documents/Cline/Hooks, then the project's .clinerules/hooks (where install writes) and
// .cline/hooks.
func clineDirs(env Env) []File {
	home := env.getenv("CLINE_DIR")
	if home == "" {
		home = filepath.Join(env.Home, ".cline")
	}
	return []File{
		{User, filepath.Join(home, "hooks")},
		{Project, filepath.Join(env.Workspace, ".clinerules", "hooks")},
		{User, filepath.Join(env.Home, "Documents", "Cline", "Hooks")},
		{Project, filepath.Join(env.Workspace, ".cline", "hooks")},
	}
}

// clineScript is install's hook file for event.
func clineScript(h *Host, event string, timeout int) []byte {
	return []byte("#!/bin/sh\n# Written by agent-hooks install cline: Cline runs it for " + event + ".\nexec " + h.CommandFor(event, timeout) + "\n")
}

// OwnsScript reports whether a hook file's content runs agent-hooks for the host.
func (h *Host) OwnsScript(src []byte) bool {
	for _, line := range strings.Split(string(src), "\n") {
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "exec "); ok && h.Owns(cmd) {
			return true
		}
	}
	return false
}

// installScripts writes the host's script for each of its events in dir, executable, and
// reports whether any changed. A file of the same name that is not agent-hooks' is left alone
// (an error says so: Cline would run it as well).
func installScripts(h *Host, dir string, timeout int) (bool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	changed := false
	var theirs []string
	for _, ev := range h.Events {
		path := filepath.Join(dir, ev)
		want := clineScript(h, ev, timeout)
		src, err := os.ReadFile(path)
		switch {
		case err == nil && !h.OwnsScript(src):
			theirs = append(theirs, path)
			continue
		case err == nil && bytes.Equal(src, want):
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o111 != 0 {
				continue
			}
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return changed, err
		}
		if err := atomicfile.WriteFile(path, want, 0o755); err != nil {
			return changed, err
		}
		changed = true
	}
	if len(theirs) > 0 {
		return changed, fmt.Errorf("%s: not agent-hooks' hook files, left as they are; rename them (e.g. %s.sh, which Cline runs too) and install again",
			strings.Join(theirs, ", "), filepath.Base(theirs[0]))
	}
	return changed, nil
}

// uninstallScripts removes the host's scripts from dir.
func uninstallScripts(h *Host, dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	changed := false
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if src, err := os.ReadFile(path); err == nil && h.OwnsScript(src) {
			if err := os.Remove(path); err != nil {
				return changed, err
			}
			changed = true
		}
	}
	return changed, nil
}

// doctorScripts checks the hook files of a Cline hooks folder: a name Cline runs for no event
// (an unknown event, an extension it does not run), a file it cannot execute, agent-hooks not on
// PATH, and a file meant to gate an event Cline does not wait for.
func doctorScripts(h *Host, dir string, lookPath func(string) (string, error)) (own int, out []Finding, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	add := func(path string, effect Effect, fix, format string, args ...any) {
		out = append(out, Finding{Host: h.Name, hostTitle: h.Title, File: path, Problem: fmt.Sprintf(format, args...), Effect: effect, Fix: fix})
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		ext := filepath.Ext(e.Name())
		base := strings.TrimSuffix(e.Name(), ext)
		if !slices.Contains(clineExtensions, strings.ToLower(ext)) {
			ext, base = "", e.Name()
		}
		event := ""
		for _, k := range h.Known {
			if strings.EqualFold(k, base) {
				event = k
			}
		}
		if event == "" {
			add(path, NeverRuns, "name it after a Cline event ("+strings.Join(h.Known, ", ")+")", "%q is not a Cline hook name", e.Name())
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return own, out, err
		}
		if ext == "" && !bytes.HasPrefix(src, []byte("#!")) {
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o111 == 0 {
				add(path, NeverRuns, "chmod +x it, or start it with #!", "the hook file is neither executable nor a script Cline knows how to run")
			}
		}
		if event == "PreCompact" {
			add(path, NeverRuns, "", "Cline's CLI and SDK do not run PreCompact hook files (only the legacy extension did)")
		}
		if !h.OwnsScript(src) {
			continue
		}
		own++
		for _, line := range strings.Split(string(src), "\n") {
			cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "exec ")
			if !ok || !h.Owns(cmd) {
				continue
			}
			program, _, _, _ := ownCommand(cmd)
			if lookPath != nil {
				if _, err := lookPath(program); err != nil {
					add(path, NeverRuns, "install agent-hooks on the PATH the agent runs with, or write its absolute path", "%s is not on PATH", program)
				}
			}
			if got := flagValue(cmd, "--event"); !strings.EqualFold(got, event) {
				add(path, Misconfigured, "run agent-hooks install cline again", "the script names the event %q, not %q", got, event)
			}
		}
	}
	return own, out, nil
}
