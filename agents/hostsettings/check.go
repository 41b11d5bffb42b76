package hostsettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/autoagent/agent-hooks/configedit"
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
	Host      string `json:"agent"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Col       int    `json:"column,omitempty"`
	Problem   string `json:"problem"`
	Effect    Effect `json:"effect"`
	Fix       string `json:"fix,omitempty"`
	hostTitle string
}

func (f Finding) String() string {
	where := f.File
	if f.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Col)
	}
	effect := strings.Replace(string(f.Effect), "the host", f.hostTitle, 1)
	s := fmt.Sprintf("%s; %s", f.Problem, effect)
	if where != "" {
		s = where + ": " + s
	}
	if f.Fix != "" {
		s += " (" + f.Fix + ")"
	}
	return s
}

// checker collects the findings of one file.
type checker struct {
	host     *Host
	path     string
	src      []byte
	lookPath func(string) (string, error)
	out      []Finding
}

func (c *checker) add(effect Effect, fix string, path []any, format string, args ...any) {
	f := Finding{Host: c.host.Name, hostTitle: c.host.Title, File: c.path, Problem: fmt.Sprintf(format, args...), Effect: effect, Fix: fix}
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
func (h *Host) Check(path string, lookPath func(string) (string, error)) ([]Finding, error) {
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
func (h *Host) CheckSource(path string, src []byte, lookPath func(string) (string, error)) []Finding {
	c := &checker{host: h, path: path, src: src, lookPath: lookPath}
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

func (c *checker) check() {
	if len(bytes.TrimSpace(c.src)) == 0 {
		if c.host == Codex {
			c.add(FileIgnored, "write {} or remove the file", nil, "empty file")
		}
		return
	}
	var root any
	if err := json.Unmarshal(c.src, &root); err != nil {
		f := Finding{Host: c.host.Name, hostTitle: c.host.Title, File: c.path, Problem: "invalid JSON: " + err.Error(), Effect: FileIgnored}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			f.Line, f.Col = lineCol(c.src, int(se.Offset)-1) // Offset is past the bad byte
		}
		c.out = append(c.out, f)
		return
	}
	obj, ok := root.(map[string]any)
	if !ok {
		c.add(FileIgnored, "", nil, "the settings are not a JSON object")
		return
	}
	if c.host == Copilot {
		c.checkCopilot(obj)
		return
	}
	if c.host == Claude && obj["disableAllHooks"] == true {
		c.add(NeverRuns, `remove "disableAllHooks"`, []any{"disableAllHooks"}, `"disableAllHooks": true turns off every hook of every settings file`)
	}
	if c.host == Gemini {
		c.geminiSwitches(obj)
	}
	if c.host == Cursor {
		if v, ok := obj["version"]; !ok || v != float64(c.host.settingsShape().Version) {
			c.add(Misconfigured, `write "version": 1`, []any{"version"}, `no "version": 1, which Cursor's hooks.json starts with`)
		}
	}
	raw, ok := obj["hooks"]
	if !ok {
		return
	}
	events, ok := raw.(map[string]any)
	if !ok {
		c.add(FileIgnored, "", []any{"hooks"}, `"hooks" is not an object of events`)
		return
	}
	for _, name := range sortedKeys(events) {
		if c.host == Gemini && GeminiSwitches[name] {
			continue // Gemini's switches, checked above
		}
		c.event(name, events[name])
	}
}

// geminiSwitches reports Gemini's switches that turn hooks off: hooksConfig.enabled false (also
// the older hooks.enabled), and agent-hooks' hooks named in hooksConfig.disabled.
func (c *checker) geminiSwitches(obj map[string]any) {
	for _, key := range []string{"hooksConfig", "hooks"} {
		cfg, _ := obj[key].(map[string]any)
		if cfg["enabled"] == false {
			c.add(NeverRuns, fmt.Sprintf(`remove "%s.enabled"`, key), []any{key, "enabled"}, `"%s.enabled": false turns off every hook`, key)
		}
		disabled, _ := cfg["disabled"].([]any)
		for i, d := range disabled {
			if s, _ := d.(string); c.host.Owns(s) {
				c.add(NeverRuns, "take it out of the list", []any{key, "disabled", i}, "%s.disabled lists agent-hooks' hook", key)
			}
		}
	}
}

