package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// attach finds the session an event is fired in: req.SessionID (--session), else
// $AUTOAGENT_SESSION_ID, else the session of the agent's session id (req.AgentSessionID), else
// the active session of workspace, else a new session. A named session that has no record yet is
// created under that id, so that a run elsewhere (another CI job) can carry an id on; a named
// session an agent's hook fires in records that agent and its session id.
func (r *Runner) attach(store *sessions.Store, req Request, workspace string) (*storedSession, error) {
	id := r.sessionIDOf(req)
	var sess *sessions.Session
	var err error
	found := false // the workspace's active session, found rather than named or created
	switch {
	case id != "":
		sess, err = attachNamed(store, id, workspace)
		if err == nil && req.AgentSessionID != "" && sess.Agent == "" {
			sess, err = store.Update(id, func(x *sessions.Session) error {
				if x.Agent == "" {
					x.Agent, x.AgentSessionID = req.Agent, req.AgentSessionID
				}
				return nil
			})
		}
	case req.AgentSessionID != "":
		sess, _, err = store.OpenAgent(req.Agent, req.AgentSessionID, func() sessions.Params {
			return newSessionParams(workspace, req.Agent, nil, req.Agent)
		})
	default:
		var created bool
		sess, created, err = store.OpenActive(workspace, findActiveScan, func() sessions.Params {
			return newSessionParams(workspace, "agent-hooks", []string{"run"}, "")
		})
		found = err == nil && !created
	}
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	attached := &storedSession{store: store, id: sess.ID, record: sess, toolUseID: req.ToolUseID, warn: r.Warn, found: found}
	r.attached.remember(attached)
	return attached, nil
}

// sessionIDOf is the session req names: its SessionID (--session), else $AUTOAGENT_SESSION_ID.
func (r *Runner) sessionIDOf(req Request) string {
	if req.SessionID != "" {
		return req.SessionID
	}
	return r.getenv("AUTOAGENT_SESSION_ID")
}

// attachMemo is the sessions a Once runner attached, by id (nil: none are remembered, for a
// runner that is not Once). A Once runner has one sessions folder.
type attachMemo struct {
	mu       sync.Mutex
	sessions map[string]*storedSession
}

func (m *attachMemo) remember(s *storedSession) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessions == nil {
		m.sessions = map[string]*storedSession{}
	}
	m.sessions[s.id] = s
}

// find is session id, attached before; nil when it was not (or id is "").
func (m *attachMemo) find(id string) *storedSession {
	if m == nil || id == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sessions[id]
}

// attachNamed reads session id, creating it (as a session of workspace) when it has no record.
func attachNamed(store *sessions.Store, id, workspace string) (*sessions.Session, error) {
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
// there (read only when a session is created).
func newSessionParams(workspace, command string, args []string, provider string) sessions.Params {
	branch, commit := sessions.GitInfo(workspace)
	return sessions.Params{
		Workspace: workspace, Command: command, Args: args, Provider: provider,
		GitBranch: branch, GitCommit: commit,
	}
}

// storedSession is the session an event is fired in. It is the engine's Observer (the audit
// trail) and records the event's effect on the session afterwards (AfterEvent).
type storedSession struct {
	store     *sessions.Store
	id        string
	record    *sessions.Session // as it was when the event was attached to it
	toolUseID string            // written on every audit line
	warn      func(format string, args ...any)
	found     bool // the workspace's active session, found by looking (see endIdleAttached)

	warnOnce sync.Once
	// trail appends the event's audit lines, keeping the trail open between them (made on the
	// first; close releases it).
	trailMu sync.Mutex
	trail   *sessions.TrailAppender
}

// appender is the session's TrailAppender, made on first use.
func (s *storedSession) appender() (*sessions.TrailAppender, error) {
	s.trailMu.Lock()
	defer s.trailMu.Unlock()
	if s.trail == nil {
		a, err := s.store.Appender(s.id)
		if err != nil {
			return nil, err
		}
		s.trail = a
	}
	return s.trail, nil
}

// close releases the audit trail the event's hooks appended to.
func (s *storedSession) close() {
	s.trailMu.Lock()
	defer s.trailMu.Unlock()
	if s.trail != nil {
		s.trail.Close()
		s.trail = nil
	}
}

// filesModified is what an agent's Stop and SessionEnd payloads carry as filesModified: the
// files the agent's edit tools changed in the session (an empty list when none: a git-commit
// hook then commits nothing, rather than whatever else is in the work tree). ok is false for
// other events and for sessions of no agent.
func (s *storedSession) filesModified(event string) ([]any, bool) {
	if s.record.Agent == "" || event != hooks.Stop && event != hooks.SessionEnd {
		return nil, false
	}
	files := make([]any, len(s.record.FilesModified))
	for i, f := range s.record.FilesModified {
		files[i] = f
	}
	return files, true
}

// HookDone appends the hook's line to the audit trail (which notes the trail's new head beside
// the record: sessions.Store.Append), through the session's one TrailAppender, which keeps the
// trail open from one hook's line to the next. A trail that cannot be written is reported once and
// does not change the event's outcome.
func (s *storedSession) HookDone(event string, _ *hooks.Hook, r *hooks.HookResult) {
	e := auditEvent(event, r)
	e.ToolUseID = s.toolUseID
	a, err := s.appender()
	if err == nil {
		err = a.Append(e)
	}
	if err != nil {
		s.warnOnce.Do(func() { s.warn("audit trail: %v", err) })
	}
}

func auditEvent(event string, r *hooks.HookResult) sessions.Event {
	return sessions.Event{
		Event: event, Name: r.Name, Type: r.Type, Source: r.Source, Format: r.Format, File: r.File,
		Status: string(r.Status), ExitCode: r.ExitCode, DurationMs: r.DurationMs,
		Decision: r.Decision, Reason: r.Reason, Details: r.Details,
	}
}

// AfterEvent applies the issue bookkeeping of SPEC.md section 7: PreExecutionStart plans the
// payload's issueNumber and makes it current (a blocked start only plans it); PostExecutionEnd
// files it under completed or failed by the payload's success (absent: completed) and clears the
// current issue. The session's provider is taken from the first payload that names one. An event
// that changes nothing else writes nothing, so that it costs no lock: its audit lines noted the
// trail's head beside the record as they were appended (sessions.Store.Append). (The Stop block
// cap is stopLimit's, an extension, because the extensions after it must see its decision.)
// change, when not nil, is the request's own change (the agent's files, the end of the session),
// told whether the event was blocked.
func (s *storedSession) AfterEvent(event string, payload hooks.Payload, res *hooks.Result, change func(x *sessions.Session, blocked bool)) error {
	var update []func(*sessions.Session)
	if change != nil {
		blocked := res != nil && (res.Blocked || res.Decision == hooks.DecisionAsk)
		update = append(update, func(x *sessions.Session) { change(x, blocked) })
	}
	if p, ok := payload["provider"].(string); ok && p != "" && s.record.Provider == "" {
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
			s.warn("session %s: issueNumber %v is not an issue number; not recorded", s.id, raw)
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
