// Package rules owns the "rules" of agent-hooks' configuration: gates written as data instead of
// shell scripts, decided in-process on every tool call, the same for every agent.
//
// A rule names its events ("on", PreToolUse by default), its tools, one or more conditions — all
// of which must hold — and a decision (deny, ask, allow) with a reason:
//
//	{"name": "no-force-push", "command": "git push --force", "decision": "deny", "reason": "…"}
//	{"name": "secrets", "reads": [".env*", "!.env.example"], "decision": "deny"}
//	{"name": "big-writes", "tools": "Write", "when": "len(toolInput.content) > 100000", "decision": "ask"}
//
// The conditions match the payload the hooks get: "command" every simple command of a shell call
// (toolcall.Command: wrappers, nested scripts, pipelines unwrapped), "writes" and "reads" the
// files of the normalized call (toolcall.Call, for every agent's file tools and for shell), "when"
// an expression over the payload in github.com/expr-lang/expr. A rule is a hook of the built-in
// type "rule" (Type, registered in cmd/agent-hooks), which the engine asks first and records only
// when it decides (hooks.Decider): no process is started, and a rule that does not apply costs a
// few comparisons.
package rules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/jsonpos"
	"github.com/autoagent/agent-hooks/toolcall"
)

// TypeName is the hook type of a rule.
const TypeName = "rule"

// The decisions a rule can make.
const (
	Deny  = "deny"
	Ask   = "ask"
	Allow = "allow"
)

// Type is the "rule" hook type: it compiles a rule's conditions. Home expands "~/" in globs.
type Type struct {
	Home string
}

// FieldError is a rule's error in one of its fields, so that the loader can point at it.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// FieldName is the field the error is about (the loader points at it).
func (e *FieldError) FieldName() string { return e.Field }

// Rule is one compiled rule, for one or more events (the loader makes a hook of it per event).
type Rule struct {
	hook     *hooks.Hook
	commands []*commandPattern
	writes   *pathSet
	reads    *pathSet
	when     *expression
	decision string
	reason   string
}

// loaderFields are the fields of a rule the loader reads itself (hooks).
var loaderFields = []string{"name", "on", "tools", "description"}

// ownFields are a rule's own fields.
var ownFields = []string{"command", "writes", "reads", "when", "decision", "reason"}

// Configure implements hooks.Type, for a rule given as JSON.
func (t Type) Configure(h *hooks.Hook, raw json.RawMessage) (hooks.Task, error) {
	doc, err := jsonpos.Parse(raw)
	if err != nil {
		return nil, err
	}
	if doc.Root.Kind != jsonpos.Object {
		return nil, errors.New("a rule must be an object")
	}
	return t.CompileRule(h, doc.Root)
}

// CompileRule implements hooks.RuleType: the rule's own fields, straight from the loader's parse
// (every rule is compiled on every load, so no second JSON decoding).
func (t Type) CompileRule(h *hooks.Hook, v *jsonpos.Value) (hooks.Task, error) {
	r := &Rule{hook: h}
	var command, writes, reads []string
	var when string
	for _, m := range v.Members {
		var err error
		switch m.Key {
		case "command":
			command, err = stringList(m.Value)
		case "writes":
			writes, err = stringList(m.Value)
		case "reads":
			reads, err = stringList(m.Value)
		case "when":
			when, err = stringValue(m.Value)
		case "decision":
			r.decision, err = stringValue(m.Value)
		case "reason":
			r.reason, err = stringValue(m.Value)
		default:
			if !slices.Contains(loaderFields, m.Key) {
				return nil, &FieldError{m.Key, hooks.UnknownFieldError(m.Key, append(slices.Clip(loaderFields), ownFields...))}
			}
		}
		if err != nil {
			return nil, &FieldError{m.Key, err}
		}
	}
	switch r.decision {
	case Deny, Ask, Allow:
	case "":
		return nil, &FieldError{"decision", errors.New(`required: "deny", "ask" or "allow"`)}
	default:
		msg := fmt.Sprintf("%q is not a decision (want deny, ask or allow)", r.decision)
		if s := hooks.Suggest(r.decision, []string{Deny, Ask, Allow}); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return nil, &FieldError{"decision", errors.New(msg)}
	}
	for _, c := range command {
		p, err := parseCommandPattern(c)
		if err != nil {
			return nil, &FieldError{"command", err}
		}
		r.commands = append(r.commands, p)
	}
	var err error
	if r.writes, err = compilePaths(writes, t.Home); err != nil {
		return nil, &FieldError{"writes", err}
	}
	if r.reads, err = compilePaths(reads, t.Home); err != nil {
		return nil, &FieldError{"reads", err}
	}
	if when != "" {
		if r.when, err = compileWhen(when); err != nil {
			return nil, &FieldError{"when", err}
		}
	}
	if len(r.commands) == 0 && r.writes == nil && r.reads == nil && r.when == nil && h.Tools == nil {
		return nil, errors.New(`a rule needs a condition: "tools", "command", "writes", "reads" or "when" (a rule without one would decide every call)`)
	}
	return r, nil
}

