// Package hostfmt reads the hooks of the agent hosts' own settings as configuration formats:
// Claude Code's ~/.claude/settings.json, .claude/settings.json and .claude/settings.local.json
// (format "claude"), Codex's ~/.codex/hooks.json and .codex/hooks.json (format "codex"), Gemini
// CLI's ~/.gemini/settings.json and .gemini/settings.json (format "gemini": its own event names,
// timeouts in milliseconds) and Cursor's ~/.cursor/hooks.json and .cursor/hooks.json (format
// "cursor": flat entries under camelCase events).
// Their command hooks run the way the host runs them — `sh -c` on the command as written, the
// host's JSON on stdin (session_id, cwd, hook_event_name, tool_name, …, with agent-hooks' payload
// around it), CLAUDE_PROJECT_DIR, and the host's exit-code and JSON-output conventions — so the
// same scripts work under `agent-hooks run` in a loop or in the Action.
//
// When agent-hooks is itself the host's hook runner (`agent-hooks hook claude`, LoadEnv.Agent),
// the host runs its own files, so that host's format loads nothing (nor Claude Code's under
// Cursor, which runs those too).
package hostfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents/cursor"
	"github.com/autoagent/agent-hooks/agents/gemini"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/configfile"
)

// Format reads one host's settings files.
type Format struct {
	host string // "claude" or "codex": the format's name and LoadEnv.Agent's value
}

// Claude is Claude Code's settings as a format.
func Claude() Format { return Format{host: "claude"} }

// Codex is Codex's hooks.json as a format.
func Codex() Format { return Format{host: "codex"} }

// Gemini is Gemini CLI's settings.json as a format.
func Gemini() Format { return Format{host: "gemini"} }

// Cursor is Cursor's hooks.json as a format.
func Cursor() Format { return Format{host: "cursor"} }

// Name implements hooks.Format.
func (f Format) Name() string { return f.host }

// alsoRuns are the other hosts' files an agent runs itself, by agent: Cursor runs Claude Code's
// settings (its "third-party hooks", on by default).
var alsoRuns = map[string][]string{"cursor": {"claude"}}

// file is one settings file and its scope.
type file struct {
	path, scope string
}

// files lists the host's settings files in the order the hooks run: project, local, user.
func (f Format) files(env hooks.LoadEnv) []file {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	switch f.host {
	case "gemini", "cursor":
		dir, name := "."+f.host, "settings.json"
		if f.host == "cursor" {
			name = "hooks.json"
		}
		return []file{
			{filepath.Join(env.Workspace, dir, name), "project"},
			{filepath.Join(env.UserHome, dir, name), "user"},
		}
	}
	if f.host == "codex" {
		home := getenv("CODEX_HOME")
		if home == "" {
			home = filepath.Join(env.UserHome, ".codex")
		}
		return []file{
			{filepath.Join(env.Workspace, ".codex", "hooks.json"), "project"},
			{filepath.Join(home, "hooks.json"), "user"},
		}
	}
	home := getenv("CLAUDE_CONFIG_DIR")
	if home == "" {
		home = filepath.Join(env.UserHome, ".claude")
	}
	return []file{
		{filepath.Join(env.Workspace, ".claude", "settings.json"), "project"},
		{filepath.Join(env.Workspace, ".claude", "settings.local.json"), "local"},
		{filepath.Join(home, "settings.json"), "user"},
	}
}

// Load implements hooks.Format.
func (f Format) Load(env hooks.LoadEnv) (hooks.Loaded, error) {
	if env.Agent == f.host || slices.Contains(alsoRuns[env.Agent], f.host) {
		return hooks.Loaded{}, nil // the host runs these itself
	}
	var out []*hooks.Hook
	var diags []hooks.Diagnostic
	for _, fl := range f.files(env) {
		if fl.scope == "user" && (env.DisableUserHooks || env.UserHome == "") {
			continue
		}
		src, err := configfile.Read(fl.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return hooks.Loaded{}, err
		}
		hs, ds := f.parse(fl, src)
		out = append(out, hs...)
		diags = append(diags, ds...)
	}
	return hooks.Loaded{Hooks: out, Diagnostics: diags}, nil
}

