package iteratr

import (
	"context"
	"fmt"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
	"github.com/autoagent/agent-hooks/hooks/template"
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

// AfterEvent implements hooks.Extension: the event's piped output goes where iteratr's
// orchestrator sends it. session_start and on_task_complete: to the pending buffer only;
// pre_iteration: the drained buffer, then its own; post_iteration: at once, in iteratr's
// post-iteration frame, not buffered; on_error: at once, in its recovery frame; session_end: the
// drained buffer (iteratr's final delivery; session_end's own output is never piped).
func (extension) AfterEvent(_ context.Context, e *hooks.EventInfo, res *hooks.Result) error {
	if res == nil {
		return nil
	}
	own := strings.Join(piped(res), "\n")
	var deliver string
	var err error
	switch e.Event {
	case hooks.SessionStart, hooks.PostExecutionEnd:
		if e.State != nil && own != "" {
			err = seedfmt.UpdateState(e.State, stateName, func(p *pending) (bool, error) {
				p.Outputs = append(p.Outputs, own)
				return true, nil
			})
		}
	case hooks.PreIteration, hooks.SessionEnd:
		var buffered []string
		if e.State != nil {
			err = seedfmt.UpdateState(e.State, stateName, func(p *pending) (bool, error) {
				buffered, p.Outputs = p.Outputs, nil
				return len(buffered) > 0, nil
			})
		}
		if e.Event == hooks.PreIteration && own != "" {
			buffered = append(buffered, own)
		}
		deliver = strings.Join(buffered, "\n")
	case hooks.PostIteration:
		if own != "" {
			deliver = fmt.Sprintf(postIterationFrame, template.FormatValue(e.Payload["iteration"]), own)
		}
	case hooks.Error:
		if own != "" {
			deliver = fmt.Sprintf(onErrorFrame, template.FormatValue(e.Payload["iteration"]), template.FormatValue(e.Payload["error"]), own)
		}
	default:
		deliver = own
	}
	if err != nil {
		return fmt.Errorf("iteratr pending output: %w", err)
	}
	if deliver != "" {
		if res.Extra == nil {
			res.Extra = map[string]any{}
		}
		res.Extra[ExtraAgentOutput] = deliver
	}
	return nil
}

// The frames iteratr (v0.8.0 and later) puts around post_iteration output and on_error output.
// iteratr asks the agent to stop rather than continue after an error when the iteration already
// has a summary and no task is in progress, which agent-hooks cannot see: it always sends the
// first form.
const (
	postIterationFrame = "[POST-ITERATION HOOKS - iteration #%s]\n" +
		"The following output is from post-iteration hooks (linting, vetting, etc.).\n" +
		"If there are errors or issues, fix them now. Do NOT pick a new task.\n" +
		"When done fixing (or if no issues), STOP immediately.\n\n%s"
	onErrorFrame = "[ON-ERROR HOOKS - iteration #%s]\n" +
		"The iteration encountered an error: %s\n\n" +
		"Diagnostic output from error hooks:\n%s\n\n" +
		"Fix the issue and continue completing your current task."
)

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
		if s, _ := h.Details["output"].(string); s != "" {
			out = append(out, s)
		}
	}
	return out
}