// stringValue is a JSON string's value.
func stringValue(v *jsonpos.Value) (string, error) {
	if v.Kind != jsonpos.String {
		return "", fmt.Errorf("want a string, got JSON %s", v.Kind)
	}
	return v.Str, nil
}

// stringList is a JSON string, or list of strings, as a list.
func stringList(v *jsonpos.Value) ([]string, error) {
	if v.Kind == jsonpos.String {
		return []string{v.Str}, nil
	}
	if v.Kind != jsonpos.Array {
		return nil, fmt.Errorf("want a string or a list of strings, got JSON %s", v.Kind)
	}
	out := make([]string, len(v.Elems))
	for i, e := range v.Elems {
		if e.Kind != jsonpos.String {
			return nil, fmt.Errorf("want a string or a list of strings, got JSON %s in the list", e.Kind)
		}
		out[i] = e.Str
	}
	return out, nil
}

// Run implements hooks.Task: the engine asks Decide instead, and runs a rule this way only where
// a caller runs hooks one by one.
func (r *Rule) Run(_ context.Context, inv *hooks.Invocation) hooks.Outcome {
	o, decided := r.Decide(inv)
	if !decided {
		return hooks.Outcome{Status: hooks.StatusOK}
	}
	return o
}

// Decide implements hooks.Decider: whether the rule applies to the invocation's payload, and its
// decision when it does.
func (r *Rule) Decide(inv *hooks.Invocation) (hooks.Outcome, bool) {
	m := r.Match(inv.Payload)
	if !m.Matched {
		return hooks.Outcome{}, false
	}
	if m.Err != nil {
		return hooks.Outcome{Status: hooks.StatusError, Reason: fmt.Sprintf("rule %s could not decide: %v", r.hook.Name, m.Err)}, true
	}
	o := hooks.Outcome{Status: hooks.StatusOK, Reason: m.Reason, Details: map[string]any{"rule": r.hook.Name, "decision": r.decision}}
	if m.Why != "" {
		o.Details["matched"] = m.Why
	}
	switch r.decision {
	case Deny:
		o.Status, o.Decision = hooks.StatusBlocked, hooks.DecisionBlock
	case Ask:
		o.Decision = hooks.DecisionAsk
	case Allow:
		o.Decision = hooks.DecisionApprove
	}
	return o, true
}

// Match is what a rule made of one payload: whether it applies, why (or why not), the reason its
// decision gives, and the error of a condition that could not be evaluated (which decides as a
// failed blocking hook: a deny).
type Match struct {
	Matched bool
	Why     string // what matched, or why the rule does not apply
	Reason  string
	Err     error
}

