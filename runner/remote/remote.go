// Package remote keeps sessions on a git remote of their workspace's repository: `session push`,
// the push at a session's end ("sessions": {"push": true}: AtEnd, the runner's AtSessionEnd),
// the sessions left to push, and reading pushed sessions (`session list --remote`, `show`,
// `verify`, `pull`). It is the runner's only part that needs git's wire protocols (gitops,
// go-git), kept out of runner so that the program on every tool call links none of them.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/sessions"
)

// limits are the bounds of every wait on the remote.
func limits(c runner.SessionsConfig) gitops.Limits {
	var l gitops.Limits
	if c.ConnectTimeout != nil {
		l.Connect = time.Duration(*c.ConnectTimeout)
	}
	if c.IdleTimeout != nil {
		l.Idle = time.Duration(*c.IdleTimeout)
	}
	return l
}

// withLimit names the configuration key of the limit a remote kept silent past, if it did.
func withLimit(err error) error {
	var timeout *gitops.TimeoutError
	if !errors.As(err, &timeout) {
		return err
	}
	key := "sessions.idleTimeout"
	if timeout.Connect {
		key = "sessions.connectTimeout"
	}
	return fmt.Errorf("%w (%s)", err, key)
}

// pushTimeout bounds the push at the end of a session.
func pushTimeout(c runner.SessionsConfig) time.Duration {
	if c.PushTimeout != nil {
		return time.Duration(*c.PushTimeout)
	}
	return hooks.DefaultSessionPushTimeout
}

// Request names a remote of a workspace's repository.
type Request struct {
	Remote    string // "" is the config's sessions.remote, else origin
	Workspace string // the --workspace flag: the repository whose remote it is ("" finds it)
}

// sessionRemote opens the remote of req (else the configuration's sessions.remote, else origin)
// of its workspace (else the session's, for a push), bounded by the configuration's limits.
func sessionRemote(r *runner.Runner, req Request, sessionWorkspace string) (*gitops.SessionRemote, error) {
	ws := req.Workspace
	if ws == "" && sessionWorkspace != "" {
		ws = sessionWorkspace
	}
	ws, err := r.Workspace(ws)
	if err != nil {
		return nil, err
	}
	env, err := r.LoadEnv(ws, "")
	if err != nil {
		return nil, err
	}
	cfg, err := r.LoadConfig(env)
	if err != nil {
		return nil, err
	}
	sc, err := runner.ReadSessionsConfig(cfg)
	if err != nil {
		return nil, err
	}
	return openRemote(r, ws, req.Remote, sc)
}

// openRemote opens remote (else sc's, else origin) of the repository of workspace ws, bounded by
// sc's limits.
func openRemote(r *runner.Runner, ws, remote string, sc runner.SessionsConfig) (*gitops.SessionRemote, error) {
	if remote == "" {
		remote = sc.Remote
	}
	return gitops.OpenSessionRemote(ws, gitops.Env{Getenv: r.Getenv, Environ: r.Environ}, remote, limits(sc))
}

// Push writes session id (else $AUTOAGENT_SESSION_ID, else the current one) to
// refs/agent-hooks/sessions/<id> on the remote: its record as it is now and its audit trail up
// to its last whole line. A push left pending (see PushPending) is done by it; one that fails
// keeps its mark, with the new failure.
func Push(ctx context.Context, r *runner.Runner, id string, req Request) (*gitops.SessionPushResult, error) {
	sess, err := r.Lookup(id)
	if err != nil {
		return nil, err
	}
	sr, err := sessionRemote(r, req, sess.Workspace)
	if err == nil {
		var res *gitops.SessionPushResult
		if res, err = pushSession(ctx, r, sr, sess.ID); err == nil {
			return res, r.Store().ClearPushPending(sess.ID)
		}
	}
	store := r.Store()
	if p, perr := store.PushPending(sess.ID); perr == nil && p != nil {
		p.Error, p.Time = err.Error(), now(r)
		if merr := store.MarkPushPending(*p); merr != nil {
			r.Warn("%v", merr)
		}
	}
	return nil, err
}

func pushSession(ctx context.Context, r *runner.Runner, sr *gitops.SessionRemote, id string) (*gitops.SessionPushResult, error) {
	store := r.Store()
	// The record with its head and the trail's size at that head, taken together: the trail pushed
	// ends at the head pushed, whatever is appended meanwhile (the next push takes it).
	sess, size, err := store.Snapshot(id)
	if err != nil {
		return nil, err
	}
	record, err := json.MarshalIndent(sess, "", "  ")
	if err != nil {
		return nil, err
	}
	p := gitops.SessionPush{ID: id, Record: append(record, '\n'), Retries: 3, Time: now(r),
		Message: fmt.Sprintf("agent-hooks session %s (%s)\n", id, sess.Status)}
	f, err := store.TrailFile(id)
	if err != nil {
		return nil, err
	}
	if f != nil {
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("push session %s: %w", id, err)
		}
		size, err := gitops.SnapshotSize(f, min(size, st.Size()))
		if err != nil {
			return nil, fmt.Errorf("push session %s: read the audit trail: %w", id, err)
		}
		p.Trail = gitops.TrailSnapshot{R: f, Size: size}
	}
	res, err := sr.PushSession(ctx, p)
	return res, withLimit(err)
}

