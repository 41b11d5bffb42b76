// Package approval owns the `approval` hook type: a human decides whether an event may proceed.
// The type itself only dispatches on the hook's "provider" option to a Provider (local terminal or
// file-based requests, HTTP polling, GitHub pull-request reviews, …), so each provider lives with
// the system it talks to, and it holds every provider to one rule: only an explicit approval (or
// timeoutAction approve after a wait nobody answered) lets the event proceed. An approval that
// cannot be decided blocks, whatever the hook's "blocking" says.
package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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
	Configure(h *hooks.Hook, options json.RawMessage) (hooks.Task, error)
}

// Type dispatches approval hooks to providers by name.
type Type struct {
	providers map[string]Provider
}

// NewType returns the approval type with the given providers.
func NewType(providers map[string]Provider) *Type { return &Type{providers: providers} }

// Configure implements hooks.Type.
func (t *Type) Configure(h *hooks.Hook, options json.RawMessage) (hooks.Task, error) {
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
	r, err := p.Configure(h, rest)
	if err != nil {
		return nil, err
	}
	return decisive{provider: name, runner: r}, nil
}

// decisive holds a provider's runner to the rule of the type: an outcome that is neither an
// approval nor a block — an error, a timeout, an answer without a decision — is undecided, and
// blocks.
type decisive struct {
	provider string
	runner   hooks.Task
}

func (d decisive) Run(ctx context.Context, inv *hooks.Invocation) hooks.Outcome {
	o := d.runner.Run(ctx, inv)
	switch {
	case o.Status == hooks.StatusOK && o.Decision == hooks.DecisionApprove:
		return o
	case o.Status == hooks.StatusBlocked:
		o.Decision = hooks.DecisionBlock
		return o
	}
	why := o.Reason
	if why == "" {
		why = "the provider answered without a decision"
	}
	u := Undecided(d.provider, errors.New(why), o.Details)
	u.Stdout, u.Stderr = o.Stdout, o.Stderr
	return u
}

// Undecided is the outcome of an approval that could not be decided (the request could not be
// made or checked, the answer could not be read): it blocks, whatever the hook's "blocking" says,
// because an approval nobody gave is no approval. err says what failed and, where it can, how to
// fix it. details are added to the outcome's Details.
func Undecided(provider string, err error, details map[string]any) hooks.Outcome {
	d := map[string]any{"provider": provider}
	maps.Copy(d, details)
	d["decision"] = "undecided"
	d["error"] = err.Error()
	return hooks.Outcome{
		Status: hooks.StatusBlocked, Decision: hooks.DecisionBlock, ExitCode: 2,
		Reason:  fmt.Sprintf("%s approval could not be decided: %v", provider, err),
		Details: d,
	}
}

func marshalSorted(fields map[string]json.RawMessage) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(fields); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}
