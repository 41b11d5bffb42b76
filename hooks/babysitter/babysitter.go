// Package babysitter reads babysitter's directory-discovered hooks and runs them the way its
// hook dispatcher does. A hook type is a directory named after it in one of three locations,
// highest priority first:
//
//	.a5c/hooks/<name>/                        per-repo  (scope project)
//	~/.config/babysitter/hooks/<name>/        per-user  (scope user)
//	plugins/babysitter/hooks/<name>/          plugin    (scope plugin, in the workspace)
//
// Every executable file in such a directory is a hook; they run location by location in that
// order and alphabetically within one. Each gets the payload as JSON on stdin and in
// $BREAKPOINT_PAYLOAD, with REPO_ROOT set to the workspace (and CLAUDE_PLUGIN_ROOT when the
// workspace has plugins/babysitter). Exit 0 is success; any other exit is a failure that is
// recorded and never stops the other hooks nor blocks the event. The format's extension
// aggregates the event's babysitter hooks into the result's "executedHooks", as the dispatcher's
// result does.
//
// Directory names are babysitter's hook types: on-run-start, on-iteration-start, on-task-start,
// on-task-complete, on-iteration-end, on-run-complete, on-run-fail, on-breakpoint, pre-commit and
// on-error run on their canonical events (SPEC.md section 2). on-run-complete and on-run-fail share
// SessionEnd: the first runs when the run succeeded, the second when it failed (the payload's
// status is failed, failure, error or errored, its success is false, or it carries an error). Other names (on-score, pre-branch, post-planning, …)
// are events of their own name.
package babysitter

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// Name is the format's name in sources and `config show`.
const Name = "babysitter"

// knownTypes are the hook types babysitter documents.
var knownTypes = []string{
	"on-run-start", "on-run-complete", "on-run-fail", "on-task-start", "on-task-complete",
	"on-step-dispatch", "on-iteration-start", "on-iteration-end", "on-breakpoint", "pre-commit",
	"pre-branch", "post-planning", "on-score", "on-error", "on-step",
}

// RunOutcomeKey is the payload field the format's extension sets on SessionEnd: "fail" for a
// failed run, else "complete". on-run-fail and on-run-complete hooks match on it, so only one of
// them runs.
const RunOutcomeKey = "babysitterRunOutcome"

// runMatchers restrict the two hook types that share SessionEnd to their outcome.
var runMatchers = map[string]*hooks.Matcher{
	"on-run-complete": {Field: RunOutcomeKey, Regex: "^complete$"},
	"on-run-fail":     {Field: RunOutcomeKey, Regex: "^fail$"},
}

// Location is one place hooks are discovered.
type Location struct {
	Dir   string // the hooks directory holding <name>/ folders
	Label string // babysitter's name for it: per-repo, per-user, plugin
	Scope string // the hook source scope
}

// Locations lists the hook locations of env in priority order; the per-user one is left out
// when the project disables user hooks.
func Locations(env hooks.LoadEnv) []Location {
	locs := []Location{{filepath.Join(env.Workspace, ".a5c", "hooks"), "per-repo", "project"}}
	if env.UserHome != "" && !env.DisableUserHooks {
		locs = append(locs, Location{filepath.Join(env.UserHome, ".config", "babysitter", "hooks"), "per-user", "user"})
	}
	return append(locs, Location{filepath.Join(env.Workspace, "plugins", "babysitter", "hooks"), "plugin", "plugin"})
}

// Format discovers babysitter hooks.
type Format struct{}

// New returns the babysitter format.
func New() Format { return Format{} }

// Name implements hooks.Format.
func (Format) Name() string { return Name }

// Load implements hooks.Format. With hooks comes the extension that reports them as babysitter's
// dispatcher does.
func (Format) Load(env hooks.LoadEnv) (hooks.Loaded, error) {
	hs, diags, err := readHooks(env)
	if err != nil || len(hs) == 0 {
		return hooks.Loaded{Diagnostics: diags}, err
	}
	return hooks.Loaded{Hooks: hs, Diagnostics: diags, Extension: extension{}}, nil
}

