package main

import (
	"context"
	"fmt"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
)

// runSession is the session a `run` attaches to. session_run.go owns how it is found or created
// and what each event records in it.
type runSession interface {
	// ID is the session id hooks receive as sessionId.
	ID() string
	// Observer records every hook execution in the audit trail; nil records nothing.
	Observer() hooks.Observer
	// BeforeEvent may add to the payload (stopHookActive, stopBlockCount) before hooks run.
	BeforeEvent(event string, payload hooks.Payload) error
	// AfterEvent records the event's effect on the session (current issue, completed/failed,
	// consecutive Stop blocks) and may adjust res (the Stop block cap).
	AfterEvent(event string, payload hooks.Payload, res *hooks.Result) error
}

// TODO(sessions): replace with the real session store. Placeholder: an id that is not persisted.
func (a *app) openSession(_ context.Context, id, _ string) (runSession, error) {
	if id == "" {
		id = a.getenv("AUTOAGENT_SESSION_ID")
	}
	if id == "" {
		id = fmt.Sprintf("session-%d-000000", time.Now().UnixMilli())
	}
	return ephemeralSession(id), nil
}

type ephemeralSession string

func (s ephemeralSession) ID() string                                          { return string(s) }
func (ephemeralSession) Observer() hooks.Observer                              { return nil }
func (ephemeralSession) BeforeEvent(string, hooks.Payload) error               { return nil }
func (ephemeralSession) AfterEvent(string, hooks.Payload, *hooks.Result) error { return nil }