// settings is the shape both hosts share.
type settings struct {
	Hooks map[string][]struct {
		Matcher    *string           `json:"matcher"`
		Hooks      []json.RawMessage `json:"hooks"`
		Sequential bool              `json:"sequential"` // Gemini
	} `json:"hooks"`
}

type hostHook struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Timeout *float64 `json:"timeout"`
	Shell   string   `json:"shell"`
	If      string   `json:"if"`
	// Gemini's
	Name string            `json:"name"`
	Env  map[string]string `json:"env"`
}

// parse reads one settings file. The hosts drop a file they cannot read, so agent-hooks does
// too, with a warning (doctor says more); keys of the settings other than hooks are the host's.
func (f Format) parse(fl file, src []byte) ([]*hooks.Hook, []hooks.Diagnostic) {
	warn := func(line, col int, format string, args ...any) hooks.Diagnostic {
		return hooks.Diagnostic{Severity: hooks.SeverityWarning, File: fl.path, Line: line, Col: col, Message: fmt.Sprintf(format, args...)}
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, nil
	}
	// What the host makes of the file: one it ignores is an error here (a gate written there
	// must not silently not run); a part of it that never runs is a warning.
	host, _ := hostsettings.Lookup(f.host)
	diags, ignored := findings(host, fl.path, src)
	if ignored {
		return nil, diags
	}
	if f.host == "cursor" {
		hs, ds := f.parseFlat(fl, src)
		return hs, append(diags, ds...)
	}
	var off *geminiOff
	if f.host == "gemini" {
		if src, off = geminiSwitches(src); off.all {
			return nil, diags // hooksConfig.enabled false: Gemini runs none (a warning above)
		}
	}
	var s settings
	if err := json.Unmarshal(src, &s); err != nil {
		return nil, append(diags, hooks.Diagnostic{Severity: hooks.SeverityError, File: fl.path, Message: err.Error()})
	}
	var out []*hooks.Hook
	events := make([]string, 0, len(s.Hooks))
	for ev := range s.Hooks {
		events = append(events, ev)
	}
	sort.Strings(events)
	for _, ev := range events {
		canonical, ok := f.canonical(ev)
		if !ok {
			continue // an event of the host's that agent-hooks never fires
		}
		for gi, g := range s.Hooks[ev] {
			matcher, bad := toolMatcher(canonical, g.Matcher)
			if f.host == "gemini" {
				matcher, bad = geminiMatcher(canonical, g.Matcher)
			}
			if bad != "" {
				diags = append(diags, warn(0, 0, "hooks.%s[%d]: %s; its hooks never run", ev, gi, bad))
				continue
			}
			for hi, raw := range g.Hooks {
				var hh hostHook
				if err := json.Unmarshal(raw, &hh); err != nil {
					diags = append(diags, warn(0, 0, "hooks.%s[%d].hooks[%d]: %v; it does not run", ev, gi, hi, err))
					continue
				}
				if off.disables(hh) {
					continue // listed in hooksConfig.disabled (a warning above when it is agent-hooks')
				}
				h, d := f.hook(fl, canonical, ev, hh, matcher)
				if h != nil && g.Sequential {
					h.Parallel = false // Gemini runs the event's hooks in order
				}
				if d != "" {
					diags = append(diags, warn(0, 0, "hooks.%s[%d].hooks[%d]: %s", ev, gi, hi, d))
				}
				if h != nil {
					out = append(out, h)
				}
			}
		}
	}
	return out, diags
}

