package hostsettings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// Plugin is the file agent-hooks installs for an agent that loads plugins from folders instead
// of running hook commands (Spec.Plugin): one file of agent-hooks' own in each folder, which
// runs `agent-hooks hook <agent>` (Spec.Command) for the agent's events. The user's other
// plugins in the folder are never touched.
type Plugin struct {
	// Name is the file's name in the folder ("agent-hooks.js").
	Name string
	// Source is the file's content for the command it must run (Spec.Command(timeout)).
	Source func(command string) []byte
}

// pluginMarker is the line every plugin file of agent-hooks' starts with, before the command
// it runs: how install, uninstall and doctor tell it from the user's own plugins.
const pluginMarker = "// Written by agent-hooks install "

// PluginHeader is the first line of the plugin file install writes for agent, which names the
// command it runs; a Plugin's Source starts with it.
func PluginHeader(agent, command string) string {
	return pluginMarker + agent + ": " + command + "\n"
}

// pluginCommand is the command an agent-hooks plugin file for the host runs, ok false for a
// file that is not one.
func (h *Spec) pluginCommand(src []byte) (string, bool) {
	line, _, _ := bytes.Cut(src, []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte(pluginMarker+h.Name+": "))
	if !ok {
		return "", false
	}
	cmd := strings.TrimSpace(string(rest))
	return cmd, h.Owns(cmd)
}

// installPlugin writes the host's plugin file in dir and reports whether it changed. A file of
// the same name that is not agent-hooks' is left alone (an error says so).
func installPlugin(h *Spec, dir string, timeout int) (bool, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	path := filepath.Join(dir, h.Plugin.Name)
	want := h.Plugin.Source(h.Command(timeout))
	src, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(src, want):
		return false, nil
	case err == nil:
		if _, ours := h.pluginCommand(src); !ours {
			return false, fmt.Errorf("%s: not agent-hooks' plugin, left as it is; rename it and install again", path)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	if err := atomicfile.WriteFile(path, want, 0o644); err != nil {
		return false, err
	}
	return true, nil
}

// uninstallPlugin removes the host's plugin file from dir, when it is agent-hooks'.
func uninstallPlugin(h *Spec, dir string) (bool, error) {
	path := filepath.Join(dir, h.Plugin.Name)
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, ours := h.pluginCommand(src); !ours {
		return false, nil
	}
	return true, os.Remove(path)
}

// doctorPlugin checks a plugin folder: agent-hooks' plugin file not on PATH, or not what this
// agent-hooks installs (an older one: install again).
func doctorPlugin(h *Spec, dir string, lookPath func(string) (string, error)) (own int, out []Finding, err error) {
	path := filepath.Join(dir, h.Plugin.Name)
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	cmd, ours := h.pluginCommand(src)
	if !ours {
		return 0, nil, nil
	}
	add := func(effect Effect, fix, format string, args ...any) {
		out = append(out, Finding{Agent: h.Name, Title: h.Title, File: path, Problem: fmt.Sprintf(format, args...), Effect: effect, Fix: fix})
	}
	program, _, timeout, _ := OwnCommand(cmd)
	if lookPath != nil {
		if _, err := lookPath(program); err != nil {
			add(NeverRuns, "install agent-hooks on the PATH the agent runs with", "%s is not on PATH: the plugin refuses every tool call", program)
		}
	}
	if timeout <= 0 || !bytes.Equal(src, h.Plugin.Source(h.Command(int(timeout)))) {
		add(Misconfigured, "run agent-hooks install "+h.Name+" again", "the plugin is not the one this agent-hooks installs")
	}
	return len(h.Events), out, nil // the plugin runs agent-hooks on every event
}
