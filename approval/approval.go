// Package approval owns the `approval` hook type: a human decides whether an event may proceed.
// The type itself only dispatches on the hook's "provider" option to a Provider (local terminal or
// file-based requests, HTTP polling, GitHub pull-request reviews, …), so each provider lives with
// the system it talks to.
package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
)

// TypeName is the hook type this package implements.
const TypeName = "approval"

// DefaultProvider is used when a hook names none.
const DefaultProvider = "local"

// Provider is one way of asking a human. Configure receives the hook's options without the
// common hook fields and without "provider"; it must decode them strictly.
type Provider interface {
	Configure(h *hooks.Hook, options json.RawMessage) (hooks.Runner, error)
}

// Type dispatches approval hooks to providers by name.
type Type struct {
	providers map[string]Provider
}

// NewType returns the approval type with the given providers.
func NewType(providers map[string]Provider) *Type { return &Type{providers: providers} }

// Configure implements hooks.Type.
func (t *Type) Configure(h *hooks.Hook, options json.RawMessage) (hooks.Runner, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(options, &fields); err != nil {
		return nil, err
	}
	name := DefaultProvider
	if raw, ok := fields["provider"]; ok {
		if err := json.Unmarshal(raw, &name); err != nil {
			return nil, fmt.Errorf("provider: must be a string")
		}
		delete(fields, "provider")
	}
	p, ok := t.providers[name]
	if !ok {
		names := make([]string, 0, len(t.providers))
		for n := range t.providers {
			names = append(names, n)
		}
		sort.Strings(names)
		msg := fmt.Sprintf("unknown approval provider %q (known: %s)", name, strings.Join(names, ", "))
		if s := hooks.Suggest(name, names); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return nil, fmt.Errorf("%s", msg)
	}
	rest, err := marshalSorted(fields)
	if err != nil {
		return nil, err
	}
	return p.Configure(h, rest)
}

func marshalSorted(fields map[string]json.RawMessage) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(fields); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}
