// Package hostfmt reads the coding agents' own hook settings as configuration formats, for any
// agent: the settings files an agent's hostsettings.Spec names, in Claude Code's shape (hooks in
// matcher groups under the agent's event names; Codex's and Gemini CLI's are that shape) or one
// an agent reads itself (Spec.Parse). Their command hooks run the way the agent runs them — `sh
// -c` on the command as written, the agent's JSON on stdin (session_id, cwd, hook_event_name,
// tool_name, …, with agent-hooks' payload around it), the agent's project variable, and its
// exit-code and JSON-output conventions — so the same scripts work under `agent-hooks run` in a
// loop or in the Action. Each agent's package (agents/<agent>) builds its format with New.
//
// When agent-hooks is itself the agent's hook runner (`agent-hooks hook <agent>`,
// LoadEnv.Agent), the agent runs its own files, so that agent's format loads nothing (nor those
// of the other agents whose files it runs: LoadEnv.AgentRuns).
package hostfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/configfile"
)

// Spec is what differs between agents whose settings are a format.
type Spec struct {
	// Settings are the agent's hook settings: its name, its files, its timeout unit.
	Settings *hostsettings.Spec
	// ProjectDirEnv is the variable that names the project to the agent's hooks
	// (CLAUDE_PROJECT_DIR), "" when it sets none.
	ProjectDirEnv string
	// AnyExitJSON: the agent reads a hook's JSON whatever its exit code (Claude Code).
	AnyExitJSON bool
	// Canonical maps the agent's event names onto agent-hooks' (nil: they are the same names).
	Canonical func(hostEvent string) (string, bool)
	// Parse reads a settings file of a shape of the agent's own (Cursor's flat entries).
	Parse func(f Format, fl File, src []byte) ([]*hooks.Hook, []hooks.Diagnostic)
	// Switches reads switches that turn some or all hooks of a file off (Gemini's hooksConfig),
	// and returns the settings to read without them.
	Switches func(src []byte) ([]byte, Off)
	// Matcher turns a matcher group's matcher into agent-hooks' (nil: ToolMatcher).
	Matcher func(event string, m *string) (*hooks.Matcher, string)
	// Command is the hook of a command entry the agent runs its own way (Gemini's); nil: the
	// Dialect of Claude Code's shape.
	Command func(f Format, fl File, canonical, hostEvent string, e Entry, matcher *hooks.Matcher) *hooks.Hook
}

// Off is what an agent's switches turn off in a file.
type Off interface {
	All() bool             // every hook of the file
	Disables(e Entry) bool // this hook
}

// Format reads one agent's settings files.
type Format struct {
	spec Spec
}

// New is the format of an agent's settings.
func New(spec Spec) Format { return Format{spec: spec} }

// Name implements hooks.Format: the agent's name.
func (f Format) Name() string { return f.spec.Settings.Name }

// File is one settings file and its scope.
type File struct {
	Path, Scope string
}

// files lists the agent's settings files in the order the hooks run: the project's scopes, then
// the user's.
func (f Format) files(env hooks.LoadEnv) []File { return RunOrder(f.spec.Settings, env) }

// RunOrder lists an agent's settings files (folders, for hook folders) in the order their hooks
// run: the project's scopes, then the user's, as File.
func RunOrder(spec *hostsettings.Spec, env hooks.LoadEnv) []File {
	all := spec.Files(hostsettings.Env{Workspace: env.Workspace, Home: env.UserHome, Getenv: env.Getenv})
	var out, user []File
	for _, fl := range all {
		if fl.Scope == hostsettings.User {
			user = append(user, File{fl.Path, string(fl.Scope)})
		} else {
			out = append(out, File{fl.Path, string(fl.Scope)})
		}
	}
	return append(out, user...)
}

// ConfigPaths implements hooks.ConfigPather: the agent's settings files, every scope.
func (f Format) ConfigPaths(env hooks.LoadEnv) []string {
	var out []string
	for _, fl := range f.files(env) {
		out = append(out, fl.Path)
	}
	return out
}

