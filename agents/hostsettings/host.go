// Package hostsettings owns the agent hosts' hook settings as agent-hooks installs into them:
// where Claude Code, Codex, GitHub Copilot CLI, Cline, Gemini CLI and Cursor read their hooks
// (user, project and local files, Cline's hook folders), the entries `agent-hooks install`
// merges into them and `uninstall` takes out, and the checks of `agent-hooks doctor` — everything that makes a host silently run no hook at all (a settings
// file it ignores, an event it does not know, a Codex project or hook not trusted, agent-hooks
// not on the host's PATH).
package hostsettings

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/configedit"
)

// Host is an agent host whose hook settings agent-hooks installs into.
type Host struct {
	Name  string // the name on the command line: "claude", "codex"
	Title string // the product's name
	// Events are the host's events `agent-hooks hook <name>` answers: install registers it on
	// each of them.
	Events []string
	// Known are every event name the host fires; hooks under any other name never run.
	Known []string
	// MaxTimeout caps an event's timeout (seconds) where the host caps it whatever the settings
	// say (Claude: SessionEnd's whole batch at 60 s; Codex: SessionEnd hooks at 3 s).
	MaxTimeout map[string]int
	// HookTypes are the hook types the host runs.
	HookTypes []string
	// Millis is set when the host's timeouts are milliseconds (Gemini CLI); --timeout stays
	// seconds.
	Millis bool
	// FailClosed are the events whose agent-hooks entry must say "failClosed": true, without
	// which the host lets the action through when agent-hooks crashes or times out (Cursor).
	FailClosed []string
	// EventFlag: the host's input names no event, so the command install writes says it
	// (--event; Copilot's camelCase hooks).
	EventFlag bool
	// Scripts: the host has no settings file but runs one executable per event from folders
	// (Cline); Files are those folders.
	Scripts bool

	shape configedit.HostShape // where its settings keep a hook (zero: configedit.GroupedShape)
}

// Claude is Claude Code (2.1.197: the events of its settings schema).
var Claude = &Host{
	Name:  "claude",
	Title: "Claude Code",
	Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
		"PostToolUseFailure", "Notification", "PreCompact", "SubagentStart", "SubagentStop", "Stop", "SessionEnd"},
	Known: []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
		"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure",
		"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "PermissionRequest", "PermissionDenied",
		"Setup", "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult",
		"ConfigChange", "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged",
		"MessageDisplay"},
	MaxTimeout: map[string]int{"SessionEnd": 60},
	HookTypes:  []string{"command", "prompt", "agent", "http", "mcp_tool"},
}

// Codex is the Codex CLI (0.169.0).
var Codex = &Host{
	Name:  "codex",
	Title: "Codex",
	Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
		"PreCompact", "SubagentStart", "SubagentStop", "Stop", "SessionEnd"},
	Known: []string{"PreModelRequest", "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact",
		"PostCompact", "SessionStart", "SessionEnd", "SubagentStart", "SubagentStop", "Interrupt",
		"UserPromptSubmit", "Stop"},
	MaxTimeout: map[string]int{"SessionEnd": 3},
	HookTypes:  []string{"command"},
}

// Hosts lists every host.
var Hosts = []*Host{Claude, Codex, Copilot, Cline, Gemini, Cursor}

// Lookup returns the host named name.
func Lookup(name string) (*Host, error) {
	names := make([]string, len(Hosts))
	for i, h := range Hosts {
		if h.Name == name {
			return h, nil
		}
		names[i] = h.Name
	}
	return nil, fmt.Errorf("unknown agent %q (want %s)", name, strings.Join(names, ", "))
}

// DefaultTimeout is the timeout install writes (seconds): the hosts' own default for a hook.
const DefaultTimeout = 600

// Program is the name install writes for agent-hooks: found on the host's PATH, so that a
// project's settings work on every machine.
const Program = "agent-hooks"

// Command is the command install registers: `agent-hooks hook <host> --timeout N`. The hosts do
// not tell a hook its timeout, so agent-hooks is given the one the settings give the host, and
// answers (a deny where it cannot decide) before the host would kill it.
func (h *Host) Command(timeout int) string {
	return Program + " hook " + h.Name + " --timeout " + strconv.Itoa(timeout)
}

