package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/autoagent/agent-hooks/internal/configfile"
)

// The native config file names.
const (
	ProjectConfigPath = ".autoagent/config.json" // relative to the workspace
	UserConfigName    = "config.json"            // inside AUTOAGENT_HOME
)

// commonFields are the hook fields every type shares; the rest belong to the type.
var commonFields = []string{"type", "name", "timeout", "blocking", "parallel", "enabled", "env", "matcher", "description"}

// commandFields are the fields of a command hook.
var commandFields = append([]string{"command"}, commonFields...)

// Load reads the native project and user configs and every format registered in reg, validates
// everything, and returns the effective configuration. A *ConfigError lists every problem with its
// file and line:column; nothing may run when it is returned.
func Load(reg *Registry, env LoadEnv) (*Config, error) {
	cfg := &Config{Hooks: map[string][]*Hook{}, Settings: map[string]any{}}
	var errs []Diagnostic

	// The native files in run order: project, the extra config, user. A missing project or user
	// file configures nothing; a missing extra config was named explicitly, so it is an error.
	var files []*nativeFile
	read := func(path, scope string, required bool) (*nativeFile, error) {
		f, diags, err := readNative(path, scope)
		switch {
		case err != nil:
			return nil, err
		case f == nil && len(diags) == 0 && required:
			return nil, fmt.Errorf("read %s: %w", path, fs.ErrNotExist)
		}
		errs = append(errs, diags...)
		if f != nil {
			files = append(files, f)
		}
		return f, nil
	}
	project := filepath.Join(env.Workspace, filepath.FromSlash(ProjectConfigPath))
	pf, err := read(project, "project", false)
	if err != nil {
		return nil, err
	}
	if env.ExtraConfig != "" {
		if _, err := read(env.ExtraConfig, "extra", true); err != nil {
			return nil, err
		}
	}
	if user := filepath.Join(env.AutoagentHome, UserConfigName); env.AutoagentHome != "" &&
		(pf == nil || !pf.disableUserHooks) && !samePath(user, project) {
		if _, err := read(user, "user", false); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		for _, sec := range f.sections {
			if cfg.Sections == nil {
				cfg.Sections = map[string][]Section{}
			}
			cfg.Sections[sec.Key] = append(cfg.Sections[sec.Key], sec)
		}
		cfg.Files = append(cfg.Files, f.path)
		cfg.CustomEvents = append(cfg.CustomEvents, f.customEvents...)
		if f.stopBlockLimit != nil && cfg.StopBlockLimit == nil {
			cfg.StopBlockLimit = f.stopBlockLimit
		}
	}
	if pf != nil {
		cfg.DisableUserHooks = pf.disableUserHooks
	}
	for _, f := range files {
		errs = append(errs, f.build(reg, cfg)...)
	}

	env.DisableUserHooks = cfg.DisableUserHooks
	for _, format := range reg.Formats() {
		hooks, diags, err := format.Load(env)
		if err != nil {
			return nil, fmt.Errorf("load %s hooks: %w", format.Name(), err)
		}
		for _, d := range diags {
			if d.Severity == SeverityError {
				errs = append(errs, d)
			} else {
				cfg.Warnings = append(cfg.Warnings, d)
			}
		}
		if sp, ok := format.(SettingsProvider); ok {
			settings, err := sp.Settings(env)
			if err != nil {
				return nil, fmt.Errorf("load %s settings: %w", format.Name(), err)
			}
			maps.Copy(cfg.Settings, settings)
		}
		for _, h := range hooks {
			// A format validates its own hook points; the ones it knows that have no canonical
			// event (babysitter's on-score, …) become custom events of their own name.
			if _, ok := Canonical(h.Event, cfg.CustomEvents); !ok && ValidEventName(h.Event) {
				cfg.CustomEvents = append(cfg.CustomEvents, h.Event)
			}
			if h.Source.File != "" && !contains(cfg.Files, h.Source.File) {
				cfg.Files = append(cfg.Files, h.Source.File)
			}
			if err := bindType(reg, h, h.Options); err != nil {
				errs = append(errs, Diagnostic{Severity: SeverityError, File: h.Source.File, Line: h.Source.Line, Col: h.Source.Col, Message: err.Error()})
				continue
			}
			if h.Source.Format == "" {
				h.Source.Format = format.Name()
			}
			cfg.Hooks[h.Event] = append(cfg.Hooks[h.Event], h)
		}
	}
	if len(errs) > 0 {
		return nil, &ConfigError{Diagnostics: errs}
	}
	return cfg, nil
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

// nativeFile is one parsed AutoAgent config.json.
type nativeFile struct {
	lineStarts       []int64 // offsets where lines begin, computed on first use
	path             string
	scope            string
	src              []byte
	customEvents     []string
	disableUserHooks bool
	stopBlockLimit   *int
	events           []eventEntry // in file order
	sections         []Section    // the top-level keys that are not hooks' own
}

type eventEntry struct {
	key    string
	offset int64 // of the key
	hooks  []rawHook
}

type rawHook struct {
	offset int64
	raw    json.RawMessage
}

// readNative parses a config file; a missing file is (nil, nil, nil), while a link to a missing
// file, a file that is not a regular file and one too large are errors (configfile.Read).
func readNative(path, scope string) (*nativeFile, []Diagnostic, error) {
	src, err := configfile.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	f := &nativeFile{path: path, scope: scope, src: src}
	if d := f.parse(); d != nil {
		return nil, []Diagnostic{*d}, nil
	}
	if diags := f.duplicateKeys(); len(diags) > 0 {
		return nil, diags, nil
	}
	return f, nil, nil
}

// duplicateKeys reports every key that repeats one before it in the same object, anywhere in the
// file (the file's syntax is valid). Other JSON readers keep only the last of them, while the
// walk in parse would have used both (a repeated event key ran both lists), so a repeated key is
// an error rather than a meaning to guess. It walks the tokens of the same encoding/json decoder
// parse uses, tracking where each key starts.
func (f *nativeFile) duplicateKeys() []Diagnostic {
	type frame struct {
		object  bool
		path    string           // where the container is: "", "hooks", "hooks.Stop[0]"
		keys    map[string]int64 // object: offset of each key's first occurrence
		wantKey bool             // object: the next token is a key
		key     string           // object: the key whose value is being read
		index   int              // array: the index of the next element
	}
	dec := json.NewDecoder(bytes.NewReader(f.src))
	dec.UseNumber()
	var stack []*frame
	var diags []Diagnostic
	// child is the path of the value about to be read in the innermost container.
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.object {
			if top.path == "" {
				return top.key
			}
			return top.path + "." + top.key
		}
		return fmt.Sprintf("%s[%d]", top.path, top.index)
	}
	// valueDone moves the innermost container past the value just read.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		if top := stack[len(stack)-1]; top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return diags // io.EOF; syntax errors were reported by parse
		}
		if len(stack) > 0 {
			if top := stack[len(stack)-1]; top.object && top.wantKey {
				if key, ok := tok.(string); ok {
					at := keyStart(f.src, dec.InputOffset())
					if first, dup := top.keys[key]; dup {
						line, col := f.lineCol(first)
						prefix := ""
						if top.path != "" {
							prefix = top.path + ": "
						}
						diags = append(diags, f.diag(at, "%sduplicate key %q (first at %d:%d); JSON readers keep only the last, so say it once", prefix, key, line, col))
					} else {
						top.keys[key] = at
					}
					top.key, top.wantKey = key, false
					continue
				}
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, path: child(), keys: map[string]int64{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: child()})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

func (f *nativeFile) diag(offset int64, format string, args ...any) Diagnostic {
	line, col := f.lineCol(offset)
	return Diagnostic{Severity: SeverityError, File: f.path, Line: line, Col: col, Message: fmt.Sprintf(format, args...)}
}

// jsonDiag turns a decoding error into a positioned diagnostic.
func (f *nativeFile) jsonDiag(err error, base int64) Diagnostic {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return f.diag(base+syn.Offset-1, "invalid JSON: %v", syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "value"
		}
		return f.diag(base+typ.Offset-1, "%s: want %s, got JSON %s", field, goTypeName(typ.Type.String()), typ.Value)
	case errors.Is(err, errUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return f.diag(int64(len(f.src)), "invalid JSON: unexpected end of file")
	default:
		return f.diag(base, "invalid JSON: %v", err)
	}
}

var errUnexpectedEOF = errors.New("unexpected end of file")

func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "struct"):
		return "an object"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "float"), t == "json.Number":
		return "a number"
	}
	return t
}