// runBy reports whether env's agent runs these files itself.
func (f Format) runBy(env hooks.LoadEnv, scope string) bool {
	if env.Agent == f.Name() {
		return true
	}
	for _, r := range env.AgentRuns {
		name, scopes, _ := strings.Cut(r, ":")
		if name == f.Name() && (scopes == "" || slices.Contains(strings.Split(scopes, ","), scope)) {
			return true
		}
	}
	return false
}

// Load implements hooks.Format.
func (f Format) Load(env hooks.LoadEnv) (hooks.Loaded, error) {
	var out []*hooks.Hook
	var diags []hooks.Diagnostic
	for _, fl := range f.files(env) {
		if fl.Scope == string(hostsettings.User) && (env.DisableUserHooks || env.UserHome == "") {
			continue
		}
		if f.runBy(env, fl.Scope) {
			continue // the agent runs these itself
		}
		src, err := configfile.Read(fl.Path)
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

// Parse reads the content of one of the agent's settings files as Load reads each file: for an
// agent whose hooks are more than its files one by one (Droid's hooks.json, which replaces
// settings.json's events), a format of its own builds the content and parses it here.
func (f Format) Parse(fl File, src []byte) ([]*hooks.Hook, []hooks.Diagnostic) {
	return f.parse(fl, src)
}

// settings is the shape both hosts share.
type settings struct {
	Hooks map[string][]struct {
		Matcher    *string           `json:"matcher"`
		Hooks      []json.RawMessage `json:"hooks"`
		Sequential bool              `json:"sequential"` // Gemini
	} `json:"hooks"`
}

// Entry is one hook entry of a settings file in Claude Code's shape.
type Entry struct {
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
func (f Format) parse(fl File, src []byte) ([]*hooks.Hook, []hooks.Diagnostic) {
	warn := func(line, col int, format string, args ...any) hooks.Diagnostic {
		return hooks.Diagnostic{Severity: hooks.SeverityWarning, File: fl.Path, Line: line, Col: col, Message: fmt.Sprintf(format, args...)}
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, nil
	}
	// What the agent makes of the file: one it ignores is an error here (a gate written there
	// must not silently not run); a part of it that never runs is a warning.
	diags, ignored := Findings(f.spec.Settings, fl.Path, src)
	if ignored {
		return nil, diags
	}
	if f.spec.Parse != nil {
		hs, ds := f.spec.Parse(f, fl, src)
		return hs, append(diags, ds...)
	}
	var off Off
	if f.spec.Switches != nil {
		if src, off = f.spec.Switches(src); off != nil && off.All() {
			return nil, diags // the agent's switch turns every hook off (a warning above)
		}
	}
	var s settings
	if err := json.Unmarshal(src, &s); err != nil {
		return nil, append(diags, hooks.Diagnostic{Severity: hooks.SeverityError, File: fl.Path, Message: err.Error()})
	}
	var out []*hooks.Hook
	events := make([]string, 0, len(s.Hooks))
	for ev := range s.Hooks {
		events = append(events, ev)
	}
	sort.Strings(events)
	for _, ev := range events {
		canonical, ok := f.Canonical(ev)
		if !ok {
			continue // an event of the host's that agent-hooks never fires
		}
		for gi, g := range s.Hooks[ev] {
			matcher, bad := ToolMatcher(canonical, g.Matcher)
			if f.spec.Matcher != nil {
				matcher, bad = f.spec.Matcher(canonical, g.Matcher)
			}
			if bad != "" {
				diags = append(diags, warn(0, 0, "hooks.%s[%d]: %s; its hooks never run", ev, gi, bad))
				continue
			}
			for hi, raw := range g.Hooks {
				var hh Entry
				if err := json.Unmarshal(raw, &hh); err != nil {
					diags = append(diags, warn(0, 0, "hooks.%s[%d].hooks[%d]: %v; it does not run", ev, gi, hi, err))
					continue
				}
				if off != nil && off.Disables(hh) {
					continue // switched off (a warning above when it is agent-hooks')
				}
				h, d := f.hook(fl, canonical, ev, hh, matcher)
				if h != nil && g.Sequential {
					h.Parallel = false // the agent runs the event's hooks in order (Gemini)
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
func (f Format) hook(fl File, canonical, ev string, hh Entry, matcher *hooks.Matcher) (*hooks.Hook, string) {
	if hh.Type == "command" && hostsettings.AgentHooksCommand(hh.Command) {
		return nil, "" // agent-hooks as the agent's hook runner: these are agent-hooks' own hooks
	}
	if f.spec.Command != nil && hh.Type == "command" {
		return f.spec.Command(f, fl, canonical, ev, hh, matcher), ""
	}
	if hh.Type != "command" {
		return nil, fmt.Sprintf("agent-hooks runs command hooks only, not %q", hh.Type)
	}
	if hh.Shell == "powershell" {
		return nil, "agent-hooks does not run powershell hooks"
	}
	h := f.NewHook(fl, canonical, ev, hh.Command, matcher, Dialect{ProjectDirEnv: f.spec.ProjectDirEnv, AnyExitJSON: f.spec.AnyExitJSON, Args: hh.Args, HostEvent: ev})
	h.Options = json.RawMessage(fmt.Sprintf(`{"hostEvent":%q,"args":%s}`, ev, MustJSON(hh.Args)))
	if hh.Timeout != nil && *hh.Timeout > 0 {
		h.Timeout = time.Duration(*hh.Timeout * float64(time.Second))
	}
	warning := ""
	if hh.If != "" {
		warning = fmt.Sprintf("agent-hooks does not evaluate \"if\": %q; the hook runs for every call its matcher matches", hh.If)
	}
	return h, warning
}

// NewHook is a command hook of the agent's settings file, run by dialect, with Claude Code's
// default timeout for the event.
func (f Format) NewHook(fl File, canonical, ev, command string, matcher *hooks.Matcher, dialect hooks.Dialect) *hooks.Hook {
	return &hooks.Hook{
		Name:     command,
		Type:     hooks.TypeCommand,
		Event:    canonical,
		Command:  command,
		Timeout:  defaultTimeout(canonical),
		Parallel: true, // the hosts run an event's hooks concurrently
		Enabled:  true,
		Matcher:  matcher,
		Source:   hooks.Source{Format: f.Name(), Scope: fl.Scope, File: fl.Path},
		Options:  json.RawMessage(fmt.Sprintf(`{"hostEvent":%q}`, ev)),
		Dialect:  dialect,
	}
}

// Canonical is the canonical event of one of the agent's event names.
func (f Format) Canonical(ev string) (string, bool) {
	if f.spec.Canonical != nil {
		return f.spec.Canonical(ev)
	}
	return hooks.Canonical(ev, nil)
}

func MustJSON(v any) string {
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

// ToolMatcher turns an agent's matcher into agent-hooks' matcher the way the hosts read it: empty
// or "*" matches everything; letters, digits, _ and | are an exact list of names ("Edit|Write");
// anything else is an unanchored regular expression. bad says why a matcher can never match.
func ToolMatcher(event string, m *string) (matcher *hooks.Matcher, bad string) {
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

// Findings are the diagnostics of what the host makes of a settings file (hostsettings'
// checks): one it ignores is an error, a hook that never runs a warning; ignored reports the
// former.
func Findings(host *hostsettings.Spec, path string, src []byte) (diags []hooks.Diagnostic, ignored bool) {
	fs := host.CheckSource(path, src, nil)
	for _, fd := range fs {
		if fd.Effect == hostsettings.Misconfigured {
			continue // doctor's business: the hook runs
		}
		d := hooks.Diagnostic{Severity: hooks.SeverityWarning, File: path, Line: fd.Line, Col: fd.Col,
			Message: fmt.Sprintf("%s; %s", fd.Problem, strings.Replace(string(fd.Effect), "the host", host.Title, 1))}
		if fd.Effect == hostsettings.FileIgnored {
			d.Severity = hooks.SeverityError
			d.Message += " (agent-hooks doctor)"
		}
		diags = append(diags, d)
	}
	return diags, hostsettings.Ignored(fs)
}
