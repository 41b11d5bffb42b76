package agents

import (
	"context"
	"fmt"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/runner"
)

// Explanation is what agent-hooks would answer an agent's hook event, worked out without running
// a hook or writing anything (`agent-hooks explain <agent>`): the event it maps to, what every
// rule and hook of it (and of the git gates of a shell command) would do, and the rules'
// decision.
type Explanation struct {
	Agent     string               `json:"agent"`
	HostEvent string               `json:"hostEvent"`
	Event     string               `json:"event"`
	Events    []*hooks.Explanation `json:"events"`
	Decision  string               `json:"decision"` // deny, ask, allow, or "" (the rules decided nothing)
	Reason    string               `json:"reason,omitempty"`
	WouldRun  int                  `json:"wouldRun"` // hooks that would run and may still decide
}

// Explain reads the agent's input as Handle does (o.Stdin) and explains it. Its error is input
// that cannot be read or a configuration that does not load.
func Explain(ctx context.Context, o Options) (*Explanation, error) {
	h := &handler{o: o}
	in, _, err := readInput(ctx, o.Stdin, o.MaxInput, h.decode)
	if err != nil {
		return nil, fmt.Errorf("read the agent's input: %w", err)
	}
	h.in = in
	h.classify(in.HostEvent)
	if err := h.prepare(); err != nil {
		return nil, err
	}
	ex := &Explanation{Agent: o.Agent.Name(), HostEvent: h.hostEvent, Event: h.event}
	reqs := append([]runner.Request{h.req}, h.gitGates()...)
	var deny, ask, allow []string
	for i, req := range reqs {
		e, err := h.runner.Explain(req)
		if err != nil {
			if i == 0 && !h.mapped {
				return ex, nil // an agent event no hook is declared for
			}
			return nil, err
		}
		ex.Events = append(ex.Events, e)
		prefix := ""
		if i > 0 {
			prefix = e.Event + ": "
		}
		switch e.Decision {
		case "deny":
			deny = append(deny, prefix+e.Reason)
		case "ask":
			ask = append(ask, prefix+e.Reason)
		case "allow":
			allow = append(allow, prefix+e.Reason)
		}
		ex.WouldRun += e.WouldRun
	}
	switch {
	case !h.blockable:
	case len(deny) > 0:
		ex.Decision, ex.Reason = Deny, strings.Join(deny, "\n")
	case len(ask) > 0 && h.req.CanAsk:
		ex.Decision, ex.Reason = Ask, strings.Join(ask, "\n")
	case len(ask) > 0:
		ex.Decision, ex.Reason = Deny, strings.Join(ask, "\n")+" (a rule asks for confirmation, and "+o.Agent.Name()+" cannot ask)"
	case len(allow) > 0:
		ex.Decision, ex.Reason = Allow, strings.Join(allow, "\n")
	}
	return ex, nil
}
