package hostsettings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/autoagent/agent-hooks/configedit"
)

// Hooks are the hooks install registers: `agent-hooks hook <host> --timeout T` on each of the
// host's events, with the host's timeout T (within the host's cap for the event), so that
// agent-hooks and the host agree on the deadline.
func (h *Spec) Hooks(timeout int) []configedit.HostHook {
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
func (h *Spec) written(seconds int) int {
	if h.Millis {
		return seconds * 1000
	}
	return seconds
}

// IgnoredError is a settings file the host ignores as it is: install refuses to add hooks that
// would never run.
type IgnoredError struct {
	Spec     *Spec
	Findings []Finding
}

func (e *IgnoredError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s ignores every hook in this file as it is; fix it first:", e.Spec.Title)
	for _, f := range e.Findings {
		if f.Effect == FileIgnored {
			b.WriteString("\n  " + f.String())
		}
	}
	return b.String()
}

// RejectedError is a set of hooks install would write that doctor rejects (a timeout the host
// reads in another unit): install writes nothing.
type RejectedError struct {
	Spec     *Spec
	Findings []Finding // one per problem, without a place: the hooks are not written anywhere
}

func (e *RejectedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s would not run these hooks as meant; nothing written:", e.Spec.Title)
	for _, f := range e.Findings {
		b.WriteString("\n  " + f.String())
	}
	return b.String()
}

// checkOwn holds agent-hooks' own hooks to what doctor accepts, checked alone as the host
// reads them, so that install never writes what doctor rejects.
func (h *Spec) checkOwn(want []configedit.HostHook) error {
	own, _, err := configedit.SetHostHooksIn(h.settingsShape(), nil, want, h.Owns)
	if err != nil {
		return err
	}
	var findings []Finding
	for _, f := range h.CheckSource("", own, nil) {
		f.Line, f.Col = 0, 0
		if !slices.Contains(findings, f) {
			findings = append(findings, f)
		}
	}
	if len(findings) > 0 {
		return &RejectedError{Spec: h, Findings: findings}
	}
	return nil
}

// Install merges agent-hooks' hooks (Hooks(timeout)) into the settings file at path, creating
// it when missing, and keeps everything else in it byte for byte. It reports whether the file
// changed (not when they were already there). A file the host ignores is left alone
// (*IgnoredError), and so are hooks doctor would reject (*RejectedError).
func (h *Spec) Install(path string, timeout int) (bool, error) {
	if h.Scripts {
		return installScripts(h, path, timeout)
	}
	if h.Plugin != nil {
		return installPlugin(h, path, timeout)
	}
	want := h.Hooks(timeout)
	if err := h.checkOwn(want); err != nil {
		return false, err
	}
	shape := h.settingsShape()
	return configedit.Update(path, func(src []byte) ([]byte, bool, error) {
		if len(bytes.TrimSpace(src)) == 0 {
			return configedit.SetHostHooksIn(shape, src, want, h.Owns)
		}
		if fs := h.CheckSource(path, src, nil); Ignored(fs) {
			return nil, false, &IgnoredError{Spec: h, Findings: fs}
		}
		return configedit.SetHostHooksIn(shape, src, want, h.Owns)
	})
}

// Uninstall takes agent-hooks' hooks for the host out of the settings file at path, keeping
// everything else; a missing file is left missing.
func (h *Spec) Uninstall(path string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if h.Scripts {
		return uninstallScripts(h, path)
	}
	if h.Plugin != nil {
		return uninstallPlugin(h, path)
	}
	return configedit.Update(path, func(src []byte) ([]byte, bool, error) {
		return configedit.SetHostHooksIn(h.settingsShape(), src, nil, h.Owns)
	})
}
