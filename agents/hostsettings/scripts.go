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

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// script is the script install writes for an agent that runs one executable per event
// (Spec.Scripts): it runs agent-hooks for the event.
func (h *Spec) script(event string, timeout int) []byte {
	return []byte("#!/bin/sh\n# Written by agent-hooks install " + h.Name + ": " + h.Title + " runs it for " + event + ".\nexec " + h.CommandFor(event, timeout) + "\n")
}

// OwnsScript reports whether a hook file's content runs agent-hooks for the host.
func (h *Spec) OwnsScript(src []byte) bool {
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
func installScripts(h *Spec, dir string, timeout int) (bool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	changed := false
	var theirs []string
	for _, ev := range h.Events {
		path := filepath.Join(dir, ev)
		want := h.script(ev, timeout)
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
		return changed, fmt.Errorf("%s: not agent-hooks' hook files, left as they are; rename them (e.g. %s.sh, which %s runs too) and install again",
			strings.Join(theirs, ", "), filepath.Base(theirs[0]), h.Title)
	}
	return changed, nil
}

// uninstallScripts removes the host's scripts from dir.
func uninstallScripts(h *Spec, dir string) (bool, error) {
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

// doctorScripts checks the hook files of an agent's hooks folder: a name it runs for no event
// (an unknown event, an extension it does not run), a file it cannot execute, agent-hooks not on
// PATH, and a file meant to gate an event Cline does not wait for.
func doctorScripts(h *Spec, dir string, lookPath func(string) (string, error)) (own int, out []Finding, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	add := func(path string, effect Effect, fix, format string, args ...any) {
		out = append(out, Finding{Agent: h.Name, Title: h.Title, File: path, Problem: fmt.Sprintf(format, args...), Effect: effect, Fix: fix})
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		ext := filepath.Ext(e.Name())
		base := strings.TrimSuffix(e.Name(), ext)
		if !slices.Contains(h.ScriptExtensions, strings.ToLower(ext)) {
			ext, base = "", e.Name()
		}
		event := ""
		for _, k := range h.Known {
			if strings.EqualFold(k, base) {
				event = k
			}
		}
		if event == "" {
			add(path, NeverRuns, "name it after a "+h.Title+" event ("+strings.Join(h.Known, ", ")+")", "%q is not a %s hook name", e.Name(), h.Title)
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return own, out, err
		}
		if ext == "" && !bytes.HasPrefix(src, []byte("#!")) {
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o111 == 0 {
				add(path, NeverRuns, "chmod +x it, or start it with #!", "the hook file is neither executable nor a script %s knows how to run", h.Title)
			}
		}
		if why, ok := h.ScriptNeverRuns[event]; ok {
			add(path, NeverRuns, "", "%s", why)
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
			program, _, _, _ := OwnCommand(cmd)
			if lookPath != nil {
				if _, err := lookPath(program); err != nil {
					add(path, NeverRuns, "install agent-hooks on the PATH the agent runs with, or write its absolute path", "%s is not on PATH", program)
				}
			}
			if got := FlagValue(cmd, "--event"); !strings.EqualFold(got, event) {
				add(path, Misconfigured, "run agent-hooks install "+h.Name+" again", "the script names the event %q, not %q", got, event)
			}
		}
	}
	return own, out, nil
}