// Match evaluates the rule's conditions on a payload. It has no side effects: explain and rules
// test call it too.
func (r *Rule) Match(p hooks.Payload) Match {
	if r.hook.Tools != nil {
		names := hooks.ToolNames(p)
		if len(names) == 0 || !r.hook.Tools.Match(names...) {
			return Match{Why: fmt.Sprintf("tools %q does not match %s", r.hook.Tools, orNone(strings.Join(names, ", ")))}
		}
	}
	var whys []string
	var could []string
	call := callOf(p)
	if len(r.commands) > 0 {
		why, couldWhy, ok := r.matchCommands(call)
		if !ok {
			return Match{Why: why}
		}
		whys = append(whys, why)
		if couldWhy != "" {
			could = append(could, couldWhy)
		}
	}
	if r.writes != nil {
		if call == nil {
			return Match{Why: "writes: the event is not a tool call"}
		}
		hit := r.writes.first(call.Writes, call.Names)
		switch {
		case hit != "":
			whys = append(whys, "writes "+hit)
		case call.AnyFile != "":
			whys = append(whys, "writes a file of a part of the command agent-hooks cannot read")
			could = append(could, "that part ("+call.AnyFile+")")
		default:
			return Match{Why: "writes: no file of the call matches"}
		}
	}
	if r.reads != nil {
		if call == nil {
			return Match{Why: "reads: the event is not a tool call"}
		}
		hit := r.reads.first(call.Reads, call.Names)
		switch {
		case hit != "":
			whys = append(whys, "reads "+hit)
		case call.AnyFile != "":
			whys = append(whys, "reads a file of a part of the command agent-hooks cannot read")
			could = append(could, "that part ("+call.AnyFile+")")
		default:
			return Match{Why: "reads: no file of the call matches"}
		}
	}
	if r.when != nil {
		ok, err := r.when.eval(p)
		if err != nil {
			return Match{Matched: true, Why: "when: " + err.Error(), Err: fmt.Errorf("when: %w", err)}
		}
		if !ok {
			return Match{Why: "when: false"}
		}
		whys = append(whys, "when: true")
	}
	why := strings.Join(whys, "; ")
	reason := r.reason
	if reason == "" {
		reason = fmt.Sprintf("rule %s: %s", r.hook.Name, r.decision)
	}
	reason += " [rule " + r.hook.Name
	if why != "" {
		reason += ": " + why
	}
	reason += "]"
	if len(could) > 0 {
		reason += fmt.Sprintf(" (agent-hooks cannot read %s, which could make it match)", strings.Join(could, "; "))
	}
	return Match{Matched: true, Why: why, Reason: reason}
}

// matchCommands reports whether any command of the call matches any of the rule's patterns.
func (r *Rule) matchCommands(call *toolcall.Call) (why, could string, ok bool) {
	if call == nil || len(call.Commands) == 0 {
		return "command: the call runs no shell command", "", false
	}
	var couldWhy, couldCmd string
	for _, c := range call.Commands {
		for _, p := range r.commands {
			switch res, w := p.match(c); res {
			case matched:
				return "runs " + strings.Join(c.Argv, " "), "", true
			case couldMatch:
				if couldWhy == "" {
					couldWhy, couldCmd = w, strings.Join(c.Argv, " ")
					if c.Unread != "" {
						couldCmd = "a part of the command agent-hooks cannot read"
					}
				}
			}
		}
	}
	if couldWhy != "" {
		return "runs " + couldCmd, couldWhy, true
	}
	return "command: no command matches", "", false
}

// lastCall keeps the call of the last payload read: every rule of an event reads the same one.
var lastCall struct {
	sync.Mutex
	tc   map[string]any
	call *toolcall.Call
}

// callOf is toolcall.FromPayload, read once per payload for all the rules that ask.
func callOf(p hooks.Payload) *toolcall.Call {
	tc, ok := p["toolCall"].(map[string]any)
	if !ok {
		return nil
	}
	lastCall.Lock()
	defer lastCall.Unlock()
	if lastCall.tc != nil && reflect.ValueOf(lastCall.tc).UnsafePointer() == reflect.ValueOf(tc).UnsafePointer() {
		return lastCall.call
	}
	lastCall.tc, lastCall.call = tc, toolcall.FromPayload(p)
	return lastCall.call
}

func orNone(s string) string {
	if s == "" {
		return "no tool"
	}
	return s
}

// Explain implements hooks.Explainer.
func (r *Rule) Explain(p hooks.Payload) hooks.Explained {
	m := r.Match(p)
	return hooks.Explained{Applies: m.Matched, Why: m.Why, Decision: r.decision, Reason: m.Reason, Err: m.Err}
}
