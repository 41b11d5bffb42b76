package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/internal/configfile"
	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// The native config file names.
const (
	ProjectConfigPath = ".autoagent/config.json" // relative to the workspace
	UserConfigName    = "config.json"            // inside AUTOAGENT_HOME
)

// commonFields are the hook fields every type shares; the rest belong to the type.
var commonFields = []string{"type", "name", "timeout", "blocking", "parallel", "enabled", "env", "matcher", "tools", "description"}

// commandFields are the fields of a command hook.
var commandFields = append([]string{"command"}, commonFields...)

// Load reads the native project and user configs and every format registered in reg, validates
// everything, and returns the effective configuration. A *ConfigError lists every problem with its
// file and line:column; nothing may run when it is returned.
func Load(reg *Registry, env LoadEnv) (*Config, error) {
	cfg := &Config{Hooks: map[string][]*Hook{}}
	var errs []Diagnostic

	files, pf, diags, err := readNativeFiles(env)
	if err != nil {
		return nil, err
	}
	errs = append(errs, diags...)
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
	// Rules first, every layer's (the managed layer's first), then the hooks: a rule decides
	// in-process, and a deny spares the hooks after it.
	for _, f := range files {
		byEvent, diags := f.buildRules(reg, cfg.CustomEvents)
		errs = append(errs, diags...)
		for _, event := range sortedKeys(byEvent) {
			cfg.Hooks[event] = append(cfg.Hooks[event], byEvent[event]...)
		}
	}
	for _, f := range files {
		errs = append(errs, f.build(reg, cfg)...)
	}

	env.DisableUserHooks = cfg.DisableUserHooks
	for _, format := range reg.Formats() {
		loaded, err := format.Load(env)
		if err != nil {
			return nil, fmt.Errorf("load %s hooks: %w", format.Name(), err)
		}
		for _, d := range loaded.Diagnostics {
			if d.Severity == SeverityError {
				errs = append(errs, d)
			} else {
				cfg.Warnings = append(cfg.Warnings, d)
			}
		}
		if loaded.Extension != nil {
			cfg.Extensions = append(cfg.Extensions, loaded.Extension)
		}
		for _, h := range loaded.Hooks {
			// A format validates its own hook points; the ones it knows that have no canonical
			// event (babysitter's on-score, …) become custom events of their own name.
			if _, ok := Canonical(h.Event, cfg.CustomEvents); !ok && ValidEventName(h.Event) {
				cfg.CustomEvents = append(cfg.CustomEvents, h.Event)
			}
			if h.Source.File != "" && !slices.Contains(cfg.Files, h.Source.File) {
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
	if len(errs) == 0 {
		errs = append(errs, protect(reg, cfg, env, files)...)
	}
	if len(errs) > 0 {
		return nil, &ConfigError{Diagnostics: errs}
	}
	return cfg, nil
}

// readNativeFiles reads the native files in run order: managed, project, the extra config, user
// (unless the project's disableUserHooks). A missing managed, project or user file configures
// nothing; a missing extra config was named explicitly, so it is an error. pf is the project's
// file (nil when it has none); diags are the files' parse errors (a file with any is left out).
func readNativeFiles(env LoadEnv) (files []*nativeFile, pf *nativeFile, diags []Diagnostic, err error) {
	read := func(path, scope string, required bool) (*nativeFile, error) {
		f, ds, err := readNative(path, scope)
		switch {
		case err != nil:
			return nil, err
		case f == nil && len(ds) == 0 && required:
			return nil, fmt.Errorf("read %s: %w", path, fs.ErrNotExist)
		}
		diags = append(diags, ds...)
		if f != nil {
			files = append(files, f)
		}
		return f, nil
	}
	if env.ManagedConfig != "" {
		if _, err := read(env.ManagedConfig, ScopeManaged, false); err != nil {
			return nil, nil, nil, fmt.Errorf("managed configuration: %w", err)
		}
	}
	project := filepath.Join(env.Workspace, filepath.FromSlash(ProjectConfigPath))
	pf, err = read(project, "project", false)
	if err != nil {
		return nil, nil, nil, err
	}
	if env.ExtraConfig != "" {
		if _, err := read(env.ExtraConfig, "extra", true); err != nil {
			return nil, nil, nil, err
		}
	}
	if user := filepath.Join(env.AutoagentHome, UserConfigName); env.AutoagentHome != "" &&
		(pf == nil || !pf.disableUserHooks) && !samePath(user, project) {
		if _, err := read(user, "user", false); err != nil {
			return nil, nil, nil, err
		}
	}
	return files, pf, diags, nil
}

// Sections reads the top-level key of every native file of env (the managed, project, extra
// and user files, as Load reads them) without loading any hook: what a command that needs one
// setting of a workspace (a "sessions" limit) reads instead of its whole configuration. The
// sections are in run order, as Config.Sections holds them; a file that does not parse is a
// *ConfigError, as Load would report it.
func Sections(env LoadEnv, key string) ([]Section, error) {
	files, _, diags, err := readNativeFiles(env)
	if err != nil {
		return nil, err
	}
	if len(diags) > 0 {
		return nil, &ConfigError{Diagnostics: diags}
	}
	var out []Section
	for _, f := range files {
		for _, sec := range f.sections {
			if sec.Key == key {
				out = append(out, sec)
			}
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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
	path             string
	scope            string
	doc              *jsonpos.Doc
	customEvents     []string
	disableUserHooks bool
	stopBlockLimit   *int
	events           []jsonpos.Member // the members of "hooks", in file order
	rules            *jsonpos.Value   // "rules"
	ruleSets         []ruleSetRef     // "ruleSets"
	protectConfig    *bool            // "protectConfig"
	protectOffset    int
	sections         []Section // the top-level keys that are not hooks' own
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
	f := &nativeFile{path: path, scope: scope}
	if diags := f.parse(src); len(diags) > 0 {
		return nil, diags, nil
	}
	return f, nil, nil
}

func (f *nativeFile) diag(offset int, format string, args ...any) Diagnostic {
	line, col := f.doc.LineCol(offset)
	return Diagnostic{Severity: SeverityError, File: f.path, Line: line, Col: col, Message: fmt.Sprintf(format, args...)}
}

// parse reads the file's top level; each event key and each hook keeps its position. A key
// repeated in any object is an error: other JSON readers keep only the last of them, while this
// walk would use both (a repeated event ran both lists), so it is not a meaning to guess. Every
// repeat is reported.
func (f *nativeFile) parse(src []byte) []Diagnostic {
	f.doc = &jsonpos.Doc{Src: src}
	if len(bytes.TrimSpace(src)) == 0 {
		return nil // an empty file configures nothing
	}
	doc, err := jsonpos.Parse(src)
	var syn *jsonpos.SyntaxError
	if errors.As(err, &syn) {
		return []Diagnostic{f.diag(syn.Offset, "invalid JSON: %s", syn.Msg)}
	}
	if err != nil {
		return []Diagnostic{f.diag(0, "invalid JSON: %v", err)}
	}
	f.doc = doc
	if len(doc.Duplicates) > 0 {
		diags := make([]Diagnostic, len(doc.Duplicates))
		for i, d := range doc.Duplicates {
			prefix := ""
			if d.Path != "" {
				prefix = d.Path + ": "
			}
			diags[i] = f.diag(d.Offset, "%s%s; JSON readers keep only the last, so say it once", prefix, d.Message())
		}
		return diags
	}
	if doc.Root.Kind != jsonpos.Object {
		return []Diagnostic{f.diag(doc.Root.Start, "the config must be a JSON object")}
	}
	for _, m := range doc.Root.Members {
		v := m.Value
		switch m.Key {
		case "hooks":
			if v.Kind != jsonpos.Object {
				return []Diagnostic{f.diag(v.Start, `"hooks" must be an object mapping event names to arrays of hooks`)}
			}
			for _, e := range v.Members {
				if e.Value.Kind != jsonpos.Array {
					return []Diagnostic{f.diag(e.Value.Start, "hooks.%s: want an array of hooks", e.Key)}
				}
			}
			f.events = v.Members
		case "customEvents":
			var names []string
			if err := f.doc.Decode(v, &names); err != nil {
				return []Diagnostic{f.diag(v.Start, "customEvents: must be an array of event names")}
			}
			for _, n := range names {
				if !ValidEventName(n) {
					return []Diagnostic{f.diag(v.Start, "customEvents: %q is not a valid event name (letters, digits, _ . : -, starting with a letter)", n)}
				}
			}
			f.customEvents = names
		case "disableUserHooks":
			if err := f.doc.Decode(v, &f.disableUserHooks); err != nil {
				return []Diagnostic{f.diag(v.Start, "disableUserHooks: want true or false")}
			}
		case "rules":
			if v.Kind != jsonpos.Array {
				return []Diagnostic{f.diag(v.Start, `"rules" must be an array of rules`)}
			}
			f.rules = v
		case "ruleSets":
			if v.Kind != jsonpos.Array {
				return []Diagnostic{f.diag(v.Start, `"ruleSets" must be an array of rule set names`)}
			}
			for _, e := range v.Elems {
				var name string
				if e.Kind != jsonpos.String || f.doc.Decode(e, &name) != nil {
					return []Diagnostic{f.diag(e.Start, "ruleSets: want the name of a built-in rule set")}
				}
				f.ruleSets = append(f.ruleSets, ruleSetRef{name: name, offset: e.Start})
			}
		case "protectConfig":
			var b bool
			if err := f.doc.Decode(v, &b); err != nil {
				return []Diagnostic{f.diag(v.Start, "protectConfig: want true or false")}
			}
			f.protectConfig, f.protectOffset = &b, v.Start
		case "stopBlockLimit":
			var n int
			if err := f.doc.Decode(v, &n); err != nil || n < 0 {
				return []Diagnostic{f.diag(v.Start, "stopBlockLimit: want a whole number >= 0 (0 = unlimited)")}
			}
			f.stopBlockLimit = &n
		default:
			// "$schema" is left alone; the sections other packages of agent-hooks own
			// ("telemetry", "sessions") and other tools' keys (providers, logLevel, …) are kept
			// as they are.
			if m.Key != "$schema" {
				line, col := f.doc.LineCol(v.Start)
				f.sections = append(f.sections, Section{Key: m.Key, Value: json.RawMessage(f.doc.Raw(v)), File: f.path, Scope: f.scope, Line: line, Col: col})
			}
		}
	}
	return nil
}

// build validates the hooks of the file and adds them to cfg.
func (f *nativeFile) build(reg *Registry, cfg *Config) []Diagnostic {
	var errs []Diagnostic
	for _, e := range f.events {
		event, err := ResolveEvent(e.Key, cfg.CustomEvents)
		if err != nil {
			errs = append(errs, f.diag(e.KeyStart, "hooks: %v", err))
			continue
		}
		for _, v := range e.Value.Elems {
			h, d := f.buildHook(reg, event, v)
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
	Tools       *string           `json:"tools"`
	Description string            `json:"description"`
}

func (f *nativeFile) buildHook(reg *Registry, event string, v *jsonpos.Value) (*Hook, *Diagnostic) {
	fail := func(format string, args ...any) (*Hook, *Diagnostic) {
		d := f.diag(v.Start, "hooks.%s: "+format, append([]any{event}, args...)...)
		return nil, &d
	}
	if v.Kind != jsonpos.Object {
		return fail("each hook must be an object")
	}
	var hf hookFields
	if err := f.doc.Decode(v, &hf); err != nil {
		var te *jsonpos.TypeError
		if !errors.As(err, &te) {
			return fail("%v", err)
		}
		d := f.diag(te.Offset, "hooks.%s: %s: want %s, got JSON %s", event, te.Field, te.Want, te.Got)
		return nil, &d
	}
	line, col := f.doc.LineCol(v.Start)
	raw := json.RawMessage(f.doc.Raw(v))
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
		Options:  raw,
		Source:   Source{Format: "autoagent", Scope: f.scope, File: f.path, Line: line, Col: col},
	}
	if h.Type == "" {
		h.Type = TypeCommand
	}
	if hf.Timeout != nil {
		d, err := ParseDuration("timeout", hf.Timeout)
		if err == nil && d <= 0 {
			err = fmt.Errorf("timeout: must be positive, got %s", hf.Timeout)
		}
		if err != nil {
			return fail("%v", err)
		}
		h.Timeout = d
	}
	if h.Matcher != nil {
		if h.Matcher.Field == "" {
			return fail(`matcher: "field" is required`)
		}
		if _, err := regexp.Compile(h.Matcher.Regex); err != nil {
			return fail("matcher: bad regex: %v", err)
		}
	}
	if hf.Tools != nil {
		m, err := CompileTools(*hf.Tools)
		if err != nil {
			return fail("tools: %v", err)
		}
		h.Tools = m
	}
	for k := range h.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fail("env: %q is not a valid variable name", k)
		}
	}
	if h.Type == TypeCommand {
		if unknown := unknownKey(v.Members, commandFields); unknown != "" {
			return fail("%s", unknownFieldMessage(unknown, commandFields))
		}
		if strings.TrimSpace(h.Command) == "" {
			return fail(`command hook needs a "command"`)
		}
		if perr := template.CheckPlacements(h.Command); perr != nil {
			cmd, _ := v.Get("command")
			d := f.diag(cmd.Start+jsonpos.StringOffset(f.doc.Raw(cmd), perr.Offset), "hooks.%s: command: %v", event, perr)
			return nil, &d
		}
	} else {
		rest := map[string]json.RawMessage{}
		for _, m := range v.Members {
			if !slices.Contains(commonFields, m.Key) {
				rest[m.Key] = f.doc.Raw(m.Value)
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

// unknownKey is the first (in sorted order) key of members that is not known.
func unknownKey(members []jsonpos.Member, known []string) string {
	var unknown []string
	for _, m := range members {
		if !slices.Contains(known, m.Key) {
			unknown = append(unknown, m.Key)
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	return slices.Min(unknown)
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

// DecodeOptions decodes a built-in type's options strictly: an unknown field is an error naming
// it (and the nearest known field), so a misspelt option is never a silent default, and every
// other error names the option it is about ("pollInterval: …"). Empty options leave v as it is.
func DecodeOptions(options json.RawMessage, v any) error {
	if len(bytes.TrimSpace(options)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(options))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if field, ok := strings.CutPrefix(msg, "unknown field "); ok {
		if name, err := strconv.Unquote(field); err == nil {
			return UnknownFieldError(name, jsonFieldNames(v))
		}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("%s: want %s, got JSON %s", jsonPath(reflect.TypeOf(v), te.Field), jsonpos.Want(te.Type), te.Value)
	}
	if option := failingOption(options, v); option != "" {
		return fmt.Errorf("%s: %s", option, msg)
	}
	return errors.New(msg)
}

// failingOption is the first option (in name order) that alone fails to decode into v's type:
// the option an UnmarshalJSON method's error is about, which encoding/json does not say.
func failingOption(options json.RawMessage, v any) string {
	var members map[string]json.RawMessage
	t := reflect.TypeOf(v)
	if json.Unmarshal(options, &members) != nil || t.Kind() != reflect.Pointer {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(members)) {
		one, _ := json.Marshal(map[string]json.RawMessage{k: members[k]})
		if json.Unmarshal(one, reflect.New(t.Elem()).Interface()) != nil {
			return k
		}
	}
	return ""
}

// jsonPath is the field path of an UnmarshalTypeError (decoding into a value of type t) as the
// JSON has it: without the names of embedded structs.
func jsonPath(t reflect.Type, field string) string {
	var out []string
	for seg := range strings.SplitSeq(field, ".") {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		var f *reflect.StructField
		for i := 0; t != nil && t.Kind() == reflect.Struct && i < t.NumField(); i++ {
			sf := t.Field(i)
			if name, _, _ := strings.Cut(sf.Tag.Get("json"), ","); name == seg || name == "" && sf.Name == seg {
				f = &sf
				break
			}
		}
		if f == nil || !f.Anonymous {
			out = append(out, seg)
		}
		t = nil
		if f != nil {
			t = f.Type
		}
	}
	return strings.Join(out, ".")
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
