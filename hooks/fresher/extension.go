package fresher

import (
	"context"
	"fmt"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// extension carries what fresher keeps for a whole loop across the separate `agent-hooks run`
// calls of one session: when the loop started (FRESHER_STARTED_AT in every later hook) and that a
// hook aborted it (FRESHER_FINISH_TYPE=manual in the finished hook, as fresher v2's
// set_finish(Manual); an abort from started marks it too). Both are kept per session
// in EventInfo.State and never override what the caller put in the payload. Format.Load returns
// it with the workspace's fresher hooks.
type extension struct {
	now func() time.Time // nil: time.Now
}

type loopState struct {
	StartedAt  string `json:"startedAt,omitempty"`
	FinishType string `json:"finishType,omitempty"`
}

const stateName = "fresher"

// BeforeEvent implements hooks.Extension.
func (x *extension) BeforeEvent(_ context.Context, e *hooks.EventInfo) error {
	if e.State == nil {
		return nil
	}
	var st loopState
	err := seedfmt.UpdateState(e.State, stateName, func(s *loopState) (bool, error) {
		changed := false
		if e.Event == hooks.SessionStart {
			if v, ok := e.Payload["startedAt"]; ok {
				s.StartedAt = template.FormatValue(v)
			} else {
				s.StartedAt = x.clock().UTC().Format(time.RFC3339)
			}
			s.FinishType = ""
			changed = true
		}
		st = *s
		return changed, nil
	})
	if err != nil {
		return fmt.Errorf("fresher: %w", err)
	}
	if _, ok := e.Payload["startedAt"]; !ok && st.StartedAt != "" {
		e.Payload["startedAt"] = st.StartedAt
	}
	if _, ok := e.Payload["finishType"]; !ok && st.FinishType != "" && e.Event == hooks.SessionEnd {
		e.Payload["finishType"] = st.FinishType
	}
	return nil
}

// AfterEvent implements hooks.Extension: a fresher hook that aborted marks the loop FinishAbort.
func (x *extension) AfterEvent(_ context.Context, e *hooks.EventInfo, res *hooks.Result) error {
	if e.State == nil || res == nil || e.Event == hooks.SessionEnd {
		return nil
	}
	aborted := false
	for _, h := range res.Hooks {
		if h.Format == Name && h.Status == hooks.StatusBlocked {
			aborted = true
		}
	}
	if !aborted {
		return nil
	}
	err := seedfmt.UpdateState(e.State, stateName, func(s *loopState) (bool, error) {
		s.FinishType = FinishAbort
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("fresher: %w", err)
	}
	return nil
}

func (x *extension) clock() time.Time {
	if x.now != nil {
		return x.now()
	}
	return time.Now()
}
