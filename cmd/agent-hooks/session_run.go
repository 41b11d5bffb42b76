package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// runSession is the session a `run` attaches to. session_run.go owns how it is found or created
// and what each event records in it.
type runSession interface {
	// ID is the session id hooks receive as sessionId.
	ID() string
	// Observer records every hook execution in the audit trail; nil records nothing.
	Observer() hooks.Observer
	// BeforeEvent may add to the payload before hooks run. (The Stop fields stopHookActive and
	// stopBlockCount are added by stopLimit, an Extension, because it needs the configuration.)
	BeforeEvent(event string, payload hooks.Payload) error
	// AfterEvent records the event's effect on the session: the current issue, completed/failed,
	// the provider. (The Stop block cap is applied by stopLimit, before other extensions report.)
	AfterEvent(event string, payload hooks.Payload, res *hooks.Result) error
}

// findActiveScan is how many of the newest sessions a run without a session id looks through for
// an active one of its workspace when `current` points at another workspace's.
const findActiveScan = 50

// defaultStopBlockLimit applies when the config sets no "stopBlockLimit".
const defaultStopBlockLimit = 8

// sessionStore is <AUTOAGENT_HOME>/sessions.
func (a *app) sessionStore() (*sessions.Store, error) {
	home, err := a.autoagentHome()
	if err != nil {
		return nil, err
	}
	warn := func(err error) { fmt.Fprintf(a.stderr, "agent-hooks: warning: %v\n", err) }
	return sessions.New(filepath.Join(home, "sessions"), sessions.WithWarnings(warn)), nil
}

// openSession attaches a run to --session (id), else $AUTOAGENT_SESSION_ID, else the active
// session of workspace, else a new session. A named session that has no record yet is created
// under that id, so that a run elsewhere (another CI job) can carry an id on.
func (a *app) openSession(_ context.Context, id, workspace string) (runSession, error) {
	store, err := a.sessionStore()
	if err != nil {
		return nil, err
	}
	if id == "" {
		id = a.getenv("AUTOAGENT_SESSION_ID")
	}
	var sess *sessions.Session
	if id != "" {
		sess, err = attachSession(store, id, workspace)
	} else {
		sess, _, err = store.OpenActive(workspace, findActiveScan, func() sessions.Params {
			return newSessionParams(workspace, "agent-hooks", []string{"run"}, "")
		})
	}
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	return &storedSession{store: store, id: sess.ID, provider: sess.Provider, warn: a.stderr}, nil
}

func attachSession(store *sessions.Store, id, workspace string) (*sessions.Session, error) {
	sess, err := store.Get(id)
	if !errors.Is(err, sessions.ErrNotFound) {
		return sess, err
	}
	p := newSessionParams(workspace, "agent-hooks", []string{"run"}, "")
	p.ID = id
	sess, err = store.Create(p)
	if errors.Is(err, fs.ErrExist) { // created by a process running alongside
		return store.Get(id)
	}
	return sess, err
}

// newSessionParams describes a new session of workspace, with the branch and commit checked out
// there (read with go-git, only when a session is created).
func newSessionParams(workspace, command string, args []string, provider string) sessions.Params {
	branch, commit := sessions.GitInfo(workspace)
	return sessions.Params{
		Workspace: workspace, Command: command, Args: args, Provider: provider,
		GitBranch: branch, GitCommit: commit,
	}
}

// storedSession is a session with a record under <AUTOAGENT_HOME>/sessions.
type storedSession struct {
	store    *sessions.Store
	id       string
	provider string
	warn     io.Writer

	warnOnce sync.Once
}

func (s *storedSession) ID() string { return s.id }

func (s *storedSession) Observer() hooks.Observer { return s }

// HookDone appends the hook's line to the audit trail. A trail that cannot be written is reported
// once and does not change the event's outcome.
func (s *storedSession) HookDone(event string, h *hooks.Hook, r *hooks.HookResult) {
	if err := s.store.Append(s.id, auditEvent(event, r)); err != nil {
		s.warnOnce.Do(func() { fmt.Fprintf(s.warn, "agent-hooks: warning: audit trail: %v\n", err) })
	}
}

func auditEvent(event string, r *hooks.HookResult) sessions.Event {
	return sessions.Event{
		Event: event, Name: r.Name, Type: r.Type, Source: r.Source, Format: r.Format, File: r.File,
		Status: string(r.Status), ExitCode: r.ExitCode, DurationMs: r.DurationMs,
		Decision: r.Decision, Reason: r.Reason, Details: r.Details,
	}
}

func (s *storedSession) BeforeEvent(string, hooks.Payload) error { return nil }