// parse walks the top level with a token decoder so that every event key and every hook keeps
// its position in the file.
func (f *nativeFile) parse() *Diagnostic {
	if len(bytes.TrimSpace(f.src)) == 0 {
		return nil // an empty file configures nothing
	}
	// json.Unmarshal reports the exact offset of a syntax error (the streaming decoder below
	// only knows where its buffer started), so check the syntax first.
	if err := json.Unmarshal(f.src, new(any)); err != nil {
		d := f.jsonDiag(err, 0)
		return &d
	}
	dec := json.NewDecoder(bytes.NewReader(f.src))
	dec.UseNumber()
	fail := func(err error) *Diagnostic {
		d := f.jsonDiag(err, 0)
		return &d
	}
	tok, err := dec.Token()
	if err != nil {
		return fail(err)
	}
	if tok != json.Delim('{') {
		d := f.diag(0, "the config must be a JSON object")
		return &d
	}
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key := keyTok.(string)
		keyOffset := keyStart(f.src, dec.InputOffset())
		switch key {
		case "hooks":
			if d := f.parseHooks(dec); d != nil {
				return d
			}
		case "customEvents":
			var names []string
			start := skipSpace(f.src, dec.InputOffset())
			if err := dec.Decode(&names); err != nil {
				d := f.jsonDiag(err, start)
				d.Message = "customEvents: must be an array of event names"
				return &d
			}
			for _, n := range names {
				if !ValidEventName(n) {
					d := f.diag(start, "customEvents: %q is not a valid event name (letters, digits, _ . : -, starting with a letter)", n)
					return &d
				}
			}
			f.customEvents = names
		case "disableUserHooks":
			start := skipSpace(f.src, dec.InputOffset())
			if err := dec.Decode(&f.disableUserHooks); err != nil {
				d := f.diag(start, "disableUserHooks: want true or false")
				return &d
			}
		case "stopBlockLimit":
			start := skipSpace(f.src, dec.InputOffset())
			var n int
			if err := dec.Decode(&n); err != nil || n < 0 {
				d := f.diag(start, "stopBlockLimit: want a whole number >= 0 (0 = unlimited)")
				return &d
			}
			f.stopBlockLimit = &n
		default:
			// "$schema", the sections other packages of agent-hooks own ("telemetry",
			// "sessions"), and other tools' keys (providers, logLevel, …): kept as they are
			start := skipSpace(f.src, dec.InputOffset())
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return fail(err)
			}
			_ = keyOffset
			if key != "$schema" {
				line, col := f.lineCol(start)
				f.sections = append(f.sections, Section{Key: key, Value: raw, File: f.path, Scope: f.scope, Line: line, Col: col})
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	if _, err := dec.Token(); err == nil {
		d := f.diag(dec.InputOffset(), "invalid JSON: unexpected data after the top-level object")
		return &d
	}
	return nil
}

func (f *nativeFile) parseHooks(dec *json.Decoder) *Diagnostic {
	start := skipSpace(f.src, dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		d := f.jsonDiag(err, 0)
		return &d
	}
	if tok != json.Delim('{') {
		d := f.diag(start, `"hooks" must be an object mapping event names to arrays of hooks`)
		return &d
	}
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			d := f.jsonDiag(err, 0)
			return &d
		}
		entry := eventEntry{key: keyTok.(string), offset: keyStart(f.src, dec.InputOffset())}
		arrStart := skipSpace(f.src, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			d := f.jsonDiag(err, 0)
			return &d
		}
		if tok != json.Delim('[') {
			d := f.diag(arrStart, "hooks.%s: want an array of hooks", entry.key)
			return &d
		}
		for dec.More() {
			at := skipSpaceComma(f.src, dec.InputOffset())
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				d := f.jsonDiag(err, at)
				return &d
			}
			entry.hooks = append(entry.hooks, rawHook{offset: at, raw: raw})
		}
		if _, err := dec.Token(); err != nil {
			d := f.jsonDiag(err, 0)
			return &d
		}
		f.events = append(f.events, entry)
	}
	if _, err := dec.Token(); err != nil {
		d := f.jsonDiag(err, 0)
		return &d
	}
	return nil
}

