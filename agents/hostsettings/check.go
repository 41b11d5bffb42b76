package hostsettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/autoagent/agent-hooks/configedit"
	"github.com/autoagent/agent-hooks/hooks"
)

// Effect is what a finding does to the hooks.
type Effect string

// The effects.
const (
	// FileIgnored: the host runs no hook of the file at all (Claude drops a settings file whose
	// hooks fail its schema, silently; Codex a hooks.json it cannot parse).
	FileIgnored Effect = "the host ignores every hook in this file"
	// NeverRuns: the host never runs this hook (or these hooks).
	NeverRuns Effect = "these hooks never run"
	// Misconfigured: the hook runs, but not as meant (a timeout in milliseconds, a deadline
	// agent-hooks does not know).
	Misconfigured Effect = "the hook runs, but not as meant"
)

// Finding is a problem in a host's hook settings.
type Finding struct {
	Agent   string `json:"agent"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"column,omitempty"`
	Problem string `json:"problem"`
	Effect  Effect `json:"effect"`
	Fix     string `json:"fix,omitempty"`
	Title   string `json:"-"` // the agent's product name, for people
}

func (f Finding) String() string {
	where := f.File
	if f.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Col)
	}
	effect := strings.Replace(string(f.Effect), "the host", f.Title, 1)
	s := fmt.Sprintf("%s; %s", f.Problem, effect)
	if where != "" {
		s = where + ": " + s
	}
	if f.Fix != "" {
		s += " (" + f.Fix + ")"
	}
	return s
}

// Checker collects the findings of one settings file; an agent's own checks (Spec.CheckRoot,
// CheckMatcher) add theirs through it.
type Checker struct {
	host     *Spec
	path     string
	src      []byte
	lookPath func(string) (string, error)
	out      []Finding
}

// Spec is the agent whose file is checked.
func (c *Checker) Spec() *Spec { return c.host }

// Add reports a finding at path (keys and indexes into the file's JSON; nil for the file).
func (c *Checker) Add(effect Effect, fix string, path []any, format string, args ...any) {
	f := Finding{Agent: c.host.Name, Title: c.host.Title, File: c.path, Problem: fmt.Sprintf(format, args...), Effect: effect, Fix: fix}
	if line, col, ok := configedit.Position(c.src, path...); ok {
		f.Line, f.Col = line, col
	}
	c.out = append(c.out, f)
}

// Check reads the host's settings file at path and reports what would keep its hooks from
// running as written: JSON the host cannot read, a shape it rejects (a hook without its
// matcher group, a wrong type such as "timeout": "5"), an event it does not know, a timeout in
// milliseconds, and, for agent-hooks' own hooks, a program not on PATH (lookPath) and a
// --timeout other than the host's. A missing file has no findings.
func (h *Spec) Check(path string, lookPath func(string) (string, error)) ([]Finding, error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return h.CheckSource(path, src, lookPath), nil
}

// CheckSource is Check of the file's content src.
func (h *Spec) CheckSource(path string, src []byte, lookPath func(string) (string, error)) []Finding {
	c := &Checker{host: h, path: path, src: src, lookPath: lookPath}
	c.check()
	sort.SliceStable(c.out, func(i, j int) bool {
		a, b := c.out[i], c.out[j]
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return c.out
}

// Ignored reports whether a finding makes the host ignore the whole file.
func Ignored(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Effect == FileIgnored })
}

func (c *Checker) check() {
	if len(bytes.TrimSpace(c.src)) == 0 {
		if c.host.EmptyIgnored {
			c.Add(FileIgnored, "write {} or remove the file", nil, "empty file")
		}
		return
	}
	var root any
	if err := json.Unmarshal(c.src, &root); err != nil {
		f := Finding{Agent: c.host.Name, Title: c.host.Title, File: c.path, Problem: "invalid JSON: " + err.Error(), Effect: FileIgnored}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			f.Line, f.Col = lineCol(c.src, int(se.Offset)-1) // Offset is past the bad byte
		}
		c.out = append(c.out, f)
		return
	}
	obj, ok := root.(map[string]any)
	if !ok {
		c.Add(FileIgnored, "", nil, "the settings are not a JSON object")
		return
	}
	if c.host.CheckRoot != nil && c.host.CheckRoot(c, obj) {
		return
	}
	raw, ok := obj["hooks"]
	if !ok {
		return
	}
	events, ok := raw.(map[string]any)
	if !ok {
		c.Add(FileIgnored, "", []any{"hooks"}, `"hooks" is not an object of events`)
		return
	}
	for _, name := range SortedKeys(events) {
		if c.host.NotEvents[name] {
			continue // the agent's switches (CheckRoot)
		}
		c.event(name, events[name])
	}
}