// AfterEvent applies the issue bookkeeping of SPEC.md section 7: PreExecutionStart plans the
// payload's issueNumber and makes it current (a blocked start only plans it); PostExecutionEnd
// files it under completed or failed by the payload's success (absent: completed) and clears the
// current issue. The session's provider is taken from the first payload that names one. Other
// events write nothing, so that they cost no lock.
func (s *storedSession) AfterEvent(event string, payload hooks.Payload, res *hooks.Result) error {
	var update []func(*sessions.Session)
	if p, ok := payload["provider"].(string); ok && p != "" && s.provider == "" {
		update = append(update, func(x *sessions.Session) {
			if x.Provider == "" {
				x.Provider = p
			}
		})
	}
	switch event {
	case hooks.PreExecutionStart, hooks.PostExecutionEnd:
		raw, present := payload["issueNumber"]
		if !present {
			break
		}
		n, ok := issueNumber(raw)
		if !ok {
			fmt.Fprintf(s.warn, "agent-hooks: warning: session %s: issueNumber %v is not an issue number; not recorded\n", s.id, raw)
			break
		}
		switch {
		case event == hooks.PostExecutionEnd:
			success := truthy(payload["success"], true)
			update = append(update, func(x *sessions.Session) { x.FinishIssue(n, success) })
		case res != nil && res.Blocked:
			update = append(update, func(x *sessions.Session) { x.PlanIssue(n) })
		default:
			update = append(update, func(x *sessions.Session) { x.StartIssue(n) })
		}
	}
	if len(update) == 0 {
		return nil
	}
	_, err := s.store.Update(s.id, func(x *sessions.Session) error {
		for _, u := range update {
			u(x)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record %s in session: %w", event, err)
	}
	return nil
}

// issueNumber reads a payload's issueNumber: a JSON number, or a string such as "42" or "#42".
func issueNumber(v any) (int, bool) {
	switch x := v.(type) {
	case json.Number:
		n, err := strconv.Atoi(x.String())
		return n, err == nil
	case float64:
		return int(x), x == float64(int(x))
	case int:
		return x, true
	case int64:
		return int(x), true
	case string:
		n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(x), "#"))
		return n, err == nil
	}
	return 0, false
}

// truthy reads a payload flag such as success: a boolean, "true"/"false", or a number (0 is
// false); anything else, or nothing, is def.
func truthy(v any, def bool) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
			return b
		}
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f != 0
		}
	case float64:
		return x != 0
	}
	return def
}

// stopLimit is the Extension that ends Stop-hook loops. Before Stop it tells hooks how many
// Stop events in a row were blocked (stopHookActive, stopBlockCount); after it, it counts the
// block, and once stopBlockLimit consecutive Stops were blocked (default 8; 0 = unlimited) it lets
// the next one through with a warning and a `capped` line in the audit trail. It is registered
// first, so that the extensions that report a result (GitHub) see the capped one.
type stopLimit struct {
	store *sessions.Store
	warn  io.Writer
}

func (a *app) newStopLimit() hooks.Extension {
	store, err := a.sessionStore()
	if err != nil {
		return stopLimit{warn: a.stderr}
	}
	return stopLimit{store: store, warn: a.stderr}
}

func (l stopLimit) applies(e *hooks.EventInfo) bool {
	return l.store != nil && e.Event == hooks.Stop && sessions.ValidID(e.SessionID)
}

// BeforeEvent adds stopHookActive and stopBlockCount to the Stop payload.
func (l stopLimit) BeforeEvent(_ context.Context, e *hooks.EventInfo) error {
	if !l.applies(e) {
		return nil
	}
	store := l.store
	count := 0
	sess, err := store.Get(e.SessionID)
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
func (l stopLimit) AfterEvent(_ context.Context, e *hooks.EventInfo, res *hooks.Result) error {
	if !l.applies(e) {
		return nil
	}
	store := l.store
	limit := defaultStopBlockLimit
	if e.Config != nil && e.Config.StopBlockLimit != nil {
		limit = *e.Config.StopBlockLimit
	}
	capped, blocks := false, 0
	_, err := store.Update(e.SessionID, func(x *sessions.Session) error {
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
	if err := store.Append(e.SessionID, sessions.Event{
		Event: hooks.Stop, Name: "stopBlockLimit", Type: "limit", Source: "agent-hooks",
		Status: "capped", Decision: hooks.DecisionApprove, Reason: res.Reason,
		Details: map[string]any{"stopBlockCount": blocks, "stopBlockLimit": limit},
	}); err != nil {
		fmt.Fprintf(l.warn, "agent-hooks: warning: audit trail: %v\n", err)
	}
	res.Blocked, res.Decision = false, hooks.DecisionApprove
	res.Warnings = append(res.Warnings, msg)
	if res.Extra == nil {
		res.Extra = map[string]any{}
	}
	res.Extra["capped"] = true
	fmt.Fprintf(l.warn, "agent-hooks: warning: %s\n", msg)
	return nil
}
