// Package hostsettings owns the coding agents' hook settings as agent-hooks installs into them,
// for any agent: the settings files and folders an agent reads its hooks from, the entries
// `agent-hooks install` merges into them and `uninstall` takes out, and the checks of
// `agent-hooks doctor` — everything that makes an agent silently run no hook at all (a settings
// file it ignores, an event it does not know, agent-hooks not on the agent's PATH). What differs
// between agents is a Spec, which each agent's own package (agents/<agent>) declares; nothing here
// names an agent.
package hostsettings

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/configedit"
)

// Spec is one agent's hook settings: where they are, what they hold, and how the agent reads
// them. Its package (agents/<agent>) declares it; install, uninstall and doctor work from it.
type Spec struct {
	Name  string // the agent's name on the command line: "claude", "codex"
	Title string // the product's name
	// Events are the agent's events `agent-hooks hook <name>` answers: install registers it on
	// each of them.
	Events []string
	// Known are every event name the agent fires; hooks under any other name never run.
	Known []string
	// MaxTimeout caps an event's timeout (seconds) where the agent caps it whatever the settings
	// say (Claude: SessionEnd's whole batch at 60 s; Codex: SessionEnd hooks at 3 s).
	MaxTimeout map[string]int
	// HookTypes are the hook types the agent runs.
	HookTypes []string
	// Millis is set when the agent's timeouts are milliseconds; --timeout stays seconds.
	Millis bool
	// FailClosed are the events whose agent-hooks entry must say "failClosed": true, without
	// which the agent lets the action through when agent-hooks crashes or times out.
	FailClosed []string
	// EventFlag: the agent's input names no event, so the command install writes says it
	// (--event).
	EventFlag bool
	// Scripts: the agent has no settings file but runs one executable per event from folders;
	// Files are those folders, and ScriptExtensions the extensions it runs a hook file by.
	Scripts          bool
	ScriptExtensions []string
	// ScriptNeverRuns are the events whose hook files the agent reads but never runs, and why.
	ScriptNeverRuns map[string]string
	// Plugin: the agent runs no hook commands but loads code files from folders (OpenCode's
	// plugins); Files are those folders, and install writes one file of agent-hooks' own there
	// that runs `agent-hooks hook <name>` for every event (Plugin's).
	Plugin *Plugin
	// Shape is where the agent's settings keep a hook (zero: configedit.GroupedShape).
	Shape configedit.HostShape

	// Files lists the agent's hook settings files (folders, for Scripts), the user's first, then
	// the project's.
	Files func(env Env) []File
	// InstallFiles, when set, are the files install writes for the user and for the project
	// (else the first two of Files).
	InstallFiles func(env Env) (user, project File)
	// AlsoRuns are other agents whose settings files this agent runs too (by name), with the
	// scopes it reads of them: agent-hooks installed for both runs twice per event.
	AlsoRuns map[string][]Scope
	// AlsoRunsNote is doctor's note when agent-hooks is installed in one of those files: a
	// format of the file's path and the other agent's title ("" for a plain one).
	AlsoRunsNote string

	// What the agent makes of its files, for doctor's and install's checks: EmptyIgnored, the
	// agent ignores an empty settings file; GroupEffect, what a malformed matcher group does
	// (zero: the whole file is ignored); TypeRequired, what a hook without a "type" does (zero:
	// it is a command); SkippedTypes, hook types the agent reads and skips; FieldTypes, the types
	// its schema gives a hook's fields (nil: DefaultFieldTypes).
	EmptyIgnored bool
	GroupEffect  Effect
	TypeRequired Effect
	SkippedTypes []string
	FieldTypes   func(hookType string) map[string]FieldType
	// CheckRoot checks the settings' top level (switches that turn hooks off, a version the
	// file must say); done reports that it checked the whole file (a shape of its own).
	CheckRoot func(c *Checker, root map[string]any) (done bool)
	// NotEvents are keys of "hooks" that are switches, not events.
	NotEvents map[string]bool
	// CheckMatcher checks a matcher group's matcher.
	CheckMatcher func(c *Checker, event string, at []any, matcher string)

	// Help is what install's and hook's help say of the agent.
	Help Help
	// Vars are the environment variables agent-hooks reads for the agent (its folders, its
	// budget), for `agent-hooks help environment`: name, then meaning.
	Vars [][2]string

	// InstalledNotes are what doctor tells a user who installed agent-hooks for the agent.
	InstalledNotes []string
	// Doctor adds the agent's own checks to a report (trust, managed settings).
	DoctorChecks func(ctx context.Context, env Env, opt DoctorOptions, rep *Report) error
}

