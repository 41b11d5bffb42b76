package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// StartRequest describes a session to start.
type StartRequest struct {
	Workspace string // the --workspace flag; "" finds it
	Command   string // the agent's command line, recorded in the session
	Args      []string
	Provider  string // the agent's primary provider ("" when unknown)
	Name      string // the session's human name ("" for none), see sessions.ValidName
}

// Start writes a new active session of the workspace and makes it current.
func (r *Runner) Start(req StartRequest) (*sessions.Session, error) {
	ws, err := r.Workspace(req.Workspace)
	if err != nil {
		return nil, err
	}
	p := newSessionParams(ws, req.Command, req.Args, req.Provider)
	p.Name = req.Name
	return r.Store().Create(p)
}

// Lookup reads the session named by id, else $AUTOAGENT_SESSION_ID, else the current one.
func (r *Runner) Lookup(id string) (*sessions.Session, error) {
	store := r.Store()
	if id == "" {
		id = r.getenv("AUTOAGENT_SESSION_ID")
	}
	if id != "" {
		return store.Get(id)
	}
	sess, err := store.Current()
	if errors.Is(err, sessions.ErrNoCurrent) {
		err = errors.New("no current session (start one with agent-hooks session start)")
	}
	return sess, err
}

// Resume makes session id, which ended as interrupted (or is still active), active and current
// again; it loses its end time. A completed or failed session cannot be resumed.
func (r *Runner) Resume(id string) (*sessions.Session, error) {
	store := r.Store()
	sess, err := store.Update(id, func(x *sessions.Session) error {
		switch x.Status {
		case sessions.StatusInterrupted, sessions.StatusActive:
		default:
			return fmt.Errorf("session %s is %s; only an interrupted session can be resumed", x.ID, x.Status)
		}
		x.Status = sessions.StatusActive
		x.EndTime = time.Time{}
		x.EndReason = ""
		x.Metadata.TotalDuration = 0
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	if err := store.SetCurrent(sess.ID); err != nil {
		return nil, err
	}
	return sess, nil
}

// EndRequest names a session to end and how it ended.
type EndRequest struct {
	// SessionID is the session to end: "" is $AUTOAGENT_SESSION_ID, else the active session of the
	// workspace (the current one if it is that workspace's), so that an agent ending its run never
	// ends another workspace's session.
	SessionID string
	// Workspace is the --workspace flag: the workspace whose session ends and whose hooks run
	// ("" is the session's, else the one found from the working directory).
	Workspace string
	Status    sessions.Status // completed, interrupted or failed
	// CaptureStdout keeps the hooks' stdout in the results only (see Request).
	CaptureStdout bool
}

// EndSession ends a session: it fires Stop (with reason, status, issue counts and duration in the
// payload), and unless a Stop hook blocked it (the agent must keep working: the session stays
// active, and the Fired is Blocked), fires SessionEnd and records the end: status, end time,
// duration. A blocked SessionEnd does not keep the session from ending.
func (r *Runner) EndSession(ctx context.Context, req EndRequest) (*Fired, error) {
	if req.Status == sessions.StatusActive {
		return nil, errors.New("end session: a session cannot end as active")
	}
	if r.memo == nil {
		r = r.Once() // Stop, SessionEnd and the push read one configuration
	}
	sess, err := r.sessionToEnd(req.SessionID, req.Workspace)
	if err != nil {
		return nil, err
	}
	if !sess.Active() {
		return nil, fmt.Errorf("session %s is already %s", sess.ID, sess.Status)
	}
	workspace := req.Workspace
	if workspace == "" {
		workspace = sess.Workspace
		if _, err := os.Stat(workspace); err != nil {
			r.Warn("session workspace %s is gone; running the hooks of the current directory's workspace", sess.Workspace)
			workspace = ""
		}
	}
	reason := string(req.Status)
	if req.Status == sessions.StatusFailed {
		reason = "error" // the seed's Stop reasons are completed, interrupted and error
	}
	data := hooks.Payload{
		"reason":          reason,
		"status":          string(req.Status),
		"issuesCompleted": len(sess.IssuesCompleted),
		"issuesFailed":    len(sess.IssuesFailed),
		"issuesTotal":     len(sess.IssuesPlanned),
		"duration":        max(0, r.now().Sub(sess.StartTime).Milliseconds()),
	}
	fire := Request{Event: hooks.Stop, Data: data, SessionID: sess.ID, Workspace: workspace, CaptureStdout: req.CaptureStdout}
	stop, err := r.Fire(ctx, fire)
	out := &Fired{Streamed: !req.CaptureStdout, Session: sess}
	if stop != nil {
		out.Result, out.Stop = stop.Result, stop.Result
	}
	if err != nil || out.Blocked() {
		return out, err
	}
	fire.Event, fire.Data, fire.shipNow = hooks.SessionEnd, maps.Clone(data), true
	end, err := r.Fire(ctx, fire)
	if err != nil {
		return out, err
	}
	out.SessionEnd = end.Result
	out.Session, err = r.Store().Update(sess.ID, func(x *sessions.Session) error {
		x.End(req.Status, r.now())
		x.StopBlockCount = 0
		return nil
	})
	if err != nil {
		return out, err
	}
	if workspace == "" {
		workspace = sess.Workspace
	}
	if r.AtSessionEnd != nil {
		r.AtSessionEnd(ctx, r, workspace, out.Session)
	}
	return out, nil
}

// sessionToEnd reads the session named by id, else $AUTOAGENT_SESSION_ID, else the active session
// of the workspace (workspaceFlag, else found from the working directory).
func (r *Runner) sessionToEnd(id, workspaceFlag string) (*sessions.Session, error) {
	if id != "" || r.getenv("AUTOAGENT_SESSION_ID") != "" {
		return r.Lookup(id)
	}
	ws, err := r.Workspace(workspaceFlag)
	if err != nil {
		return nil, err
	}
	sess, err := r.Store().Active(ws, findActiveScan)
	if err == nil && sess == nil {
		err = fmt.Errorf("no active session in %s (name one, or start one with agent-hooks session start)", ws)
	}
	return sess, err
}
