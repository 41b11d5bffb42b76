// Package babysitter reads babysitter's directory-discovered hooks and runs them the way its
// generic hook dispatcher (plugins/babysitter/hooks/hook-dispatcher.sh) does. A hook type is a
// directory named after it in one of three locations, run in this order:
//
//	.a5c/hooks/<type>/                                          per-repo  (scope project)
//	${XDG_CONFIG_HOME:-~/.config}/babysitter/hooks/<type>/      per-user  (scope user)
//	$CLAUDE_PLUGIN_ROOT/hooks/<type>/ or plugins/babysitter/hooks/<type>/   plugin
//
// The plugin location is the installed plugin's ($CLAUDE_PLUGIN_ROOT, when its hooks directory
// holds hook-dispatcher.sh), else the workspace's plugins/babysitter.
//
// As the dispatcher's `find -maxdepth 1 -name "*.sh" -type f -executable | sort`, a hook is a
// regular executable file whose name ends in .sh (dot-files included; not a symbolic link), run
// in byte order of its name (sort under the C locale). A .sh file that is not executable, an
// executable without .sh and a symbolic link are warnings. Each hook gets the payload as the SDK
// sends it (with hookType and an ISO-8601 timestamp) on stdin followed by a newline, and in
// $HOOK_PAYLOAD, with HOOK_TYPE set to the hook type, REPO_ROOT to the workspace and
// CLAUDE_PLUGIN_ROOT to the plugin; every hook also gets $BREAKPOINT_PAYLOAD, the same payload, as
// babysitter's hooks document promises (upstream's breakpoint dispatcher sets it for
// on-breakpoint hooks only, and no upstream hook reads it elsewhere). Exit 0 is success; any other exit is a failure that is recorded
// and never stops the other hooks nor blocks the event. Each hook has the SDK's 30 seconds.
// The format's extension adds the SDK's HookResult fields to the result: "executedHooks" and
// "output" (the hooks' stdout, parsed as JSON when it is JSON).
//
// Directory names are babysitter's hook types: on-run-start, on-iteration-start, on-task-start,
// on-task-complete, on-iteration-end, on-run-complete, on-run-fail, on-breakpoint, pre-commit and
// on-error run on their canonical events (SPEC.md section 2). on-run-complete and on-run-fail share
// SessionEnd, and each runs only its own hooks: `run on-run-fail` the on-run-fail folder and
// `run on-run-complete` the on-run-complete folder, whatever the payload says, as babysitter's SDK
// dispatches the one it chose. SessionEnd fired under another name (`session end`) runs
// on-run-fail when the payload describes a failed run (its status is failed, failure, error or
// errored, its success is false, or it carries an error), else on-run-complete. Other names
// (on-score, pre-branch, post-planning, …) are events of their own name.
package babysitter

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
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
	"github.com/autoagent/agent-hooks/hooks/template"
)

// Name is the format's name in sources and `config show`.
const Name = "babysitter"

// knownTypes are the hook types babysitter documents.
var knownTypes = []string{
	"on-run-start", "on-run-complete", "on-run-fail", "on-task-start", "on-task-complete",
	"on-step-dispatch", "on-iteration-start", "on-iteration-end", "on-breakpoint", "pre-commit",
	"pre-branch", "post-planning", "on-score", "on-error", "on-step",
}

// RunOutcomeKey is the payload field the format's extension sets on SessionEnd: "fail" when
// on-run-fail was fired (or, fired as SessionEnd, the run failed), else "complete". on-run-fail
// and on-run-complete hooks match on it, so only one of them runs.
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

// DispatchTimeout is what babysitter's SDK gives a hook dispatch (callHook's default).
const DispatchTimeout = 30 * time.Second

// Locations lists the hook locations of env in priority order; the per-user one is left out
// when the project disables user hooks.
func Locations(env hooks.LoadEnv) []Location {
	locs := []Location{{filepath.Join(env.Workspace, ".a5c", "hooks"), "per-repo", "project"}}
	if dir := userDir(env); dir != "" && !env.DisableUserHooks {
		locs = append(locs, Location{dir, "per-user", "user"})
	}
	return append(locs, Location{filepath.Join(PluginRoot(env), "hooks"), "plugin", "plugin"})
}

// userDir is the dispatcher's USER_HOOKS_DIR, ${XDG_CONFIG_HOME:-$HOME/.config}/babysitter/hooks
// ("" without either).
func userDir(env hooks.LoadEnv) string {
	base := seedfmt.ConfigHome(env)
	if base == "" {
		return ""
	}
	return filepath.Join(base, "babysitter", "hooks")
}

