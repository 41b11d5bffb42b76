// Package fresher reads fresher's hooks (.fresher/hooks/started, next_iteration, finished) and
// runs them the way fresher's run_hook does: the file itself is executed with the FRESHER_*
// variables of package seedfmt, a timeout of FRESHER_HOOK_TIMEOUT seconds (default 30), and
// fresher's exit-code conventions — 0 continue, 1 warning (skip the iteration on next_iteration),
// 2 abort (FRESHER_FINISH_TYPE=hook_abort), 124 timeout, anything else an error that is logged.
//
// FRESHER_HOOKS_ENABLED=false disables every hook and FRESHER_HOOK_<NAME>_ENABLED=false one of
// them (recorded as skipped). A hook file that is not executable is a warning, as in fresher.
// Scripts under .fresher/hooks/custom/ are not lifecycle hooks: the main hooks call them (they run
// in the workspace, so the relative path works) and loading only checks that they are executable.
package fresher

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// Name is the format's name in sources and `config show`.
const Name = "fresher"

// DefaultTimeout is fresher's hook timeout when FRESHER_HOOK_TIMEOUT is not set.
const DefaultTimeout = 30 * time.Second

// FinishAbort is FRESHER_FINISH_TYPE after a hook asked to abort (exit 2).
const FinishAbort = "hook_abort"

// points are fresher's hook files and the canonical events they run on.
var points = seedfmt.Points{
	{Name: "started", Event: hooks.SessionStart},
	{Name: "next_iteration", Event: hooks.PreIteration},
	{Name: "finished", Event: hooks.SessionEnd},
}

// Format loads .fresher/hooks.
type Format struct {
	// Now is the clock of the loop's start time (nil: time.Now).
	Now func() time.Time
}

// New returns the fresher format.
func New() Format { return Format{} }

// Name implements hooks.Format.
func (Format) Name() string { return Name }

// Load implements hooks.Format. With hooks comes the extension that keeps the loop's start time
// and finish type across events.
func (f Format) Load(env hooks.LoadEnv) (hooks.Loaded, error) {
	hs, diags, err := readHooks(env)
	if err != nil || len(hs) == 0 {
		return hooks.Loaded{Diagnostics: diags}, err
	}
	return hooks.Loaded{Hooks: hs, Diagnostics: diags, Extension: &extension{now: f.Now}}, nil
}

// readHooks finds the hooks of .fresher/hooks.
func readHooks(env hooks.LoadEnv) ([]*hooks.Hook, []hooks.Diagnostic, error) {
	dir := filepath.Join(env.Workspace, ".fresher", "hooks")
	if k, err := seedfmt.Stat(dir); err != nil || k != seedfmt.NotRegular {
		return nil, nil, err
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var diags []hooks.Diagnostic
	timeout := DefaultTimeout
	if s := getenv("FRESHER_HOOK_TIMEOUT"); s != "" {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			diags = append(diags, seedfmt.Warning(dir, 0, 0, "FRESHER_HOOK_TIMEOUT=%q is not a positive number of seconds; using %d", s, int(DefaultTimeout/time.Second)))
		} else {
			timeout = time.Duration(n) * time.Second
		}
	}
	allEnabled := !disabled(getenv("FRESHER_HOOKS_ENABLED"))

	var out []*hooks.Hook
	for _, p := range points {
		path := filepath.Join(dir, p.Name)
		kind, err := seedfmt.Stat(path)
		if err != nil {
			return nil, nil, err
		}
		switch kind {
		case seedfmt.Missing:
			continue
		case seedfmt.NotRegular:
			diags = append(diags, seedfmt.Warning(path, 0, 0, "hook %s is not a regular file; it will not run", p.Name))
			continue
		case seedfmt.NotExecutable:
			diags = append(diags, seedfmt.Warning(path, 0, 0, "hook %s exists but is not executable (chmod +x %s); it will not run", p.Name, path))
			continue
		}
		enableVar := "FRESHER_HOOK_" + strings.ToUpper(p.Name) + "_ENABLED"
		out = append(out, &hooks.Hook{
			Name:    p.Name,
			Type:    hooks.TypeCommand,
			Event:   p.Event,
			Command: path,
			Timeout: timeout,
			Enabled: allEnabled && !disabled(getenv(enableVar)),
			Source:  hooks.Source{Format: Name, Scope: "project", File: path},
			Dialect: Dialect{},
		})
	}
	more, err := checkDir(dir)
	if err != nil {
		return nil, nil, err
	}
	return out, append(diags, more...), nil
}

