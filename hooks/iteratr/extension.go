package iteratr

import (
	"context"
	"fmt"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// ExtraAgentOutput is the key of the agent's text in hooks.Result.Extra (and --json output).
const ExtraAgentOutput = "agentOutput"

// extension collects piped hook output into the result's agentOutput and keeps iteratr's
// per-session pending buffer (see the package comment) in EventInfo.State. Format.Load returns
// it with the workspace's iteratr hooks.
type extension struct{}

const stateName = "iteratr-pending"

// pending is the per-session buffer: piped outputs in the order they were made.
type pending struct {
	Outputs []string `json:"outputs"`
}

// BeforeEvent implements hooks.Extension; iteratr needs nothing before the hooks run.
func (extension) BeforeEvent(context.Context, *hooks.EventInfo) error { return nil }

// AfterEvent implements hooks.Extension.
func (extension) AfterEvent(_ context.Context, e *hooks.EventInfo, res *hooks.Result) error {
	if res == nil {
		return nil
	}
	own := piped(res)
	stateful := e.State != nil
	var deliver []string
	var err error
	switch e.Event {
	case hooks.SessionStart, hooks.PostIteration, hooks.PostExecutionEnd:
		deliver = own
		if stateful && len(own) > 0 {
			err = seedfmt.UpdateState(e.State, stateName, func(p *pending) (bool, error) {
				p.Outputs = append(p.Outputs, own...)
				return true, nil
			})
		}
	case hooks.PreIteration, hooks.SessionEnd:
		if stateful {
			err = seedfmt.UpdateState(e.State, stateName, func(p *pending) (bool, error) {
				deliver = p.Outputs
				p.Outputs = nil
				return len(deliver) > 0, nil
			})
		}
		if e.Event == hooks.PreIteration {
			deliver = append(deliver, own...)
		}
	default:
		deliver = own
	}
	if err != nil {
		return fmt.Errorf("iteratr pending output: %w", err)
	}
	if len(deliver) > 0 {
		if res.Extra == nil {
			res.Extra = map[string]any{}
		}
		res.Extra[ExtraAgentOutput] = join(deliver)
	}
	return nil
}

// piped lists the non-empty piped outputs of the event's iteratr hooks, in run order.
func piped(res *hooks.Result) []string {
	var out []string
	for _, h := range res.Hooks {
		if h.Format != Name || h.Details == nil {
			continue
		}
		if p, _ := h.Details["pipeOutput"].(bool); !p {
			continue
		}
		if s, _ := h.Details["output"].(string); strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// join concatenates outputs as iteratr does, each on its own lines.
func join(outputs []string) string {
	var b strings.Builder
	for _, s := range outputs {
		b.WriteString(s)
		if !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