// PluginRoot is the babysitter plugin whose hooks run last: $CLAUDE_PLUGIN_ROOT when it holds
// hooks/hook-dispatcher.sh (the plugin Claude Code installed, where the SDK looks first), else
// the workspace's plugins/babysitter.
func PluginRoot(env hooks.LoadEnv) string {
	if env.Getenv != nil {
		if root := env.Getenv("CLAUDE_PLUGIN_ROOT"); root != "" && filepath.IsAbs(root) {
			if k, err := seedfmt.Stat(filepath.Join(root, "hooks", "hook-dispatcher.sh")); err == nil && k != seedfmt.Missing {
				return root
			}
		}
	}
	return filepath.Join(env.Workspace, "plugins", "babysitter")
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
	pluginRoot := PluginRoot(env)
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

// scan lists the hooks of one type folder as the dispatcher's
// `find "$dir" -maxdepth 1 -name "*.sh" -type f -executable | sort` does.
func scan(dir, typ, event string, loc Location, pluginRoot string) ([]*hooks.Hook, []hooks.Diagnostic, error) {
	entries, err := os.ReadDir(dir) // sorted by name, bytewise: sort under the C locale
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var (
		out   []*hooks.Hook
		diags []hooks.Diagnostic
	)
	for _, e := range entries {
		name, path := e.Name(), filepath.Join(dir, e.Name())
		kind, err := seedfmt.Stat(path)
		if err != nil {
			return nil, nil, err
		}
		isSh := strings.HasSuffix(name, ".sh")
		switch {
		case kind != seedfmt.Executable && kind != seedfmt.NotExecutable:
			continue // a directory, a dangling link
		case !isSh:
			if kind == seedfmt.Executable && !strings.HasSuffix(name, ".example") && !strings.HasPrefix(name, ".") {
				diags = append(diags, seedfmt.Warning(path, 0, 0, "babysitter runs only *.sh files; %s will not run", name))
			}
			continue
		case e.Type()&fs.ModeSymlink != 0:
			diags = append(diags, seedfmt.Warning(path, 0, 0, "hook is a symbolic link; babysitter's dispatcher runs only regular files (find -type f), so it will not run"))
			continue
		case kind == seedfmt.NotExecutable:
			diags = append(diags, seedfmt.Warning(path, 0, 0, "hook is not executable (chmod +x %s); it will not run", path))
			continue
		}
		out = append(out, &hooks.Hook{
			Name:    typ + "/" + name,
			Type:    hooks.TypeCommand,
			Event:   event,
			Command: path,
			Timeout: DispatchTimeout,
			Enabled: true,
			Source:  hooks.Source{Format: Name, Scope: loc.Scope, File: path},
			Dialect: Dialect{Type: typ, Location: loc.Label, PluginRoot: pluginRoot},
			Matcher: runMatchers[typ],
		})
	}
	return out, diags, nil
}

// Dialect runs one babysitter hook file.
type Dialect struct {
	Type       string // the hook type: the folder's name
	Location   string // per-repo, per-user or plugin
	PluginRoot string // CLAUDE_PLUGIN_ROOT, when there is a plugin
}

// isoMillis is JavaScript's Date.toISOString, the SDK's timestamp.
const isoMillis = "2006-01-02T15:04:05.000Z"

// Prepare implements hooks.Dialect: the file runs as the generic dispatcher runs it, with the
// SDK's payload (hookType, an ISO-8601 timestamp) on stdin and in HOOK_PAYLOAD, and HOOK_TYPE.
func (d Dialect) Prepare(inv *hooks.Invocation) (process.Process, error) {
	p := maps.Clone(inv.Payload)
	if p == nil {
		p = hooks.Payload{}
	}
	p["hookType"] = d.Type
	if ms, err := strconv.ParseInt(template.FormatValue(p["timestamp"]), 10, 64); err == nil {
		p["timestamp"] = time.UnixMilli(ms).UTC().Format(isoMillis)
	}
	payload, err := seedfmt.PayloadJSON(p)
	if err != nil {
		return process.Process{}, err
	}
	// BREAKPOINT_PAYLOAD for every type, as babysitter's hooks document gives it to every hook
	// (upstream's generic dispatcher sets it only in on-breakpoint-dispatcher.sh).
	vars := []string{"HOOK_PAYLOAD", "BREAKPOINT_PAYLOAD"}
	env := []string{"HOOK_TYPE=" + d.Type, seedfmt.RepoRootEnv(inv.Workspace)}
	var cleanups []func()
	cleanup := func() {
		for _, c := range cleanups {
			c()
		}
	}
	for _, name := range vars {
		v, c, err := hooks.PayloadEnv(name, payload)
		if err != nil {
			cleanup()
			return process.Process{}, err
		}
		env, cleanups = append(env, v), append(cleanups, c)
	}
	if d.PluginRoot != "" {
		env = append(env, "CLAUDE_PLUGIN_ROOT="+d.PluginRoot)
	}
	// the dispatcher's `echo "$HOOK_PAYLOAD" | "$hook"`: the payload and a newline
	stdin := append(payload, '\n')
	return process.Process{Argv: []string{inv.Hook.Command}, Env: env, Stdin: stdin, Cleanup: cleanup}, nil
}

// Interpret implements hooks.Dialect: non-zero is a failure, never a block.
func (d Dialect) Interpret(inv *hooks.Invocation, p *process.Result) hooks.Outcome {
	o, done := seedfmt.Finish(p)
	if !done && p.ExitCode != 0 {
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %s failed with exit code %d: %s", inv.Hook.Name, p.ExitCode, seedfmt.Reason(p))
	}
	o.Details = map[string]any{"hookPath": inv.Hook.Command, "location": d.Location}
	return o
}