// readHooks finds the hooks of every location, in run order.
func readHooks(env hooks.LoadEnv) ([]*hooks.Hook, []hooks.Diagnostic, error) {
	pluginRoot := filepath.Join(env.Workspace, "plugins", "babysitter")
	if k, err := seedfmt.Stat(pluginRoot); err != nil || k != seedfmt.NotRegular {
		pluginRoot = ""
	}
	var (
		diags []hooks.Diagnostic
		found = map[string][]*hooks.Hook{} // hook type -> hooks in run order
	)
	for _, loc := range Locations(env) {
		entries, err := os.ReadDir(loc.Dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", loc.Dir, err)
		}
		for _, e := range entries { // os.ReadDir sorts by name
			name := e.Name()
			dir := filepath.Join(loc.Dir, name)
			if strings.HasPrefix(name, ".") {
				continue
			}
			if k, err := seedfmt.Stat(dir); err != nil {
				return nil, nil, err
			} else if k != seedfmt.NotRegular {
				continue // a file beside the type folders: the dispatcher scripts themselves
			}
			event, ok := eventOf(name)
			if !ok {
				diags = append(diags, seedfmt.Warning(dir, 0, 0, "%q is not a valid hook type name; its hooks will not run", name))
				continue
			}
			if !slices.Contains(knownTypes, name) {
				if s := hooks.Suggest(name, knownTypes); s != "" {
					diags = append(diags, seedfmt.Warning(dir, 0, 0, "unknown babysitter hook type %q; did you mean %q? (its hooks run only on the event %s)", name, s, name))
				}
			}
			hs, more, err := scan(dir, name, event, loc, pluginRoot)
			if err != nil {
				return nil, nil, err
			}
			found[name] = append(found[name], hs...)
			diags = append(diags, more...)
		}
	}
	names := make([]string, 0, len(found))
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*hooks.Hook
	for _, n := range names {
		out = append(out, found[n]...)
	}
	return out, diags, nil
}

// eventOf is the event a hook type runs on.
func eventOf(name string) (string, bool) {
	if c, ok := hooks.Canonical(name, nil); ok {
		return c, true
	}
	return name, hooks.ValidEventName(name)
}

func scan(dir, typ, event string, loc Location, pluginRoot string) ([]*hooks.Hook, []hooks.Diagnostic, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var (
		out   []*hooks.Hook
		diags []hooks.Diagnostic
	)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		kind, err := seedfmt.Stat(path)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case kind == seedfmt.NotExecutable && strings.HasSuffix(e.Name(), ".sh"):
			diags = append(diags, seedfmt.Warning(path, 0, 0, "hook is not executable (chmod +x %s); it will not run", path))
			continue
		case kind != seedfmt.Executable:
			continue
		}
		h := &hooks.Hook{
			Name:    typ + "/" + e.Name(),
			Type:    hooks.TypeCommand,
			Event:   event,
			Command: path,
			Enabled: true,
			Source:  hooks.Source{Format: Name, Scope: loc.Scope, File: path},
			Dialect: Dialect{Location: loc.Label, PluginRoot: pluginRoot},
		}
		h.Matcher = runMatchers[typ]
		out = append(out, h)
	}
	return out, diags, nil
}

// Dialect runs one babysitter hook file.
type Dialect struct {
	Location   string // per-repo, per-user or plugin
	PluginRoot string // CLAUDE_PLUGIN_ROOT, when the workspace has the plugin
}

// Prepare implements hooks.Dialect: the file runs with the payload on stdin and in
// BREAKPOINT_PAYLOAD.
func (d Dialect) Prepare(inv *hooks.Invocation) (hooks.Process, error) {
	payload, err := seedfmt.PayloadJSON(inv.Payload)
	if err != nil {
		return hooks.Process{}, err
	}
	payloadVar, cleanup, err := hooks.PayloadEnv("BREAKPOINT_PAYLOAD", payload)
	if err != nil {
		return hooks.Process{}, err
	}
	env := []string{payloadVar, seedfmt.RepoRootEnv(inv.Workspace)}
	if d.PluginRoot != "" {
		env = append(env, "CLAUDE_PLUGIN_ROOT="+d.PluginRoot)
	}
	return hooks.Process{Argv: []string{inv.Hook.Command}, Env: env, Stdin: payload, Cleanup: cleanup}, nil
}

// Interpret implements hooks.Dialect: non-zero is a failure, never a block.
func (d Dialect) Interpret(inv *hooks.Invocation, p *hooks.ProcessResult) hooks.Outcome {
	o, done := seedfmt.Finish(p)
	if !done && p.ExitCode != 0 {
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %s failed with exit code %d: %s", inv.Hook.Name, p.ExitCode, seedfmt.Reason(p))
	}
	o.Details = map[string]any{"hookPath": inv.Hook.Command, "location": d.Location}
	return o
}
