package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// TypeRule is the hook type of a rule ("rules" in a native config file). The type itself is
// registered from outside (package rules); the loader turns each rule into one hook per event of
// its "on", ahead of the hooks.
const TypeRule = "rule"

// Decider is a built-in that decides in-process and without side effects (a rule). The engine
// asks it before starting anything, and records it (audit line, span, result) only when it
// decides: a rule that does not apply leaves no trace and costs no process.
type Decider interface {
	Task
	Decide(inv *Invocation) (o Outcome, decided bool)
}

// RuleType is the type registered as TypeRule: it compiles a rule from the loader's own parse of
// it (every rule is compiled on every load: a second JSON decoding was most of its cost). The
// rule object is whole; the loader has read name, on, tools and description.
type RuleType interface {
	Type
	CompileRule(h *Hook, rule *jsonpos.Value) (Task, error)
}

// ruleEvents are the events a rule applies to when it names none.
var ruleEvents = []string{PreToolUse}

// rawRule is one rule as written, with where it is.
type rawRule struct {
	doc   *jsonpos.Doc
	value *jsonpos.Value
	path  string // "rules[2]"
	set   string // the built-in rule set it comes from ("" for a file's own)
}

// buildRules turns the rules of one native file (its own and those of the rule sets it includes)
// into hooks, one per event of each rule, and returns them by event in file order.
func (f *nativeFile) buildRules(reg *Registry, customEvents []string) (map[string][]*Hook, []Diagnostic) {
	var raws []rawRule
	var errs []Diagnostic
	for _, set := range f.ruleSets {
		src, ok := reg.RuleSet(set.name)
		if !ok {
			msg := fmt.Sprintf("ruleSets: unknown rule set %q", set.name)
			if s := Suggest(set.name, reg.RuleSetNames()); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else {
				msg += " (known: " + strings.Join(reg.RuleSetNames(), ", ") + ")"
			}
			errs = append(errs, f.diag(set.offset, "%s", msg))
			continue
		}
		doc, err := jsonpos.Parse(src)
		if err != nil || doc.Root.Kind != jsonpos.Array {
			panic(fmt.Sprintf("hooks: built-in rule set %q is not a JSON array: %v", set.name, err)) // a build bug
		}
		for i, v := range doc.Root.Elems {
			raws = append(raws, rawRule{doc: doc, value: v, path: fmt.Sprintf("rule set %s[%d]", set.name, i), set: set.name})
		}
	}
	if f.rules != nil {
		for i, v := range f.rules.Elems {
			raws = append(raws, rawRule{doc: f.doc, value: v, path: fmt.Sprintf("rules[%d]", i)})
		}
	}
	out := map[string][]*Hook{}
	names := map[string]bool{}
	for _, raw := range raws {
		hs, d := f.buildRule(reg, raw, customEvents, names)
		if d != nil {
			errs = append(errs, *d)
			continue
		}
		for _, h := range hs {
			out[h.Event] = append(out[h.Event], h)
		}
	}
	return out, errs
}

// ruleCommon are the fields of a rule the loader reads.
type ruleCommon struct {
	Name  string
	On    *jsonpos.Value
	Tools *string
}

