package hooks

import (
	"fmt"
	"maps"
	"strings"
)

// Explainer is a Decider that can say, without deciding, whether it applies to a payload and why
// (a rule): `agent-hooks explain` and `rules test`.
type Explainer interface {
	Explain(p Payload) Explained
}

// Explained is what a rule makes of a payload.
type Explained struct {
	Applies  bool
	Why      string // what matched, or why it does not apply
	Decision string // the rule's decision: "deny", "ask" or "allow"
	Reason   string // the reason the decision would give
	Err      error  // a condition that could not be evaluated (decides as a deny)
}

// Explanation is what the configuration would do with one event, worked out without running
// anything: every rule and hook of the event, whether it applies and why, and the decision of the
// rules. Hooks that would run are only listed: what they decide is known by running them.
type Explanation struct {
	Event    string         `json:"event"`
	Entries  []ExplainEntry `json:"entries"`
	Decision string         `json:"decision"` // the rules' decision: deny, ask, allow, or "" (none decided)
	Reason   string         `json:"reason,omitempty"`
	// WouldRun counts the hooks that would run after the rules (0 when a rule denies: they would
	// not run); any of them may still block.
	WouldRun int `json:"wouldRun"`
}

// ExplainEntry is one rule or hook of an Explanation.
type ExplainEntry struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Scope    string `json:"scope"`
	Format   string `json:"format"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Applies  bool   `json:"applies"`
	Why      string `json:"why"`
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Explain works out what the configuration's rules and hooks would do with event and payload data,
// as Fire would see them, without running a hook, writing anything or asking anyone.
func (e *Engine) Explain(event string, data Payload) (*Explanation, error) {
	e.init()
	canonical, err := ResolveEvent(event, e.Config.CustomEvents)
	if err != nil {
		return nil, err
	}
	payload := make(Payload, len(data)+4)
	maps.Copy(payload, data)
	payload["eventName"] = canonical
	payload["sessionId"] = e.SessionID
	payload["workspace"] = e.Workspace
	ex := &Explanation{Event: canonical, Entries: []ExplainEntry{}}
	var deny, ask, allow []string
	for _, h := range e.Config.Hooks[canonical] {
		en := ExplainEntry{Name: h.Name, Type: h.Type, Scope: h.Source.Scope, Format: h.Source.Format, File: h.Source.File, Line: h.Source.Line}
		if x, ok := h.runner.(Explainer); ok {
			if h.Source.Scope != ScopeManaged {
				if skip := e.skipReason(h, payload); skip != "" {
					en.Why = skip
					ex.Entries = append(ex.Entries, en)
					continue
				}
			}
			r := x.Explain(payload)
			en.Applies, en.Why, en.Reason = r.Applies, r.Why, r.Reason
			if r.Applies {
				en.Decision = r.Decision
				if r.Err != nil {
					en.Decision = "deny"
					en.Reason = fmt.Sprintf("rule %s could not decide: %v", h.Name, r.Err)
				}
				switch en.Decision {
				case "deny":
					deny = append(deny, en.Reason)
				case "ask":
					ask = append(ask, en.Reason)
				case "allow":
					allow = append(allow, en.Reason)
				}
			}
			ex.Entries = append(ex.Entries, en)
			continue
		}
		if skip := e.skipReason(h, payload); skip != "" {
			en.Why = skip
		} else {
			if len(deny) == 0 {
				en.Applies, en.Why = true, "would run"
				ex.WouldRun++
			} else {
				en.Why = "would not run: a rule before it denies"
			}
		}
		ex.Entries = append(ex.Entries, en)
	}
	switch {
	case len(deny) > 0:
		ex.Decision, ex.Reason = "deny", strings.Join(deny, "\n")
		ex.WouldRun = 0
	case len(ask) > 0:
		ex.Decision, ex.Reason = "ask", strings.Join(ask, "\n")
	case len(allow) > 0:
		ex.Decision, ex.Reason = "allow", strings.Join(allow, "\n")
	}
	return ex, nil
}
