// Package fresher reads fresher's hooks (.fresher/hooks/started, next_iteration, finished) and
// runs them the way fresher v2's run_hook (src/hooks.rs) does: the file itself is executed in the
// workspace with the FRESHER_* variables of package seedfmt and fresher's exit-code conventions —
// 0 continue; 1 skip, which only next_iteration heeds (the iteration is skipped; started and
// finished go on silently); 2 abort, which started and next_iteration heed (the loop ends with
// FRESHER_FINISH_TYPE=manual, as fresher's set_finish(Manual)) and finished ignores; anything
// else, 124 included, an error that is logged and the loop goes on.
//
// Settings are fresher's: .fresher/config.toml [hooks] enabled and timeout (seconds; defaults
// true and 30 without the file), overridden by FRESHER_HOOKS_ENABLED (enabled only when it
// lowercases to "true") and FRESHER_HOOK_TIMEOUT (a u32, else ignored). A config.toml fresher
// would refuse to start with ([hooks] missing, a wrong type) is an error naming file:line:col.
// [fresher] mode is FRESHER_MODE unless the payload or the environment sets it.
//
// agent-hooks adds, beyond fresher: FRESHER_HOOK_<NAME>_ENABLED=false disables one hook (recorded
// as skipped), a hook file that is not executable is a warning, and scripts under
// .fresher/hooks/custom/ (called by the main hooks) are checked to be executable.
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
	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// Name is the format's name in sources and `config show`.
const Name = "fresher"

// DefaultTimeout is fresher's hook timeout without config.toml.
const DefaultTimeout = 30 * time.Second

// FinishAbort is FRESHER_FINISH_TYPE after a hook asked to abort (exit 2): fresher v2 ends the
// loop with FinishType::Manual (v1's hook_abort is gone).
const FinishAbort = "manual"

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
	set, diags, err := readSettings(env, getenv)
	if err != nil || hasError(diags) {
		return nil, diags, err
	}

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
			Timeout: set.Timeout,
			Enabled: set.Enabled && !disabled(getenv(enableVar)),
			Source:  hooks.Source{Format: Name, Scope: "project", File: path},
			Dialect: Dialect{Mode: set.Mode},
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

func hasError(diags []hooks.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == hooks.SeverityError {
			return true
		}
	}
	return false
}

// disabled reports whether agent-hooks' per-hook enable switch says no.
func disabled(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

// Dialect runs a fresher hook file.
type Dialect struct {
	Mode string // config.toml's [fresher] mode: FRESHER_MODE unless the payload or environment sets it
}

// Prepare implements hooks.Dialect: the hook file runs directly with the FRESHER_* variables and
// the payload on stdin.
func (d Dialect) Prepare(inv *hooks.Invocation) (process.Process, error) {
	stdin, err := seedfmt.PayloadJSON(inv.Payload)
	if err != nil {
		return process.Process{}, err
	}
	env := seedfmt.FresherEnv(inv.Payload, inv.Workspace)
	if _, ok := inv.Payload["mode"]; !ok && d.Mode != "" && (inv.Getenv == nil || inv.Getenv("FRESHER_MODE") == "") {
		env = append(env, "FRESHER_MODE="+d.Mode)
	}
	env = append(env, "FRESHER_HOOK_TIMEOUT="+strconv.Itoa(int(inv.Hook.Timeout/time.Second)))
	return process.Process{Argv: []string{inv.Hook.Command}, Env: env, Stdin: stdin}, nil
}

// Interpret implements hooks.Dialect with fresher's exit-code conventions.
func (Dialect) Interpret(inv *hooks.Invocation, p *process.Result) hooks.Outcome {
	name := inv.Hook.Name
	o, done := seedfmt.Finish(p)
	if done {
		if o.Status == hooks.StatusTimeout {
			o.Reason = fmt.Sprintf("hook %s timed out after %s", name, inv.Hook.Timeout)
		}
		return o
	}
	switch {
	case p.ExitCode == 0:
	case p.ExitCode == 1 && inv.Event == hooks.PreIteration:
		o.Decision, o.Reason = hooks.DecisionSkip, fmt.Sprintf("hook %s asked to skip the iteration (exit 1): %s", name, seedfmt.Reason(p))
	case p.ExitCode == 2 && inv.Event != hooks.SessionEnd:
		o.Status, o.Decision = hooks.StatusBlocked, hooks.DecisionBlock
		o.Reason = fmt.Sprintf("hook %s requested abort (exit 2): %s", name, seedfmt.Reason(p))
		o.Set = hooks.Payload{"finishType": FinishAbort}
		o.Details = map[string]any{"finishType": FinishAbort}
	case p.ExitCode == 1 || p.ExitCode == 2:
		// a skip outside next_iteration, an abort from finished: fresher goes on silently
	default:
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %s failed with exit code %d: %s", name, p.ExitCode, seedfmt.Reason(p))
	}
	return o
}