func (f *nativeFile) buildRule(reg *Registry, raw rawRule, customEvents []string, names map[string]bool) ([]*Hook, *Diagnostic) {
	at := func(v *jsonpos.Value) int {
		if raw.doc != f.doc {
			return f.ruleSetOffset(raw.set) // a built-in set's rule: point at its name in ruleSets
		}
		return v.Start
	}
	named := "" // the rule's name, once read: errors say "file (name)"
	fail := func(v *jsonpos.Value, format string, args ...any) ([]*Hook, *Diagnostic) {
		label := raw.path
		if named != "" {
			label = fmt.Sprintf("%s (%s)", raw.path, named)
		}
		d := f.diag(at(v), "%s: "+format, append([]any{label}, args...)...)
		return nil, &d
	}
	v := raw.value
	if v.Kind != jsonpos.Object {
		return fail(v, "each rule must be an object")
	}
	var c ruleCommon
	for _, m := range v.Members {
		switch m.Key {
		case "name", "description":
			if m.Value.Kind != jsonpos.String {
				return fail(m.Value, "%s: want a string, got JSON %s", m.Key, m.Value.Kind)
			}
			if m.Key == "name" {
				c.Name = m.Value.Str
			}
		case "tools":
			if m.Value.Kind != jsonpos.String {
				return fail(m.Value, "tools: want a string (Claude Code's matcher syntax), got JSON %s", m.Value.Kind)
			}
			c.Tools = &m.Value.Str
		case "on":
			c.On = m.Value
		}
	}
	if c.Name == "" {
		return fail(v, `a rule needs a "name" (unique in its file), so that its decisions say which rule made them`)
	}
	name := c.Name
	if raw.set != "" {
		name = raw.set + "/" + c.Name
	}
	named = name
	if names[name] {
		return fail(v, "a rule named %q comes earlier in this file: names must be unique", name)
	}
	names[name] = true
	events := ruleEvents
	if c.On != nil {
		var list []string
		switch c.On.Kind {
		case jsonpos.String:
			list = []string{c.On.Str}
		case jsonpos.Array:
			for _, e := range c.On.Elems {
				if e.Kind != jsonpos.String {
					list = nil
					break
				}
				list = append(list, e.Str)
			}
		}
		if len(list) == 0 {
			return fail(c.On, "on: want an event name or a list of event names")
		}
		events = nil
		for _, e := range list {
			canonical, err := ResolveEvent(e, customEvents)
			if err != nil {
				return fail(c.On, "on: %v", err)
			}
			if !CanBlock(canonical) {
				return fail(c.On, "on: %s cannot be blocked, so a rule cannot gate it (rules decide events that can: PreToolUse, PermissionRequest, UserPromptSubmit, Stop, PreExecutionEnd, …)", canonical)
			}
			if !slices.Contains(events, canonical) {
				events = append(events, canonical)
			}
		}
	}
	var tools *ToolMatcher
	if c.Tools != nil {
		m, err := CompileTools(*c.Tools)
		if err != nil {
			tv, _ := v.Get("tools")
			return fail(tv, "tools: %v", err)
		}
		tools = m
	}
	t, ok := reg.Type(TypeRule)
	if !ok {
		return fail(v, "rules are not available in this build")
	}
	line, col := f.doc.LineCol(at(v))
	format := "autoagent"
	if raw.set != "" {
		format = "rule set " + raw.set
	}
	var out []*Hook
	var runner Task
	for _, event := range events {
		h := &Hook{
			Name: name, Type: TypeRule, Event: event, Blocking: true, Enabled: true, Tools: tools,
			Options: json.RawMessage(raw.doc.Raw(v)),
			Source:  Source{Format: format, Scope: f.scope, File: f.path, Line: line, Col: col},
		}
		if runner == nil {
			var r Task
			var err error
			if rt, ok := t.(RuleType); ok {
				r, err = rt.CompileRule(h, v)
			} else {
				r, err = t.Configure(h, json.RawMessage(raw.doc.Raw(v)))
			}
			if err != nil {
				var fe interface{ FieldName() string }
				fv := v
				if errors.As(err, &fe) {
					if x, _ := v.Get(fe.FieldName()); x != nil {
						fv = x
					}
				}
				return fail(fv, "%v", err)
			}
			runner = r
		}
		h.runner = runner
		out = append(out, h)
	}
	return out, nil
}

// ruleSetOffset is where a file names a built-in rule set (for the errors of its rules).
func (f *nativeFile) ruleSetOffset(name string) int {
	for _, s := range f.ruleSets {
		if s.name == name {
			return s.offset
		}
	}
	return 0
}

// RegisterRuleSet adds a built-in rule set a configuration can include by name ("ruleSets"):
// rules, a JSON array in the "rules" syntax. Registering a name twice panics.
func (r *Registry) RegisterRuleSet(name string, rules []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ruleSets == nil {
		r.ruleSets = map[string][]byte{}
	}
	if r.ruleSets[name] != nil {
		panic(fmt.Sprintf("hooks: rule set %q registered twice", name))
	}
	r.ruleSets[name] = rules
}

// RuleSet returns a built-in rule set.
func (r *Registry) RuleSet(name string) ([]byte, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	b, ok := r.ruleSets[name]
	return b, ok
}

// RuleSetNames lists the built-in rule sets, sorted.
func (r *Registry) RuleSetNames() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.ruleSets))
	for n := range r.ruleSets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