// hook is one command hook of a settings file, or a reason it does not run (or runs other than
// written: warn).
func (f Format) hook(fl file, canonical, ev string, hh hostHook, matcher *hooks.Matcher) (*hooks.Hook, string) {
	if hh.Type == "command" && hostsettings.AgentHooksCommand(hh.Command) {
		return nil, "" // agent-hooks as the host's hook runner: these are agent-hooks' own hooks
	}
	if f.host == "gemini" && hh.Type == "command" {
		h := f.newHook(fl, canonical, ev, hh.Command, matcher, GeminiDialect{HostEvent: ev, Env: hh.Env})
		if hh.Name != "" {
			h.Name = hh.Name
		}
		h.Timeout = gemini.DefaultTimeout
		if hh.Timeout != nil && *hh.Timeout > 0 {
			h.Timeout = time.Duration(*hh.Timeout * float64(time.Millisecond)) // Gemini's are milliseconds
		}
		return h, ""
	}
	if hh.Type != "command" {
		return nil, fmt.Sprintf("agent-hooks runs command hooks only, not %q", hh.Type)
	}
	if hh.Shell == "powershell" {
		return nil, "agent-hooks does not run powershell hooks"
	}
	h := f.newHook(fl, canonical, ev, hh.Command, matcher, Dialect{Host: f.host, Args: hh.Args, HostEvent: ev})
	h.Options = json.RawMessage(fmt.Sprintf(`{"hostEvent":%q,"args":%s}`, ev, mustJSON(hh.Args)))
	if hh.Timeout != nil && *hh.Timeout > 0 {
		h.Timeout = time.Duration(*hh.Timeout * float64(time.Second))
	}
	warning := ""
	if hh.If != "" {
		warning = fmt.Sprintf("agent-hooks does not evaluate \"if\": %q; the hook runs for every call its matcher matches", hh.If)
	}
	return h, warning
}

// newHook is a command hook of a host's settings file, run by dialect, with the host's default
// timeout for the event.
func (f Format) newHook(fl file, canonical, ev, command string, matcher *hooks.Matcher, dialect hooks.Dialect) *hooks.Hook {
	return &hooks.Hook{
		Name:     command,
		Type:     hooks.TypeCommand,
		Event:    canonical,
		Command:  command,
		Timeout:  defaultTimeout(canonical),
		Parallel: true, // the hosts run an event's hooks concurrently
		Enabled:  true,
		Matcher:  matcher,
		Source:   hooks.Source{Format: f.host, Scope: fl.scope, File: fl.path},
		Options:  json.RawMessage(fmt.Sprintf(`{"hostEvent":%q}`, ev)),
		Dialect:  dialect,
	}
}

// canonical is the canonical event of one of the host's event names.
func (f Format) canonical(ev string) (string, bool) {
	var m map[string]string
	switch f.host {
	case "gemini":
		m = gemini.Events
	case "cursor":
		m = cursor.Events
	default:
		return hooks.Canonical(ev, nil)
	}
	c, ok := m[ev]
	return c, ok
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// defaultTimeout is the host's timeout for a hook that sets none: 600 s, UserPromptSubmit 30 s
// (Claude), SessionEnd 60 s (Claude's cap for the whole event).
func defaultTimeout(event string) time.Duration {
	switch event {
	case "UserPromptSubmit":
		return 30 * time.Second
	case hooks.SessionEnd:
		return 60 * time.Second
	}
	return 600 * time.Second
}

// matcherField is the host payload field a matcher is compared with, per event; events not
// listed run every hook whatever the matcher.
var matcherField = map[string]string{
	"PreToolUse": "tool_name", "PostToolUse": "tool_name", "PostToolUseFailure": "tool_name",
	"PermissionRequest": "tool_name", hooks.SessionStart: "source", hooks.SessionEnd: "reason",
	"PreCompact": "trigger", "Notification": "notification_type", "SubagentStart": "agent_type",
}

var exactList = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_|]+$`) })

// toolMatcher turns a host matcher into agent-hooks' matcher the way the hosts read it: empty
// or "*" matches everything; letters, digits, _ and | are an exact list of names ("Edit|Write");
// anything else is an unanchored regular expression. bad says why a matcher can never match.
func toolMatcher(event string, m *string) (matcher *hooks.Matcher, bad string) {
	field, ok := matcherField[event]
	if !ok || m == nil || *m == "" || *m == "*" {
		return nil, ""
	}
	re := *m
	if exactList().MatchString(re) {
		parts := slices.DeleteFunc(strings.Split(re, "|"), func(s string) bool { return s == "" })
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re = "^(?:" + strings.Join(parts, "|") + ")$"
	}
	if _, err := regexp.Compile(re); err != nil {
		return nil, fmt.Sprintf("matcher %q is not a regular expression agent-hooks can read: %v", *m, err)
	}
	return &hooks.Matcher{Field: field, Regex: re}, ""
}
