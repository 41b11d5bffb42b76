package runner

import (
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// Record appends e to the audit trail of the session req's event fires in, attached by the rules
// of Fire but without the configuration (which may be what failed), with req's ToolUseID. An
// agent adapter records with it what it answered its host. It returns the session's id.
func (r *Runner) Record(req Request, e sessions.Event) (string, error) {
	sess, err := r.attachOnly(req)
	if err != nil {
		return "", err
	}
	if e.ToolUseID == "" {
		e.ToolUseID = req.ToolUseID
	}
	return sess.id, sess.store.Append(sess.id, e)
}

// Refuse records that req's event could not be decided by its hooks (the configuration cannot be
// used, they did not finish in time, agent-hooks itself failed) and was refused for reason: one
// audit line with status "refused". A refused Stop or SubagentStop counts against the Stop-loop
// cap like a blocked one, with the default stopBlockLimit (the configuration may be what failed),
// so that a broken configuration cannot keep an agent from stopping forever: capped reports that
// the cap lets this one through (the line then says "capped").
func (r *Runner) Refuse(req Request, reason string) (capped bool, err error) {
	sess, err := r.attachOnly(req)
	if err != nil {
		return false, err
	}
	e := sessions.Event{
		Event: req.Event, Name: "agent-hooks", Type: "refusal", Source: "agent-hooks",
		Status: "refused", Decision: hooks.DecisionBlock, Reason: reason, ToolUseID: req.ToolUseID,
	}
	if req.Event == hooks.Stop || req.Event == hooks.SubagentStop {
		var blocks int
		capped, blocks, err = countStopBlock(sess.store, sess.id, req.Event, true, defaultStopBlockLimit)
		if err != nil {
			return false, err
		}
		if capped {
			e = cappedEvent(req.Event, blocks, defaultStopBlockLimit, reason)
			e.ToolUseID = req.ToolUseID
			r.Warn("%s", cappedMessage(req.Event, blocks, defaultStopBlockLimit, reason))
		}
	}
	return capped, sess.store.Append(sess.id, e)
}

// attachOnly finds the workspace and attaches req's session, as Fire does before it runs hooks. A
// session this (Once) runner attached already is taken as it was attached: its record exists, and
// recording needs only its id.
func (r *Runner) attachOnly(req Request) (*storedSession, error) {
	if sess := r.attached.find(r.sessionIDOf(req)); sess != nil {
		return &storedSession{store: sess.store, id: sess.id, record: sess.record, toolUseID: req.ToolUseID, warn: r.Warn}, nil
	}
	ws, err := r.Workspace(req.Workspace)
	if err != nil {
		return nil, err
	}
	return r.attach(r.Store(), req, ws)
}