// checkDir reports files in .fresher/hooks that look like misnamed hooks, and custom hooks that
// cannot run.
func checkDir(dir string) ([]hooks.Diagnostic, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var diags []hooks.Diagnostic
	known := points.Names()
	for _, e := range entries {
		name := e.Name()
		if name == "custom" || strings.HasPrefix(name, ".") || slices.Contains(known, name) {
			continue
		}
		path := filepath.Join(dir, name)
		kind, err := seedfmt.Stat(path)
		if err != nil {
			return nil, err
		}
		// An executable file is meant to run; a near miss of a hook name is a typo. Anything else
		// (a README) is left alone.
		if kind == seedfmt.Executable || hooks.Suggest(name, known) != "" {
			diags = append(diags, seedfmt.Warning(path, 0, 0, "%s; it will not run", seedfmt.UnknownPoint(Name, name, known)))
		}
	}
	custom := filepath.Join(dir, "custom")
	entries, err = os.ReadDir(custom)
	if err != nil {
		return diags, nil // no custom hooks
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		path := filepath.Join(custom, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if kind, err := seedfmt.Stat(path); err != nil {
			return nil, err
		} else if kind == seedfmt.NotExecutable {
			diags = append(diags, seedfmt.Warning(path, 0, 0, "custom hook %s is not executable (chmod +x %s)", e.Name(), path))
		}
	}
	return diags, nil
}

// disabled reports whether an enable switch says no.
func disabled(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

// Dialect runs a fresher hook file.
type Dialect struct{}

// Prepare implements hooks.Dialect: the hook file runs directly with the FRESHER_* variables and
// the payload on stdin.
func (Dialect) Prepare(inv *hooks.Invocation) (hooks.Process, error) {
	stdin, err := seedfmt.PayloadJSON(inv.Payload)
	if err != nil {
		return hooks.Process{}, err
	}
	env := seedfmt.FresherEnv(inv.Payload, inv.Workspace)
	env = append(env, "FRESHER_HOOK_TIMEOUT="+strconv.Itoa(int(inv.Hook.Timeout/time.Second)))
	return hooks.Process{Argv: []string{inv.Hook.Command}, Env: env, Stdin: stdin}, nil
}

// Interpret implements hooks.Dialect with fresher's exit-code conventions.
func (Dialect) Interpret(inv *hooks.Invocation, p *hooks.ProcessResult) hooks.Outcome {
	name := inv.Hook.Name
	o, done := seedfmt.Finish(p)
	if done {
		if o.Status == hooks.StatusTimeout {
			o.Reason = fmt.Sprintf("hook %s timed out after %s", name, inv.Hook.Timeout)
		}
		return o
	}
	switch p.ExitCode {
	case 0:
	case 1:
		if inv.Event == hooks.PreIteration {
			o.Decision, o.Reason = hooks.DecisionSkip, fmt.Sprintf("hook %s asked to skip the iteration (exit 1): %s", name, seedfmt.Reason(p))
		} else {
			o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %s returned warning (exit 1): %s", name, seedfmt.Reason(p))
		}
	case 2:
		o.Status, o.Decision = hooks.StatusBlocked, hooks.DecisionBlock
		o.Reason = fmt.Sprintf("hook %s requested abort (exit 2): %s", name, seedfmt.Reason(p))
		o.Set = hooks.Payload{"finishType": FinishAbort}
		o.Details = map[string]any{"finishType": FinishAbort}
	case 124:
		o.Status, o.Reason = hooks.StatusTimeout, fmt.Sprintf("hook %s timed out (exit 124)", name)
	default:
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %s failed with exit code %d: %s", name, p.ExitCode, seedfmt.Reason(p))
	}
	return o
}