func (c *checker) event(name string, v any) {
	at := []any{"hooks", name}
	c.knownEvent(name, at)
	groups, ok := v.([]any)
	if !ok {
		c.add(FileIgnored, "", at, "hooks.%s is not an array of matcher groups", name)
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

func (c *checker) group(event string, at []any, v any) {
	g, ok := v.(map[string]any)
	if !ok {
		c.add(FileIgnored, "", at, "hooks.%s[%d] is not an object", event, at[2])
		return
	}
	effect := FileIgnored
	if c.host == Codex || c.host == Gemini {
		effect = NeverRuns // Codex reads the entry as a group with no hooks, Gemini drops it
	}
	if m, ok := g["matcher"]; ok {
		if ms, isString := m.(string); !isString {
			c.add(FileIgnored, "", append(at, "matcher"), "matcher is not a string")
		} else if c.host == Gemini {
			c.geminiMatcher(event, at, ms)
		}
	}
	raw, ok := g["hooks"]
	if !ok {
		if _, flat := g["command"]; flat {
			c.add(effect, `wrap it: {"hooks": [{"type": "command", "command": …}]}`, at,
				`a hook written without its matcher group (no "hooks" array)`)
		} else {
			c.add(effect, "", at, `matcher group without a "hooks" array`)
		}
		return
	}
	list, ok := raw.([]any)
	if !ok {
		c.add(FileIgnored, "", append(at, "hooks"), `"hooks" is not an array`)
		return
	}
	for i, h := range list {
		c.hook(event, append(append([]any(nil), at...), "hooks", i), h)
	}
}

func (c *checker) hook(event string, at []any, v any) {
	h, ok := v.(map[string]any)
	if !ok {
		c.add(FileIgnored, "", at, "a hook is not an object")
		return
	}
	typ, _ := h["type"].(string)
	switch {
	case typ == "" && c.host == Claude:
		c.add(FileIgnored, `add "type": "command"`, at, `hook without a "type"`)
		return
	case typ == "" && c.host == Gemini:
		c.add(NeverRuns, `add "type": "command"`, at, `hook without a "type"`)
		return
	case typ == "" || slices.Contains(c.host.HookTypes, typ):
	case c.host == Codex && (typ == "prompt" || typ == "agent"):
		c.add(NeverRuns, "", append(at, "type"), "Codex skips %q hooks", typ)
		return
	default:
		c.add(FileIgnored, "", append(at, "type"), "unknown hook type %q (want %s)", typ, strings.Join(c.host.HookTypes, ", "))
		return
	}
	for key, want := range c.fieldTypes(typ) {
		if val, ok := h[key]; ok && !want.ok(val) {
			c.add(FileIgnored, "", append(at, key), "%q is %s, want %s", key, describe(val), want.name)
		}
	}
	if typ == "command" || typ == "" {
		if _, ok := h["command"].(string); !ok {
			if _, present := h["command"]; !present {
				c.add(FileIgnored, "", at, `command hook without a "command"`)
			}
			return
		}
	}
	to, hasTimeout := h["timeout"].(float64)
	switch {
	case c.host.Millis && hasTimeout && to < 1000:
		c.add(Misconfigured, fmt.Sprintf("timeouts are in milliseconds: %g?", to*1000), append(at, "timeout"),
			"timeout %g is %g ms, seconds written where milliseconds are meant", to, to)
	case !c.host.Millis && hasTimeout && to >= 1000:
		c.add(Misconfigured, fmt.Sprintf("timeouts are in seconds: %g?", to/1000), append(at, "timeout"),
			"timeout %g is %s, milliseconds written where seconds are meant", to, seconds(to))
	}
	if c.host.Millis {
		to /= 1000 // seconds from here on
	}
	if max, ok := c.host.MaxTimeout[event]; ok && hasTimeout && to > float64(max) {
		c.add(Misconfigured, fmt.Sprintf("use %d", max), append(at, "timeout"),
			"%s stops %s hooks after %d s whatever their timeout", c.host.Title, event, max)
	}
	if cmd, _ := h["command"].(string); typ == "command" || typ == "" {
		c.own(event, at, "command", cmd, to, hasTimeout)
		if c.host.Owns(cmd) && slices.Contains(c.host.FailClosed, event) && h["failClosed"] != true {
			c.add(Misconfigured, `add "failClosed": true (agent-hooks install cursor)`, at,
				`agent-hooks' %s hook without "failClosed": true: %s lets the action through when agent-hooks crashes or times out`, event, c.host.Title)
		}
	}
}

// geminiMatcher reports a BeforeTool or AfterTool matcher that names Claude Code's tools, not
// Gemini's (Gemini tests it as a regular expression against its own tool names): its hooks
// never run.
func (c *checker) geminiMatcher(event string, at []any, m string) {
	if (event != "BeforeTool" && event != "AfterTool") || m == "" || m == "*" {
		return
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return // Gemini then compares it as a plain name
	}
	for _, t := range geminiTools {
		if re.MatchString(t) {
			return
		}
	}
	for _, t := range claudeTools {
		if re.MatchString(t) {
			c.add(NeverRuns, "Gemini's shell tool is run_shell_command, Write is write_file, Edit is replace", append(at, "matcher"),
				"matcher %q names Claude Code's tools, not Gemini CLI's", m)
			return
		}
	}
}

// own checks one of agent-hooks' hooks: the program on PATH, --timeout given and equal to the
// host's timeout, within the host's cap.
func (c *checker) own(event string, at []any, cmdKey, cmd string, timeout float64, hasTimeout bool) {
	program, host, flagTimeout, ok := ownCommand(cmd)
	if !ok {
		return
	}
	if host != c.host.Name {
		c.add(Misconfigured, fmt.Sprintf("use %q", c.host.CommandFor(event, DefaultTimeout)), append(at, cmdKey),
			"%s hooks run %q, which speaks %s's protocol", c.host.Title, cmd, host)
	}
	if c.lookPath != nil {
		if _, err := c.lookPath(program); err != nil {
			c.add(NeverRuns, "install agent-hooks on the PATH the agent runs with, or write its absolute path", append(at, cmdKey),
				"%s is not on PATH", program)
		}
	}
	switch {
	case flagTimeout < 0:
		c.add(Misconfigured, "", append(at, cmdKey), "--timeout is not a number of seconds")
	case !hasTimeout:
		c.add(Misconfigured, "run agent-hooks install again", at,
			`no "timeout": the host's default applies, and agent-hooks does not know it`)
	case flagTimeout == 0:
		c.add(Misconfigured, "run agent-hooks install again", append(at, cmdKey),
			"no --timeout: agent-hooks does not know the host's timeout of %s, and may answer after the host gave up on it", seconds(timeout))
	case flagTimeout != timeout:
		c.add(Misconfigured, "run agent-hooks install again", append(at, cmdKey),
			"--timeout %g differs from the host's timeout %g", flagTimeout, timeout)
	}
}

type fieldType struct {
	name string
	ok   func(any) bool
}

var (
	isString    = fieldType{"a string", func(v any) bool { _, ok := v.(string); return ok }}
	isBool      = fieldType{"true or false", func(v any) bool { _, ok := v.(bool); return ok }}
	isPosNum    = fieldType{"a positive number of seconds", func(v any) bool { n, ok := v.(float64); return ok && n > 0 }}
	isPosMillis = fieldType{"a positive number of milliseconds", func(v any) bool { n, ok := v.(float64); return ok && n > 0 }}
	isSeconds   = fieldType{"a whole number of seconds", func(v any) bool { n, ok := v.(float64); return ok && n >= 0 && n == math.Trunc(n) }}
	isStrings   = fieldType{"an array of strings", func(v any) bool {
		l, ok := v.([]any)
		return ok && !slices.ContainsFunc(l, func(e any) bool { _, s := e.(string); return !s })
	}}
	isShell = fieldType{`"bash" or "powershell"`, func(v any) bool { return v == "bash" || v == "powershell" }}
)

// fieldTypes are the types the host's schema gives a hook's fields.
func (c *checker) fieldTypes(typ string) map[string]fieldType {
	switch c.host {
	case Gemini:
		return map[string]fieldType{"command": isString, "timeout": isPosMillis, "name": isString, "description": isString}
	case Cursor:
		return map[string]fieldType{"command": isString, "timeout": isPosNum, "matcher": isString, "failClosed": isBool, "prompt": isString}
	}
	if c.host == Codex {
		return map[string]fieldType{"command": isString, "timeout": isSeconds, "async": isBool, "statusMessage": isString}
	}
	m := map[string]fieldType{"timeout": isPosNum, "statusMessage": isString, "once": isBool, "if": isString}
	switch typ {
	case "command":
		for k, t := range map[string]fieldType{"command": isString, "args": isStrings, "shell": isShell, "async": isBool, "asyncRewake": isBool} {
			m[k] = t
		}
	case "prompt", "agent":
		m["prompt"], m["model"] = isString, isString
	case "http":
		m["url"] = isString
	case "mcp_tool":
		m["server"], m["tool"] = isString, isString
	}
	return m
}

func describe(v any) string {
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

// seconds writes a number of seconds for people.
func seconds(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%g s (%.1f hours)", s, s/3600)
	case s >= 120:
		return fmt.Sprintf("%g s (%.0f minutes)", s, s/60)
	}
	return fmt.Sprintf("%g s", s)
}

func sortedKeys(m map[string]any) []string {
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