func (c *Checker) event(name string, v any) {
	at := []any{"hooks", name}
	c.KnownEvent(name, at)
	groups, ok := v.([]any)
	if !ok {
		c.Add(FileIgnored, "", at, "hooks.%s is not an array of matcher groups", name)
		return
	}
	for i, g := range groups {
		if c.host.settingsShape().Flat {
			c.hook(name, append(append([]any(nil), at...), i), g)
			continue
		}
		c.group(name, append(at, i), g)
	}
}

func (c *Checker) group(event string, at []any, v any) {
	g, ok := v.(map[string]any)
	if !ok {
		c.Add(FileIgnored, "", at, "hooks.%s[%d] is not an object", event, at[2])
		return
	}
	effect := FileIgnored
	if c.host.GroupEffect != "" {
		effect = c.host.GroupEffect
	}
	if m, ok := g["matcher"]; ok {
		if ms, isString := m.(string); !isString {
			c.Add(FileIgnored, "", append(at, "matcher"), "matcher is not a string")
		} else if c.host.CheckMatcher != nil {
			c.host.CheckMatcher(c, event, at, ms)
		}
	}
	raw, ok := g["hooks"]
	if !ok {
		if _, flat := g["command"]; flat {
			c.Add(effect, `wrap it: {"hooks": [{"type": "command", "command": …}]}`, at,
				`a hook written without its matcher group (no "hooks" array)`)
		} else {
			c.Add(effect, "", at, `matcher group without a "hooks" array`)
		}
		return
	}
	list, ok := raw.([]any)
	if !ok {
		c.Add(FileIgnored, "", append(at, "hooks"), `"hooks" is not an array`)
		return
	}
	for i, h := range list {
		c.hook(event, append(append([]any(nil), at...), "hooks", i), h)
	}
}

func (c *Checker) hook(event string, at []any, v any) {
	h, ok := v.(map[string]any)
	if !ok {
		c.Add(FileIgnored, "", at, "a hook is not an object")
		return
	}
	typ, _ := h["type"].(string)
	switch {
	case typ == "" && c.host.TypeRequired != "":
		c.Add(c.host.TypeRequired, `add "type": "command"`, at, `hook without a "type"`)
		return
	case typ == "" || slices.Contains(c.host.HookTypes, typ):
	case slices.Contains(c.host.SkippedTypes, typ):
		c.Add(NeverRuns, "", append(at, "type"), "%s skips %q hooks", c.host.Title, typ)
		return
	default:
		c.Add(FileIgnored, "", append(at, "type"), "unknown hook type %q (want %s)", typ, strings.Join(c.host.HookTypes, ", "))
		return
	}
	fieldTypes := DefaultFieldTypes
	if c.host.FieldTypes != nil {
		fieldTypes = c.host.FieldTypes
	}
	for key, want := range fieldTypes(typ) {
		if val, ok := h[key]; ok && !want.OK(val) {
			c.Add(FileIgnored, "", append(at, key), "%q is %s, want %s", key, Describe(val), want.Name)
		}
	}
	if typ == "command" || typ == "" {
		if _, ok := h["command"].(string); !ok {
			if _, present := h["command"]; !present {
				c.Add(FileIgnored, "", at, `command hook without a "command"`)
			}
			return
		}
	}
	to, hasTimeout := h["timeout"].(float64)
	switch {
	case c.host.Millis && hasTimeout && to < 1000:
		c.Add(Misconfigured, fmt.Sprintf("timeouts are in milliseconds: %g?", to*1000), append(at, "timeout"),
			"timeout %g is %g ms, seconds written where milliseconds are meant", to, to)
	case !c.host.Millis && hasTimeout && to >= 1000:
		c.Add(Misconfigured, fmt.Sprintf("timeouts are in seconds: %g?", to/1000), append(at, "timeout"),
			"timeout %g is %s, milliseconds written where seconds are meant", to, Seconds(to))
	}
	if c.host.Millis {
		to /= 1000 // seconds from here on
	}
	if max, ok := c.host.MaxTimeout[event]; ok && hasTimeout && to > float64(max) {
		c.Add(Misconfigured, fmt.Sprintf("use %d", max), append(at, "timeout"),
			"%s stops %s hooks after %d s whatever their timeout", c.host.Title, event, max)
	}
	if cmd, _ := h["command"].(string); typ == "command" || typ == "" {
		c.Own(event, at, "command", cmd, to, hasTimeout)
		if c.host.Owns(cmd) && slices.Contains(c.host.FailClosed, event) && h["failClosed"] != true {
			c.Add(Misconfigured, `add "failClosed": true (agent-hooks install `+c.host.Name+`)`, at,
				`agent-hooks' %s hook without "failClosed": true: %s lets the action through when agent-hooks crashes or times out`, event, c.host.Title)
		}
	}
}