// build validates the hooks of the file and adds them to cfg.
func (f *nativeFile) build(reg *Registry, cfg *Config) []Diagnostic {
	var errs []Diagnostic
	for _, e := range f.events {
		event, err := ResolveEvent(e.key, cfg.CustomEvents)
		if err != nil {
			errs = append(errs, f.diag(e.offset, "hooks: %v", err))
			continue
		}
		for _, rh := range e.hooks {
			h, d := f.buildHook(reg, event, rh)
			if d != nil {
				errs = append(errs, *d)
				continue
			}
			cfg.Hooks[event] = append(cfg.Hooks[event], h)
		}
	}
	return errs
}

// hookFields are the common fields as decoded.
type hookFields struct {
	Type        string            `json:"type"`
	Name        string            `json:"name"`
	Command     string            `json:"command"`
	Timeout     json.RawMessage   `json:"timeout"`
	Blocking    bool              `json:"blocking"`
	Parallel    bool              `json:"parallel"`
	Enabled     *bool             `json:"enabled"`
	Env         map[string]string `json:"env"`
	Matcher     *Matcher          `json:"matcher"`
	Description string            `json:"description"`
}

func (f *nativeFile) buildHook(reg *Registry, event string, rh rawHook) (*Hook, *Diagnostic) {
	fail := func(format string, args ...any) (*Hook, *Diagnostic) {
		d := f.diag(rh.offset, "hooks.%s: "+format, append([]any{event}, args...)...)
		return nil, &d
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(rh.raw, &fields); err != nil {
		return fail("each hook must be an object")
	}
	var hf hookFields
	dec := json.NewDecoder(bytes.NewReader(rh.raw))
	dec.UseNumber()
	if err := dec.Decode(&hf); err != nil {
		d := f.jsonDiag(err, rh.offset)
		d.Message = "hooks." + event + ": " + d.Message
		return nil, &d
	}
	line, col := f.lineCol(rh.offset)
	h := &Hook{
		Name:     hf.Name,
		Type:     hf.Type,
		Event:    event,
		Command:  hf.Command,
		Blocking: hf.Blocking,
		Parallel: hf.Parallel,
		Enabled:  hf.Enabled == nil || *hf.Enabled,
		Env:      hf.Env,
		Matcher:  hf.Matcher,
		Options:  rh.raw,
		Source:   Source{Format: "autoagent", Scope: f.scope, File: f.path, Line: line, Col: col},
	}
	if h.Type == "" {
		h.Type = TypeCommand
	}
	if hf.Timeout != nil {
		ms, err := strconv.ParseInt(string(hf.Timeout), 10, 64)
		if err != nil || ms <= 0 {
			return fail("timeout: want a positive whole number of milliseconds, got %s", hf.Timeout)
		}
		h.Timeout = time.Duration(ms) * time.Millisecond
	}
	if h.Matcher != nil {
		if h.Matcher.Field == "" {
			return fail(`matcher: "field" is required`)
		}
		if _, err := regexp.Compile(h.Matcher.Regex); err != nil {
			return fail("matcher: bad regex: %v", err)
		}
	}
	for k := range h.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fail("env: %q is not a valid variable name", k)
		}
	}
	if h.Type == TypeCommand {
		if unknown := unknownKey(fields, commandFields); unknown != "" {
			return fail("%s", unknownFieldMessage(unknown, commandFields))
		}
		if strings.TrimSpace(h.Command) == "" {
			return fail(`command hook needs a "command"`)
		}
	} else {
		rest := map[string]json.RawMessage{}
		for k, v := range fields {
			if !contains(commonFields, k) {
				rest[k] = v
			}
		}
		opts, _ := json.Marshal(rest)
		if err := bindType(reg, h, opts); err != nil {
			return fail("%v", err)
		}
	}
	if h.Name == "" {
		h.Name = defaultName(h)
	}
	return h, nil
}

