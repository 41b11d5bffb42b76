package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// stopLimit is the Extension that ends Stop-hook loops. Before Stop it tells hooks how many
// Stop events in a row were blocked (stopHookActive, stopBlockCount); after it, it counts the
// block, and once stopBlockLimit consecutive Stops were blocked (default 8; 0 = unlimited) it lets
// the next one through with a warning and a `capped` line in the audit trail. Fire gives it to
// the engine, whose own extensions run before the formats', so that the extensions that report a
// result see the capped one.
type stopLimit struct {
	store *sessions.Store
	warn  func(format string, args ...any)
}

func (l *stopLimit) applies(e *hooks.EventInfo) bool {
	return e.Event == hooks.Stop && sessions.ValidID(e.SessionID)
}

// BeforeEvent adds stopHookActive and stopBlockCount to the Stop payload.
func (l *stopLimit) BeforeEvent(_ context.Context, e *hooks.EventInfo) error {
	if !l.applies(e) {
		return nil
	}
	count := 0
	sess, err := l.store.Get(e.SessionID)
	switch {
	case err == nil:
		count = sess.StopBlockCount
	case !errors.Is(err, sessions.ErrNotFound):
		return fmt.Errorf("read stop count: %w", err)
	}
	e.Payload["stopHookActive"] = count > 0
	e.Payload["stopBlockCount"] = count
	return nil
}

// AfterEvent counts a blocked Stop, resets the count on an allowed one, and caps the run of blocks.
func (l *stopLimit) AfterEvent(_ context.Context, e *hooks.EventInfo, res *hooks.Result) error {
	if !l.applies(e) {
		return nil
	}
	limit := defaultStopBlockLimit
	if e.Config != nil && e.Config.StopBlockLimit != nil {
		limit = *e.Config.StopBlockLimit
	}
	capped, blocks := false, 0
	_, err := l.store.Update(e.SessionID, func(x *sessions.Session) error {
		capped, blocks = false, x.StopBlockCount
		switch {
		case !res.Blocked:
			x.StopBlockCount = 0
		case limit > 0 && x.StopBlockCount >= limit:
			capped, x.StopBlockCount = true, 0
		default:
			x.StopBlockCount++
		}
		return nil
	})
	if errors.Is(err, sessions.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("record stop count: %w", err)
	}
	if !capped {
		return nil
	}
	msg := fmt.Sprintf("Stop was blocked %d times in a row (stopBlockLimit %d): letting this Stop through", blocks, limit)
	if res.Reason != "" {
		msg += "; the hooks' reason was: " + res.Reason
	}
	if err := l.store.Append(e.SessionID, sessions.Event{
		Event: hooks.Stop, Name: "stopBlockLimit", Type: "limit", Source: "agent-hooks",
		Status: "capped", Decision: hooks.DecisionApprove, Reason: res.Reason,
		Details: map[string]any{"stopBlockCount": blocks, "stopBlockLimit": limit},
	}); err != nil {
		l.warn("audit trail: %v", err)
	}
	res.Blocked, res.Decision = false, hooks.DecisionApprove
	res.Warnings = append(res.Warnings, msg)
	if res.Extra == nil {
		res.Extra = map[string]any{}
	}
	res.Extra["capped"] = true
	l.warn("%s", msg)
	return nil
}
