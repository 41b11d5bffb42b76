package hostsettings

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/autoagent/agent-hooks/configedit"
)

// Hooks are the hooks install registers: `agent-hooks hook <host> --timeout T` on each of the
// host's events, with the host's timeout T (within the host's cap for the event), so that
// agent-hooks and the host agree on the deadline.
func (h *Host) Hooks(timeout int) []configedit.HostHook {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	out := make([]configedit.HostHook, len(h.Events))
	for i, ev := range h.Events {
		t := h.Timeout(ev, timeout)
		out[i] = configedit.HostHook{Event: ev, Command: h.CommandFor(ev, t), Timeout: h.written(t)}
		if slices.Contains(h.FailClosed, ev) {
			out[i].Extra = []configedit.Field{{Key: "failClosed", Value: true}}
		}
	}
	return out
}

// written is a timeout of seconds in the host's unit.
func (h *Host) written(seconds int) int {
	if h.Millis {
		return seconds * 1000
	}
	return seconds
}

// IgnoredError is a settings file the host ignores as it is: install refuses to add hooks that
// would never run.
type IgnoredError struct {
	Host     *Host
	Findings []Finding
}

func (e *IgnoredError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s ignores every hook in this file as it is; fix it first:", e.Host.Title)
	for _, f := range e.Findings {
		if f.Effect == FileIgnored {
			b.WriteString("\n  " + f.String())
		}
	}
	return b.String()
}

// Install merges agent-hooks' hooks (Hooks(timeout)) into the settings file at path, creating
// it when missing, and keeps everything else in it byte for byte. It reports whether the file
// changed (not when they were already there). A file the host ignores is left alone
// (*IgnoredError).
func (h *Host) Install(path string, timeout int) (bool, error) {
	if h.Scripts {
		return installScripts(h, path, timeout)
	}
	want := h.Hooks(timeout)
	shape := h.settingsShape()
	return configedit.Update(path, func(src []byte) ([]byte, bool, error) {
		if len(bytes.TrimSpace(src)) == 0 {
			return configedit.SetHostHooksIn(shape, src, want, h.Owns)
		}
		if fs := h.CheckSource(path, src, nil); Ignored(fs) {
			return nil, false, &IgnoredError{Host: h, Findings: fs}
		}
		return configedit.SetHostHooksIn(shape, src, want, h.Owns)
	})
}

// Uninstall takes agent-hooks' hooks for the host out of the settings file at path, keeping
// everything else; a missing file is left missing.
func (h *Host) Uninstall(path string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if h.Scripts {
		return uninstallScripts(h, path)
	}
	return configedit.Update(path, func(src []byte) ([]byte, bool, error) {
		return configedit.SetHostHooksIn(h.settingsShape(), src, nil, h.Owns)
	})
}

// TrustResult is what TrustCodex changed.
type TrustResult struct {
	Project bool     // the project was marked trusted
	Hooks   []string // the keys of the hooks marked trusted
}

// TrustCodex makes Codex run agent-hooks' hooks of the file install wrote: the project
// (workspace) trusted when the file is the project's, then each of agent-hooks' hooks in it
// that Codex does not trust yet, with the hash Codex reports; Codex writes its own
// config.toml. bin is the codex binary, procEnv the environment it runs with (its HOME and
// CODEX_HOME). It checks afterwards that Codex trusts every one of them.
func TrustCodex(ctx context.Context, bin string, procEnv []string, workspace string, file File) (*TrustResult, error) {
	app, err := StartCodexApp(ctx, bin, workspace, procEnv)
	if err != nil {
		return nil, err
	}
	defer app.Close()
	res := &TrustResult{}
	if file.Scope == Project {
		list, err := app.Hooks(workspace)
		if err != nil {
			return nil, err
		}
		if len(ours(list.Hooks, file.Path)) == 0 {
			// Codex lists no hook of an untrusted project.
			if err := app.TrustProject(workspace); err != nil {
				return nil, err
			}
			res.Project = true
		}
	}
	list, err := app.Hooks(workspace)
	if err != nil {
		return nil, err
	}
	var untrusted []CodexHook
	for _, h := range ours(list.Hooks, file.Path) {
		if h.TrustStatus != "trusted" && h.TrustStatus != "managed" {
			untrusted = append(untrusted, h)
			res.Hooks = append(res.Hooks, h.Key)
		}
	}
	if err := app.TrustHooks(untrusted); err != nil {
		return nil, err
	}
	list, err = app.Hooks(workspace)
	if err != nil {
		return nil, err
	}
	got := ours(list.Hooks, file.Path)
	if len(got) == 0 {
		return res, fmt.Errorf("codex lists none of agent-hooks' hooks of %s (%s)", file.Path, strings.Join(append(list.Warnings, list.Errors...), "; "))
	}
	for _, h := range got {
		if h.TrustStatus != "trusted" && h.TrustStatus != "managed" {
			return res, fmt.Errorf("codex still does not trust %s (%s)", h.Key, h.TrustStatus)
		}
	}
	return res, nil
}

// ours are agent-hooks' Codex hooks from the file at path (Codex may name it by its real
// path: /tmp under /private on macOS).
func ours(hooks []CodexHook, path string) []CodexHook {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	var out []CodexHook
	for _, h := range hooks {
		if (h.SourcePath == path || h.SourcePath == real) && Codex.Owns(h.Command) {
			out = append(out, h)
		}
	}
	return out
}