// bindType resolves a non-command hook's type through the registry.
func bindType(reg *Registry, h *Hook, opts json.RawMessage) error {
	if h.Type == TypeCommand || h.Type == "" {
		if h.Type == "" {
			h.Type = TypeCommand
		}
		if h.Name == "" {
			h.Name = defaultName(h)
		}
		return nil
	}
	t, ok := reg.Type(h.Type)
	if !ok {
		names := reg.TypeNames()
		msg := fmt.Sprintf("unknown hook type %q", h.Type)
		if s := Suggest(h.Type, names); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		} else {
			msg += " (known: " + strings.Join(names, ", ") + ")"
		}
		return errors.New(msg)
	}
	if len(opts) == 0 {
		opts = json.RawMessage("{}")
	}
	r, err := t.Configure(h, opts)
	if err != nil {
		return fmt.Errorf("%s hook: %w", h.Type, err)
	}
	h.runner = r
	if h.Name == "" {
		h.Name = defaultName(h)
	}
	return nil
}

func defaultName(h *Hook) string {
	if h.Type != TypeCommand {
		return h.Type
	}
	name := strings.Join(strings.Fields(h.Command), " ")
	if len(name) > 60 {
		name = name[:57] + "..."
	}
	return name
}

func unknownKey(fields map[string]json.RawMessage, known []string) string {
	var unknown []string
	for k := range fields {
		if !contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) == 0 {
		return ""
	}
	return unknown[0]
}

