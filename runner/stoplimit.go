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
// result see the capped one. SubagentStop (a subagent's Stop) is capped the same way, with a count
// of its own.
type stopLimit struct {
	store *sessions.Store
	warn  func(format string, args ...any)
}

func (l *stopLimit) applies(e *hooks.EventInfo) bool {
	return (e.Event == hooks.Stop || e.Event == hooks.SubagentStop) && sessions.ValidID(e.SessionID)
}

// stopCount is the record's count of consecutive blocks of event (Stop or SubagentStop).
func stopCount(x *sessions.Session, event string) *int {
	if event == hooks.SubagentStop {
		return &x.SubagentStopBlockCount
	}
	return &x.StopBlockCount
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
		count = *stopCount(sess, e.Event)
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
	capped, blocks, err := countStopBlock(l.store, e.SessionID, e.Event, res.Blocked, limit)
	if errors.Is(err, sessions.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("record stop count: %w", err)
	}
	if !capped {
		return nil
	}
	msg := cappedMessage(e.Event, blocks, limit, res.Reason)
	if err := l.store.Append(e.SessionID, cappedEvent(e.Event, blocks, limit, res.Reason)); err != nil {
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

// countStopBlock counts a blocked (or resets on an allowed) Stop or SubagentStop in the record of
// session id, and reports whether the block is capped: the limit of consecutive blocks was
// reached, so this one is let through and the count starts again. blocks is the count before.
func countStopBlock(store *sessions.Store, id, event string, blocked bool, limit int) (capped bool, blocks int, err error) {
	_, err = store.Update(id, func(x *sessions.Session) error {
		n := stopCount(x, event)
		capped, blocks = false, *n
		switch {
		case !blocked:
			*n = 0
		case limit > 0 && *n >= limit:
			capped, *n = true, 0
		default:
			*n++
		}
		return nil
	})
	return capped, blocks, err
}

func cappedMessage(event string, blocks, limit int, reason string) string {
	msg := fmt.Sprintf("%s was blocked %d times in a row (stopBlockLimit %d): letting this %s through", event, blocks, limit, event)
	if reason != "" {
		msg += "; the hooks' reason was: " + reason
	}
	return msg
}

// cappedEvent is the audit line of a capped Stop or SubagentStop.
func cappedEvent(event string, blocks, limit int, reason string) sessions.Event {
	return sessions.Event{
		Event: event, Name: "stopBlockLimit", Type: "limit", Source: "agent-hooks",
		Status: "capped", Decision: hooks.DecisionApprove, Reason: reason,
		Details: map[string]any{"stopBlockCount": blocks, "stopBlockLimit": limit},
	}
}