// DefaultTimeout is the timeout install writes (seconds): the hosts' own default for a hook.
const DefaultTimeout = 600

// Program is the name install writes for agent-hooks: found on the host's PATH, so that a
// project's settings work on every machine.
const Program = "agent-hooks"

// Command is the command install registers: `agent-hooks hook <host> --timeout N`. The hosts do
// not tell a hook its timeout, so agent-hooks is given the one the settings give the host, and
// answers (a deny where it cannot decide) before the host would kill it.
func (h *Spec) Command(timeout int) string {
	return Program + " hook " + h.Name + " --timeout " + strconv.Itoa(timeout)
}

// CommandFor is the command install registers on event: Command, with --event where the
// host's input does not name the event; without --timeout for Cline, whose timeout no setting
// changes (agent-hooks knows it).
func (h *Spec) CommandFor(event string, timeout int) string {
	if h.Scripts {
		return Program + " hook " + h.Name + " --event " + event
	}
	if h.Plugin != nil {
		return h.Command(timeout)
	}
	if h.EventFlag {
		return Program + " hook " + h.Name + " --event " + event + " --timeout " + strconv.Itoa(timeout)
	}
	return h.Command(timeout)
}

// flagValue is the value of a --flag in a command line, "" when it has none.
func FlagValue(cmd, flag string) string {
	f := strings.Fields(cmd)
	for i, a := range f {
		if a == flag && i+1 < len(f) {
			return f[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

// settingsShape is where the host's settings keep a hook.
func (h *Spec) settingsShape() configedit.HostShape {
	if h.Shape.CommandKey == "" {
		return configedit.GroupedShape
	}
	return h.Shape
}

// Timeout is the timeout install writes for event, in seconds: timeout, within the host's cap.
func (h *Spec) Timeout(event string, timeout int) int {
	if max, ok := h.MaxTimeout[event]; ok && timeout > max {
		return max
	}
	return timeout
}

// ownCommand parses a command as `[VAR=value…] …/agent-hooks hook <host> [flags…]`: ok is false
// for anything else. timeout is the --timeout value given, in seconds: a number ("600", "1.5")
// or a Go duration ("10m"), as agent-hooks hook reads it; 0 when none, -1 when unreadable.
func OwnCommand(cmd string) (program, host string, timeout float64, ok bool) {
	f := strings.Fields(cmd)
	for len(f) > 0 && strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-") {
		f = f[1:]
	}
	if len(f) < 3 || f[1] != "hook" {
		return "", "", 0, false
	}
	base := strings.TrimSuffix(filepath.Base(strings.Trim(f[0], `"'`)), ".exe")
	if base != Program {
		return "", "", 0, false
	}
	for i := 3; i < len(f); i++ {
		v, isTimeout := "", false
		switch {
		case f[i] == "--timeout" && i+1 < len(f):
			v, isTimeout = f[i+1], true
		case strings.HasPrefix(f[i], "--timeout="):
			v, isTimeout = strings.TrimPrefix(f[i], "--timeout="), true
		}
		if isTimeout {
			timeout = parseSeconds(v)
		}
	}
	return strings.Trim(f[0], `"'`), f[2], timeout, true
}

func parseSeconds(v string) float64 {
	d, err := ParseTimeout(v)
	if err != nil || d == 0 {
		return -1
	}
	return d.Seconds()
}

// ParseTimeout reads a --timeout of `agent-hooks hook` and `install`: a number of seconds, as
// the agents write their timeouts ("600", "1.5"), or a Go duration ("10m"); "" is none (0).
func ParseTimeout(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs <= 0 || secs > 1e6 {
			return 0, fmt.Errorf("want a positive number of seconds, got %s", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want seconds (600) or a duration (10m), got %q", s)
	}
	return d, nil
}

// InstallTimeout reads install's --timeout: a whole, positive number of seconds (as
// ParseTimeout reads it), which is what the agents' settings hold.
func InstallTimeout(s string) (int, error) {
	d, err := ParseTimeout(s)
	switch {
	case err != nil:
		return 0, err
	case d == 0:
		return 0, fmt.Errorf("want a positive number of seconds, got %q", s)
	case d%time.Second != 0:
		return 0, fmt.Errorf("want a whole number of seconds, got %s", d)
	}
	return int(d / time.Second), nil
}

// AgentHooksCommand reports whether a hook command runs `agent-hooks hook <host>`, for any host.
func AgentHooksCommand(cmd string) bool {
	_, _, _, ok := OwnCommand(cmd)
	return ok
}

// Owns reports whether a hook command is agent-hooks' for this host.
func (h *Spec) Owns(cmd string) bool {
	_, host, _, ok := OwnCommand(cmd)
	return ok && host == h.Name
}

// Scope is where a settings file applies.
type Scope string

// The scopes.
const (
	User    Scope = "user"    // the user's, for every project
	Project Scope = "project" // the project's, usually committed
	Local   Scope = "local"   // the project's, for this user only (Claude's settings.local.json)
)

// File is one of a host's settings files.
type File struct {
	Scope Scope
	Path  string
}

// Env is where a host's files are: the project's workspace, the user's home and environment.
type Env struct {
	Workspace string
	Home      string
	Getenv    func(string) string
	// GOOS is the system the agent runs on, for the places of its system-wide (managed)
	// settings; "" leaves those unchecked.
	GOOS string
	// SystemRoot is prepended to system-wide paths ("" is the file system's root): tests.
	SystemRoot string
}

// Var is the environment variable k ("" without an environment).
func (e Env) Var(k string) string { return e.getenv(k) }

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// InstallFile is the file install writes: the user's (user) or the project's.
func (h *Spec) InstallFile(env Env, user bool) File {
	var u, p File
	if h.InstallFiles != nil {
		u, p = h.InstallFiles(env)
	} else {
		files := h.Files(env)
		u, p = files[0], files[1]
	}
	if user {
		return u
	}
	return p
}

// Short writes a path for people: relative to the workspace inside it, else to the home (~/…).
func Short(env Env, path string) string {
	if rel := Rel(env.Workspace, path); rel != path {
		return rel
	}
	if rel := Rel(env.Home, path); rel != path {
		return filepath.Join("~", rel)
	}
	return path
}

// Help is what the commands' help says of one agent.
type Help struct {
	// Install says where install writes and what the agent's settings get (a paragraph).
	Install string
	// Hook says what `agent-hooks hook <agent>` needs to know of the agent (its budget, an input
	// that names no event), a paragraph.
	Hook string
	// Example is a settings entry that runs agent-hooks for the agent, with its file as a comment.
	Example string
}

// Runs are the other agents' settings the agent runs itself (AlsoRuns), as hooks.LoadEnv's
// AgentRuns takes them: "name:scope,scope".
func (h *Spec) Runs() []string {
	var out []string
	for _, name := range SortedScopesKeys(h.AlsoRuns) {
		scopes := make([]string, len(h.AlsoRuns[name]))
		for i, sc := range h.AlsoRuns[name] {
			scopes[i] = string(sc)
		}
		out = append(out, name+":"+strings.Join(scopes, ","))
	}
	return out
}