func unknownFieldMessage(field string, known []string) string {
	msg := fmt.Sprintf("unknown field %q", field)
	if s := Suggest(field, known); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

// UnknownFieldError returns an error for a field a type does not know, suggesting the nearest
// known one. Built-in types use it so that every typo reads the same.
func UnknownFieldError(field string, known []string) error {
	return errors.New(unknownFieldMessage(field, known))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lineCol is LineCol with the file's line index, so that positioning every hook stays linear.
func (f *nativeFile) lineCol(offset int64) (line, col int) {
	if f.lineStarts == nil {
		f.lineStarts = []int64{0}
		for i, c := range f.src {
			if c == '\n' {
				f.lineStarts = append(f.lineStarts, int64(i+1))
			}
		}
	}
	offset = min(max(offset, 0), int64(len(f.src)))
	i := sort.Search(len(f.lineStarts), func(i int) bool { return f.lineStarts[i] > offset }) - 1
	start := f.lineStarts[i]
	return i + 1, utf8.RuneCount(f.src[start:offset]) + 1
}

// LineCol converts a byte offset in src to a 1-based line and column (columns count runes).
func LineCol(src []byte, offset int64) (line, col int) {
	if offset < 0 {
		offset = 0
	}
	if offset > int64(len(src)) {
		offset = int64(len(src))
	}
	line, col = 1, 1
	for _, r := range string(src[:offset]) {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// keyStart finds the opening quote of the object key that ends at end.
func keyStart(src []byte, end int64) int64 {
	i := end - 1
	for i > 0 && src[i] != '"' {
		i--
	}
	for i--; i > 0; i-- {
		if src[i] == '"' && src[i-1] != '\\' {
			return i
		}
	}
	return max(i, 0)
}

func skipSpace(src []byte, i int64) int64 {
	for i < int64(len(src)) && strings.IndexByte(" \t\r\n:", src[i]) >= 0 {
		i++
	}
	return i
}

func skipSpaceComma(src []byte, i int64) int64 {
	for i < int64(len(src)) && strings.IndexByte(" \t\r\n,[", src[i]) >= 0 {
		i++
	}
	return i
}

// DecodeOptions decodes a built-in type's options strictly: an unknown field is an error naming
// it (and the nearest known field), so a misspelt option is never a silent default. Empty options
// leave v as it is.
func DecodeOptions(options json.RawMessage, v any) error {
	if len(bytes.TrimSpace(options)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(options))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if field, ok := strings.CutPrefix(msg, "unknown field "); ok {
			if name, err := strconv.Unquote(field); err == nil {
				return UnknownFieldError(name, jsonFieldNames(v))
			}
		}
		return errors.New(msg)
	}
	return nil
}

// jsonFieldNames lists the JSON names of a struct's fields (v is a pointer to a struct).
func jsonFieldNames(v any) []string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case name != "":
			names = append(names, name)
		case f.Anonymous:
			names = append(names, jsonFieldNames(reflect.New(f.Type).Interface())...)
		default:
			names = append(names, f.Name)
		}
	}
	return names
}