// Own checks one of agent-hooks' hooks: the program on PATH, --timeout given and equal to the
// host's timeout, within the host's cap.
func (c *Checker) Own(event string, at []any, cmdKey, cmd string, timeout float64, hasTimeout bool) {
	program, host, flagTimeout, ok := OwnCommand(cmd)
	if !ok {
		return
	}
	if host != c.host.Name {
		c.Add(Misconfigured, fmt.Sprintf("use %q", c.host.CommandFor(event, DefaultTimeout)), append(at, cmdKey),
			"%s hooks run %q, which speaks %s's protocol", c.host.Title, cmd, host)
	}
	if c.lookPath != nil {
		if _, err := c.lookPath(program); err != nil {
			c.Add(NeverRuns, "install agent-hooks on the PATH the agent runs with, or write its absolute path", append(at, cmdKey),
				"%s is not on PATH", program)
		}
	}
	switch {
	case flagTimeout < 0:
		c.Add(Misconfigured, "", append(at, cmdKey), "--timeout is not a number of seconds")
	case !hasTimeout:
		c.Add(Misconfigured, "run agent-hooks install again", at,
			`no "timeout": the host's default applies, and agent-hooks does not know it`)
	case flagTimeout == 0:
		c.Add(Misconfigured, "run agent-hooks install again", append(at, cmdKey),
			"no --timeout: agent-hooks does not know the host's timeout of %s, and may answer after the host gave up on it", Seconds(timeout))
	case flagTimeout != timeout:
		c.Add(Misconfigured, "run agent-hooks install again", append(at, cmdKey),
			"--timeout %g differs from the host's timeout %g", flagTimeout, timeout)
	}
}

// FieldType is the type an agent's schema gives a hook's field, as a check.
type FieldType struct {
	Name string         // for people: "a string"
	OK   func(any) bool // whether a JSON value has the type
}

// The field types of the agents' schemas.
var (
	IsString    = FieldType{"a string", func(v any) bool { _, ok := v.(string); return ok }}
	IsBool      = FieldType{"true or false", func(v any) bool { _, ok := v.(bool); return ok }}
	IsPosNum    = FieldType{"a positive number of seconds", func(v any) bool { n, ok := v.(float64); return ok && n > 0 }}
	IsPosMillis = FieldType{"a positive number of milliseconds", func(v any) bool { n, ok := v.(float64); return ok && n > 0 }}
	IsSeconds   = FieldType{"a whole number of seconds", func(v any) bool { n, ok := v.(float64); return ok && n >= 0 && n == math.Trunc(n) }}
	IsStrings   = FieldType{"an array of strings", func(v any) bool {
		l, ok := v.([]any)
		return ok && !slices.ContainsFunc(l, func(e any) bool { _, s := e.(string); return !s })
	}}
	IsShell = FieldType{`"bash" or "powershell"`, func(v any) bool { return v == "bash" || v == "powershell" }}
)

// DefaultFieldTypes are the types Claude Code's settings schema gives a hook's fields, which
// agents with its shape share.
func DefaultFieldTypes(typ string) map[string]FieldType {
	m := map[string]FieldType{"timeout": IsPosNum, "statusMessage": IsString, "once": IsBool, "if": IsString}
	switch typ {
	case "command":
		for k, t := range map[string]FieldType{"command": IsString, "args": IsStrings, "shell": IsShell, "async": IsBool, "asyncRewake": IsBool} {
			m[k] = t
		}
	case "prompt", "agent":
		m["prompt"], m["model"] = IsString, IsString
	case "http":
		m["url"] = IsString
	case "mcp_tool":
		m["server"], m["tool"] = IsString, IsString
	}
	return m
}

// Describe says what a JSON value is, for a finding.
func Describe(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case float64:
		return fmt.Sprintf("%g", v)
	case bool:
		return fmt.Sprint(v)
	case nil:
		return "null"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// Seconds writes a number of seconds for people.
func Seconds(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%g s (%.1f hours)", s, s/3600)
	case s >= 120:
		return fmt.Sprintf("%g s (%.0f minutes)", s, s/60)
	}
	return fmt.Sprintf("%g s", s)
}

// SortedKeys are an object's keys, sorted.
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lineCol is the 1-based line and column of offset in src.
func lineCol(src []byte, offset int) (int, int) {
	offset = min(max(offset, 0), len(src))
	line := 1 + bytes.Count(src[:offset], []byte("\n"))
	col := offset - bytes.LastIndexByte(src[:offset], '\n')
	return line, col
}

// Rel writes path relative to dir when it is inside it.
func Rel(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// knownEvent reports an event name the host does not know.
func (c *Checker) KnownEvent(name string, at []any) {
	if slices.Contains(c.host.Known, name) {
		return
	}
	fix := ""
	if s := hooks.Suggest(name, c.host.Known); s != "" {
		fix = fmt.Sprintf("did you mean %q?", s)
	} else if _, err := hooks.ResolveEvent(name, nil); err == nil {
		fix = "an agent-hooks event goes in .autoagent/config.json, not in the host's settings"
	}
	c.Add(NeverRuns, fix, at, "unknown %s event %q", c.host.Title, name)
}
