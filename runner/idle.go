package runner

import (
	"fmt"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// A session an agent never ended (no SessionEnd: the agent was killed, the laptop closed) would
// stay active forever, and every later run in its workspace would attach to it. So a session that
// has had no event for "sessions": {"idleEnd"} (default 24h) is ended as interrupted, with
// endReason "idle", when sessions are read: listed, shown, or looked for by a run without a
// session id. Interrupted rather than a status of its own: the seed's tools read four statuses,
// and an interrupted session is what `session resume` takes back (as the agent's next event in
// its own session does). A session a process is firing an event in is held (sessions.Store.Hold)
// and never ended, however long its hooks take.

// idleEnd is the configuration's sessions.idleEnd, else the default.
func (c SessionsConfig) idleEnd() time.Duration {
	if c.IdleEnd == nil {
		return hooks.DefaultSessionIdleEnd
	}
	return time.Duration(*c.IdleEnd)
}

// IdleLimit is sessions.idleEnd for the sessions of workspace, read from the "sessions" sections
// of its native configuration files (the managed layer's, the workspace's .autoagent/config.json,
// the user's $AUTOAGENT_HOME/config.json, as a run there reads them) without loading its hooks.
// A file that cannot be read or parsed, or a value that is not a duration, is an error: the
// caller ends nothing then, rather than guess a limit the configuration may not say.
func (r *Runner) IdleLimit(workspace string) (time.Duration, error) {
	env := hooks.LoadEnv{Workspace: workspace, UserHome: r.UserHome, AutoagentHome: r.AutoagentHome,
		Getenv: r.getenv, ManagedConfig: r.ManagedConfig}
	secs, err := hooks.Sections(env, "sessions")
	if err != nil {
		return 0, fmt.Errorf("sessions.idleEnd of %s: %w", workspace, err)
	}
	c, err := decodeSessionsConfig(secs)
	if err != nil {
		return 0, fmt.Errorf("sessions.idleEnd of %s: %w", workspace, err)
	}
	return c.idleEnd(), nil
}

// EndIdle ends each session of list that is active and has been idle for longer than the limit
// of its workspace (sessions.Store.EndIdle; the limit is read once per workspace), and puts the
// record as it is then in its place. A failure is a warning: the session stays as it was.
func (r *Runner) EndIdle(list []*sessions.Session) {
	type limit struct {
		d   time.Duration
		err error
	}
	limits := map[string]limit{}
	store := r.Store()
	for i, sess := range list {
		if sess == nil || !sess.Active() {
			continue
		}
		l, ok := limits[sess.Workspace]
		if !ok {
			l.d, l.err = r.IdleLimit(sess.Workspace)
			limits[sess.Workspace] = l
		}
		if l.err != nil {
			r.Warn("session %s is left active: %v", sess.ID, l.err)
			continue
		}
		after, ended, err := store.EndIdle(sess.ID, l.d)
		if err != nil {
			r.Warn("%v", err)
			continue
		}
		if !ended {
			continue
		}
		r.Warn("session %s had no event since %s: ended it as interrupted (sessions.idleEnd; agent-hooks session resume %s takes it back)",
			sess.ID, after.EndTime.Format(time.RFC3339), sess.ID)
		list[i] = after
	}
}

// endIdleAttached ends the session attach found as the workspace's active one when it has been
// idle for longer than limit, and opens the workspace's session again (a new one): a run after a
// day of silence does not carry on a session its agent abandoned. A session named by id, or by the
// agent's session id, is the caller's to use and is kept.
func (r *Runner) endIdleAttached(store *sessions.Store, sess *storedSession, req Request, workspace string, limit time.Duration) (*storedSession, error) {
	if !sess.found || limit <= 0 {
		return sess, nil
	}
	_, ended, err := store.EndIdle(sess.id, limit)
	if err != nil {
		r.Warn("%v", err)
		return sess, nil
	}
	if !ended {
		return sess, nil
	}
	r.Warn("session %s had no event for more than %s: ended it as interrupted (sessions.idleEnd)", sess.id, hooks.RoundDuration(limit))
	next, err := r.attach(store, req, workspace)
	if err != nil {
		return nil, err
	}
	return r.endIdleAttached(store, next, req, workspace, limit) // another active one may be found, idle too
}

// PruneSessions removes the sessions that ended more than olderThan ago (sessions.Store.Prune),
// ending first the active ones idle past the limit of their workspace (IdleLimit, read once per
// workspace). With dry it removes and ends nothing, and reports what it would do.
func (r *Runner) PruneSessions(olderThan time.Duration, dry bool) (*sessions.PruneResult, error) {
	type limit struct {
		d   time.Duration
		err error
	}
	limits := map[string]limit{}
	return r.Store().Prune(sessions.PruneOptions{
		OlderThan: olderThan, Dry: dry,
		IdleLimit: func(s *sessions.Session) (time.Duration, error) {
			l, ok := limits[s.Workspace]
			if !ok {
				l.d, l.err = r.IdleLimit(s.Workspace)
				limits[s.Workspace] = l
			}
			return l.d, l.err
		},
	})
}