// Session is a session read from a remote.
type Session struct {
	*sessions.Session
	Commit string `json:"commit"` // what its ref points at
	// Trail reads its audit trail (it may be called more than once).
	Trail func() (io.ReadCloser, error) `json:"-"`
	// TrailName names the trail in messages: the ref and the remote.
	TrailName string `json:"-"`
}

// List lists the sessions pushed to the remote, newest first (by the time in their
// ids), reading (fetching into the cache, unless it has them) only the limit newest (limit <= 0:
// all). A pushed record that cannot be read is a problem, and skipped.
func List(ctx context.Context, r *runner.Runner, req Request, limit int) (list []*Session, problems []error, err error) {
	sr, err := sessionRemote(r, req, "")
	if err != nil {
		return nil, nil, err
	}
	// One connection lists the sessions and fetches the records shown: a second would have the
	// remote advertise all its refs again.
	listed, err := sr.ListSessions(ctx)
	if err != nil {
		return nil, nil, withLimit(err)
	}
	defer listed.Close()
	commit := map[string]string{}
	var ids []string
	for _, s := range listed.Sessions {
		if sessions.ValidID(s.ID) {
			ids = append(ids, s.ID)
			commit[s.ID] = s.Commit
		}
	}
	sessions.NewestFirst(ids)
	if limit > 0 && len(ids) > limit {
		ids = ids[:limit]
	}
	cache, err := sr.OpenSessionCache(cacheDir(r))
	if err != nil {
		return nil, nil, err
	}
	var want []gitops.RemoteSession
	if limit > 0 {
		for _, id := range ids {
			want = append(want, gitops.RemoteSession{ID: id, Commit: commit[id]})
		}
	}
	if err := cache.Fetch(ctx, listed, want); err != nil {
		return nil, nil, withLimit(err)
	}
	for _, id := range ids {
		rs, err := remoteSession(cache, sr, id)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		list = append(list, rs)
	}
	return list, problems, nil
}

// Lookup reads session id as it was last pushed to the remote.
func Lookup(ctx context.Context, r *runner.Runner, id string, req Request) (*Session, error) {
	if !sessions.ValidID(id) {
		return nil, fmt.Errorf("read pushed session: invalid id %q (want session-<unixms>-<[a-z0-9]>)", id)
	}
	sr, err := sessionRemote(r, req, "")
	if err != nil {
		return nil, err
	}
	listed, err := sr.ListSessions(ctx)
	if err != nil {
		return nil, withLimit(err)
	}
	defer listed.Close()
	all := listed.Sessions
	i := slices.IndexFunc(all, func(s gitops.RemoteSession) bool { return s.ID == id })
	if i < 0 {
		return nil, fmt.Errorf("session %s: %w %s (%s)", id, gitops.ErrSessionNotPushed, sr.Name, sr.URL)
	}
	cache, err := sr.OpenSessionCache(cacheDir(r))
	if err != nil {
		return nil, err
	}
	if err := cache.Fetch(ctx, listed, all[i:i+1]); err != nil {
		return nil, withLimit(err)
	}
	return remoteSession(cache, sr, id)
}

func remoteSession(cache *gitops.SessionCache, sr *gitops.SessionRemote, id string) (*Session, error) {
	ps, err := cache.Session(id)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s%s:session.json on %s", gitops.SessionRefPrefix, id, sr.Name)
	sess, err := sessions.ParseRecord(name, id, ps.Record)
	if err != nil {
		return nil, err
	}
	return &Session{Session: sess, Commit: ps.Commit, Trail: ps.OpenTrail,
		TrailName: fmt.Sprintf("%s%s:events on %s", gitops.SessionRefPrefix, id, sr.Name)}, nil
}

// Pull copies session id as it was last pushed into the local sessions folder (replacing
// a local one only with replace).
func Pull(ctx context.Context, r *runner.Runner, id string, req Request, replace bool) (*Session, error) {
	rs, err := Lookup(ctx, r, id, req)
	if err != nil {
		return nil, err
	}
	record, err := json.MarshalIndent(rs.Session, "", "  ")
	if err != nil {
		return nil, err
	}
	trail, err := rs.Trail()
	if err != nil {
		return nil, err
	}
	defer trail.Close()
	if err := r.Store().Import(id, append(record, '\n'), trail, replace); err != nil {
		return nil, err
	}
	return rs, nil
}

// cacheDir is where sessions read from remotes are kept (see gitops.SessionCache).
func cacheDir(r *runner.Runner) string { return filepath.Join(r.AutoagentHome, "remote-sessions") }

