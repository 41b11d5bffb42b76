package pipelines

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// SettingCheckpointEvery is the key of checkpoints.every in hooks.Config.Settings.
const SettingCheckpointEvery = "agent-pipelines.checkpoints.every"

// ExtraCheckpoint is the key, in a PostIteration result's Extra, of the Checkpoint event it fired.
const ExtraCheckpoint = "checkpoint"

// Extension fires Checkpoint after every Nth PostIteration when the loop sets
// `checkpoints.every: N`. The iteration is the payload's "iteration"; without one, the
// PostIterations of the session are counted in EventInfo.State. PostIteration cannot be
// blocked, so a blocked checkpoint is reported in the result (Extra "checkpoint" and a warning)
// for the agent to act on.
type Extension struct{}

// NewExtension returns the agent-pipelines extension.
func NewExtension() Extension { return Extension{} }

// BeforeEvent implements hooks.Extension.
func (Extension) BeforeEvent(context.Context, *hooks.EventInfo) error { return nil }

// AfterEvent implements hooks.Extension.
func (Extension) AfterEvent(ctx context.Context, e *hooks.EventInfo, res *hooks.Result) error {
	if e.Event != hooks.PostIteration || res == nil || e.Fire == nil {
		return nil
	}
	every, err := checkpointEvery(e)
	if err != nil || every <= 0 {
		return err
	}
	n, err := iteration(e)
	if err != nil || n <= 0 || n%every != 0 {
		return err
	}
	data := maps.Clone(e.Payload)
	delete(data, "eventName")
	delete(data, "timestamp")
	data["iteration"] = n
	data["checkpoint"] = n / every
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

// checkpointEvery is checkpoints.every: from the configuration's settings when the loader put it
// there, else from the loop.yaml the loop's hooks came from (or the workspace's).
func checkpointEvery(e *hooks.EventInfo) (int, error) {
	if e.Config != nil {
		if v, ok := e.Config.Settings[SettingCheckpointEvery]; ok {
			n, _ := strconv.Atoi(hooks.FormatValue(v))
			return n, nil
		}
	}
	file := ""
	if e.Config != nil {
		for _, hs := range e.Config.Hooks {
			for _, h := range hs {
				if h.Source.Format == Name && h.Source.Scope == "project" {
					file = h.Source.File // one loop file configures them all
				}
			}
		}
	}
	if file == "" {
		file = filepath.Join(e.Workspace, LoopFileName)
	}
	if _, err := os.Stat(file); err != nil {
		return 0, nil // no loop file: no checkpoints
	}
	loop, _, err := ReadLoop(hooks.LoadEnv{Workspace: e.Workspace, LoopFile: file})
	if err != nil {
		return 0, err
	}
	return loop.CheckpointEvery, nil
}

type counter struct {
	PostIterations int `json:"postIterations"`
}

// iteration is the payload's iteration, else this PostIteration's number in the session.
func iteration(e *hooks.EventInfo) (int, error) {
	if v, ok := e.Payload["iteration"]; ok {
		if n, err := strconv.Atoi(hooks.FormatValue(v)); err == nil {
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
