package pipelines

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// ExtraCheckpoint is the key, in a PostIteration result's Extra, of the Checkpoint event it fired.
const ExtraCheckpoint = "checkpoint"

// checkpoints fires Checkpoint after every Nth PostIteration of a loop that sets
// `checkpoints.every: N` (Format.Load returns it with that loop). The iteration is the payload's
// "iteration"; without one, the PostIterations of the session are counted in EventInfo.State.
// PostIteration cannot be blocked, so a blocked checkpoint is reported in the result (Extra
// "checkpoint" and a warning) for the agent to act on.
type checkpoints struct {
	every int
}

// BeforeEvent implements hooks.Extension.
func (checkpoints) BeforeEvent(context.Context, *hooks.EventInfo) error { return nil }

// AfterEvent implements hooks.Extension.
func (c checkpoints) AfterEvent(ctx context.Context, e *hooks.EventInfo, res *hooks.Result) error {
	if e.Event != hooks.PostIteration || res == nil || e.Fire == nil {
		return nil
	}
	n, err := iteration(e)
	if err != nil || n <= 0 || n%c.every != 0 {
		return err
	}
	data := maps.Clone(e.Payload)
	delete(data, "eventName")
	delete(data, "timestamp")
	data["iteration"] = n
	data["checkpoint"] = n / c.every
	cp, err := e.Fire(ctx, hooks.Checkpoint, data)
	if err != nil {
		return fmt.Errorf("fire Checkpoint at iteration %d: %w", n, err)
	}
	if res.Extra == nil {
		res.Extra = map[string]any{}
	}
	res.Extra[ExtraCheckpoint] = cp
	if cp.Blocked {
		res.Warnings = append(res.Warnings, fmt.Sprintf("checkpoint at iteration %d blocked: %s", n, cp.Reason))
	}
	return nil
}

type counter struct {
	PostIterations int `json:"postIterations"`
}

// iteration is the payload's iteration, else this PostIteration's number in the session.
func iteration(e *hooks.EventInfo) (int, error) {
	if v, ok := e.Payload["iteration"]; ok {
		if n, err := strconv.Atoi(template.FormatValue(v)); err == nil {
			return n, nil
		}
	}
	if e.State == nil {
		return 0, nil
	}
	n := 0
	err := seedfmt.UpdateState(e.State, "agent-pipelines", func(c *counter) (bool, error) {
		c.PostIterations++
		n = c.PostIterations
		return true, nil
	})
	if err != nil {
		return 0, fmt.Errorf("count iterations: %w", err)
	}
	return n, nil
}