// AtEnd pushes an ended session when the configuration says "sessions": {"push": true},
// within sessions.pushTimeout in all: ending a session never waits on the network for longer. A
// push that fails or times out is a warning (the session has ended) and leaves the session
// marked to push (Store.MarkPushPending): `session list` and `show` say so, and the next session
// end in the workspace, `session push ID` or `session push --pending` pushes it. After a push
// that succeeds, the sessions left pending in the workspace are pushed too, in what is left of
// the time.
func AtEnd(ctx context.Context, r *runner.Runner, workspace string, sess *sessions.Session) {
	env, err := r.LoadEnv(workspace, "")
	if err != nil {
		return
	}
	cfg, err := r.LoadConfig(env)
	if err != nil {
		return // the events just fired with it; nothing new to say
	}
	sc, err := runner.ReadSessionsConfig(cfg)
	if err != nil {
		r.Warn("%v", err)
		return
	}
	if !sc.Push {
		return
	}
	limit := pushTimeout(sc)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	store := r.Store()
	push := func(id, remote string) error {
		sr, err := openRemote(r, env.Workspace, remote, sc)
		if err == nil {
			_, err = pushSession(ctx, r, sr, id)
		}
		if err == nil {
			return store.ClearPushPending(id)
		}
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("gave up after %s (sessions.pushTimeout): %w", hooks.RoundDuration(limit), err)
		}
		p := sessions.PendingPush{ID: id, Remote: remote, Workspace: env.Workspace, Error: err.Error(), Time: now(r)}
		if merr := store.MarkPushPending(p); merr != nil {
			return fmt.Errorf("%w; and it could not be marked to push later: %v", err, merr)
		}
		return err
	}
	remote := sc.Remote
	if remote == "" {
		remote = "origin" // as gitops.OpenSessionRemote takes it, named in the mark
	}
	if err := push(sess.ID, remote); err != nil {
		r.Warn("sessions.push: session %s was not pushed: %v; it is kept here, marked to push (the next session end in this workspace pushes it, or: agent-hooks session push --pending)", sess.ID, err)
		return
	}
	pending, _, err := store.PendingPushes()
	if err != nil {
		r.Warn("sessions.push: %v", err)
		return
	}
	for _, p := range pending {
		if p.ID == sess.ID || p.Workspace != env.Workspace {
			continue
		}
		if ctx.Err() != nil {
			r.Warn("sessions.push: session %s is still to push (no time left: sessions.pushTimeout); push it with: agent-hooks session push --pending", p.ID)
			continue
		}
		if err := push(p.ID, p.Remote); err != nil {
			r.Warn("sessions.push: session %s, left to push earlier, was not pushed: %v", p.ID, err)
			continue
		}
		fmt.Fprintf(stderr(r), "agent-hooks: sessions.push: pushed session %s, left to push earlier\n", p.ID)
	}
}

// PendingResult is the push of a session left pending.
type PendingResult struct {
	ID     string                    `json:"id"`
	Remote string                    `json:"remote"`
	Result *gitops.SessionPushResult `json:"result,omitempty"`
	Err    error                     `json:"-"`
	Error  string                    `json:"error,omitempty"`
}

// PushPending pushes every session whose push did not happen (see AtEnd), oldest first, each
// to the remote of its mark from its workspace (req overrides either); a push that succeeds clears
// the mark, one that fails keeps it, with the new failure. A mark that cannot be read is a problem.
func PushPending(ctx context.Context, r *runner.Runner, req Request) (results []PendingResult, problems []error, err error) {
	store := r.Store()
	pending, problems, err := store.PendingPushes()
	if err != nil {
		return nil, problems, err
	}
	for _, p := range pending {
		one := Request{Remote: p.Remote, Workspace: p.Workspace}
		if req.Remote != "" {
			one.Remote = req.Remote
		}
		if req.Workspace != "" {
			one.Workspace = req.Workspace
		}
		res := PendingResult{ID: p.ID, Remote: one.Remote}
		sr, err := sessionRemote(r, one, "")
		if err == nil {
			res.Remote = sr.Name
			var pushed *gitops.SessionPushResult
			if pushed, err = pushSession(ctx, r, sr, p.ID); err == nil {
				res.Result, err = pushed, store.ClearPushPending(p.ID)
			}
		}
		if err != nil {
			res.Err, res.Error = err, err.Error()
			p.Error, p.Time = err.Error(), now(r)
			if merr := store.MarkPushPending(p); merr != nil {
				problems = append(problems, merr)
			}
		}
		results = append(results, res)
		if ctx.Err() != nil {
			break
		}
	}
	return results, problems, nil
}

// now is the runner's clock.
func now(r *runner.Runner) time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// stderr is where the runner says what it does.
func stderr(r *runner.Runner) io.Writer {
	if r.Stderr == nil {
		return io.Discard
	}
	return r.Stderr
}