// CommandFor is the command install registers on event: Command, with --event where the
// host's input does not name the event; without --timeout for Cline, whose timeout no setting
// changes (agent-hooks knows it).
func (h *Host) CommandFor(event string, timeout int) string {
	if h.Scripts {
		return Program + " hook " + h.Name + " --event " + event
	}
	if h.EventFlag {
		return Program + " hook " + h.Name + " --event " + event + " --timeout " + strconv.Itoa(timeout)
	}
	return h.Command(timeout)
}

// flagValue is the value of a --flag in a command line, "" when it has none.
func flagValue(cmd, flag string) string {
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
func (h *Host) settingsShape() configedit.HostShape {
	if h.shape.CommandKey == "" {
		return configedit.GroupedShape
	}
	return h.shape
}

// Timeout is the timeout install writes for event, in seconds: timeout, within the host's cap.
func (h *Host) Timeout(event string, timeout int) int {
	if max, ok := h.MaxTimeout[event]; ok && timeout > max {
		return max
	}
	return timeout
}

// ownCommand parses a command as `[VAR=value…] …/agent-hooks hook <host> [flags…]`: ok is false
// for anything else. timeout is the --timeout value given, in seconds: a number ("600", "1.5")
// or a Go duration ("10m"), as agent-hooks hook reads it; 0 when none, -1 when unreadable.
func ownCommand(cmd string) (program, host string, timeout float64, ok bool) {
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
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
		return n
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d.Seconds()
	}
	return -1
}

// AgentHooksCommand reports whether a hook command runs `agent-hooks hook <host>`, for any host.
func AgentHooksCommand(cmd string) bool {
	_, _, _, ok := ownCommand(cmd)
	return ok
}

// Owns reports whether a hook command is agent-hooks' for this host.
func (h *Host) Owns(cmd string) bool {
	_, host, _, ok := ownCommand(cmd)
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
	// ClaudeManagedDir is the folder of Claude Code's managed (policy) settings
	// (ClaudeManagedDirFor); "" leaves them unchecked.
	ClaudeManagedDir string
}

// ClaudeManagedDirFor is where Claude Code reads managed settings on goos.
func ClaudeManagedDirFor(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// UserDir is the host's user folder: $CLAUDE_CONFIG_DIR or ~/.claude; $CODEX_HOME or ~/.codex;
// ~/.gemini; ~/.cursor. (Copilot's and Cline's folders are in their Files.)
func (h *Host) UserDir(env Env) string {
	v, dir := "CLAUDE_CONFIG_DIR", ".claude"
	switch h {
	case Codex:
		v, dir = "CODEX_HOME", ".codex"
	case Gemini:
		v, dir = "", ".gemini"
	case Cursor:
		v, dir = "", ".cursor"
	}
	if d := env.getenv(v); v != "" && d != "" {
		return d
	}
	return filepath.Join(env.Home, dir)
}

// Files lists the host's hook settings files, user first: Claude's ~/.claude/settings.json,
// .claude/settings.json and .claude/settings.local.json; Codex's ~/.codex/hooks.json and
// .codex/hooks.json; Gemini's ~/.gemini/settings.json and .gemini/settings.json; Cursor's
// ~/.cursor/hooks.json and .cursor/hooks.json; Copilot's hooks files and Cline's hook folders.
func (h *Host) Files(env Env) []File {
	switch h {
	case Copilot:
		return copilotFiles(env)
	case Cline:
		return clineDirs(env)
	case Gemini:
		return []File{
			{User, filepath.Join(h.UserDir(env), "settings.json")},
			{Project, filepath.Join(env.Workspace, ".gemini", "settings.json")},
		}
	case Cursor:
		return []File{
			{User, filepath.Join(h.UserDir(env), "hooks.json")},
			{Project, filepath.Join(env.Workspace, ".cursor", "hooks.json")},
		}
	}
	if h == Codex {
		return []File{
			{User, filepath.Join(h.UserDir(env), "hooks.json")},
			{Project, filepath.Join(env.Workspace, ".codex", "hooks.json")},
		}
	}
	return []File{
		{User, filepath.Join(h.UserDir(env), "settings.json")},
		{Project, filepath.Join(env.Workspace, ".claude", "settings.json")},
		{Local, filepath.Join(env.Workspace, ".claude", "settings.local.json")},
	}
}

// InstallFile is the file install writes: the user's (user) or the project's (Cline: the
// folder install writes its scripts in).
func (h *Host) InstallFile(env Env, user bool) File {
	files := h.Files(env)
	if h == Copilot {
		files = []File{files[0], {Project, filepath.Join(copilotDirs(env)[1].Path, copilotFile)}}
	}
	if user {
		return files[0]
	}
	return files[1]
}
