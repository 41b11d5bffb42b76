package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// SessionsConfig is the "sessions" key of config.json.
type SessionsConfig struct {
	// Push pushes the session to the remote when it ends (SessionEnd), as `session push` does.
	Push bool `json:"push"`
	// Remote is the remote sessions are pushed to and read from (default origin).
	Remote string `json:"remote"`
}

// sessionsConfig reads the "sessions" sections of the configuration: the user's, then the
// project's over it, key by key.
func sessionsConfig(cfg *hooks.Config) (SessionsConfig, error) {
	var c SessionsConfig
	err := decodeSections(cfg, "sessions", &c)
	return c, err
}

// decodeSections decodes every section named key into v, the later files (user) first so that
// the project's keys win; an unknown key or a wrong type is an error naming the file and
// line:column.
func decodeSections(cfg *hooks.Config, key string, v any) error {
	if cfg == nil {
		return nil
	}
	secs := cfg.Sections[key]
	for i := len(secs) - 1; i >= 0; i-- {
		s := secs[i]
		dec := json.NewDecoder(bytes.NewReader(s.Value))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("%s:%d:%d: %s: %v", s.File, s.Line, s.Col, key, err)
		}
	}
	return nil
}

// RemoteRequest names a remote of a workspace's repository.
type RemoteRequest struct {
	Remote    string // "" is the config's sessions.remote, else origin
	Workspace string // the --workspace flag: the repository whose remote it is ("" finds it)
}

// sessionRemote opens the remote of req: its workspace's (else the session's, for a push).
func (r *Runner) sessionRemote(req RemoteRequest, sessionWorkspace string) (*gitops.SessionRemote, error) {
	ws := req.Workspace
	if ws == "" && sessionWorkspace != "" {
		ws = sessionWorkspace
	}
	ws, err := r.Workspace(ws)
	if err != nil {
		return nil, err
	}
	remote := req.Remote
	if remote == "" {
		env, err := r.LoadEnv(ws, "")
		if err != nil {
			return nil, err
		}
		cfg, err := r.LoadConfig(env)
		if err != nil {
			return nil, err
		}
		sc, err := sessionsConfig(cfg)
		if err != nil {
			return nil, err
		}
		remote = sc.Remote
	}
	return gitops.OpenSessionRemote(ws, gitops.Env{Getenv: r.Getenv, Environ: r.Environ}, remote)
}

// PushSession writes session id (else $AUTOAGENT_SESSION_ID, else the current one) to
// refs/agent-hooks/sessions/<id> on the remote: its record as it is now and its audit trail up
// to its last whole line.
func (r *Runner) PushSession(ctx context.Context, id string, req RemoteRequest) (*gitops.SessionPushResult, error) {
	sess, err := r.Lookup(id)
	if err != nil {
		return nil, err
	}
	sr, err := r.sessionRemote(req, sess.Workspace)
	if err != nil {
		return nil, err
	}
	return r.pushSession(ctx, sr, sess.ID)
}

func (r *Runner) pushSession(ctx context.Context, sr *gitops.SessionRemote, id string) (*gitops.SessionPushResult, error) {
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
	p := gitops.SessionPush{ID: id, Record: append(record, '\n'), Retries: 3, Time: r.now(),
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
	return sr.PushSession(ctx, p)
}

// RemoteSession is a session read from a remote.
type RemoteSession struct {
	*sessions.Session
	Commit string `json:"commit"` // what its ref points at
	// Trail reads its audit trail (it may be called more than once).
	Trail func() (io.ReadCloser, error) `json:"-"`
	// TrailName names the trail in messages: the ref and the remote.
	TrailName string `json:"-"`
}

// RemoteSessions lists the sessions pushed to the remote, newest first (by the time in their
// ids), reading (fetching into the cache, unless it has them) only the limit newest (limit <= 0:
// all). A pushed record that cannot be read is a problem, and skipped.
func (r *Runner) RemoteSessions(ctx context.Context, req RemoteRequest, limit int) (list []*RemoteSession, problems []error, err error) {
	sr, err := r.sessionRemote(req, "")
	if err != nil {
		return nil, nil, err
	}
	// One connection lists the sessions and fetches the records shown: a second would have the
	// remote advertise all its refs again.
	listed, err := sr.ListSessions(ctx)
	if err != nil {
		return nil, nil, err
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
	cache, err := sr.OpenSessionCache(r.remoteCacheDir())
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
		return nil, nil, err
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

// LookupRemote reads session id as it was last pushed to the remote.
func (r *Runner) LookupRemote(ctx context.Context, id string, req RemoteRequest) (*RemoteSession, error) {
	if !sessions.ValidID(id) {
		return nil, fmt.Errorf("read pushed session: invalid id %q (want session-<unixms>-<[a-z0-9]>)", id)
	}
	sr, err := r.sessionRemote(req, "")
	if err != nil {
		return nil, err
	}
	listed, err := sr.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	defer listed.Close()
	all := listed.Sessions
	i := slices.IndexFunc(all, func(s gitops.RemoteSession) bool { return s.ID == id })
	if i < 0 {
		return nil, fmt.Errorf("session %s: %w %s (%s)", id, gitops.ErrSessionNotPushed, sr.Name, sr.URL)
	}
	cache, err := sr.OpenSessionCache(r.remoteCacheDir())
	if err != nil {
		return nil, err
	}
	if err := cache.Fetch(ctx, listed, all[i:i+1]); err != nil {
		return nil, err
	}
	return remoteSession(cache, sr, id)
}

func remoteSession(cache *gitops.SessionCache, sr *gitops.SessionRemote, id string) (*RemoteSession, error) {
	ps, err := cache.Session(id)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s%s:session.json on %s", gitops.SessionRefPrefix, id, sr.Name)
	sess, err := sessions.ParseRecord(name, id, ps.Record)
	if err != nil {
		return nil, err
	}
	return &RemoteSession{Session: sess, Commit: ps.Commit, Trail: ps.OpenTrail,
		TrailName: fmt.Sprintf("%s%s:events on %s", gitops.SessionRefPrefix, id, sr.Name)}, nil
}

// PullSession copies session id as it was last pushed into the local sessions folder (replacing
// a local one only with replace).
func (r *Runner) PullSession(ctx context.Context, id string, req RemoteRequest, replace bool) (*RemoteSession, error) {
	rs, err := r.LookupRemote(ctx, id, req)
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

// remoteCacheDir is where sessions read from remotes are kept (see gitops.SessionCache).
func (r *Runner) remoteCacheDir() string { return filepath.Join(r.AutoagentHome, "remote-sessions") }

// pushAtEnd pushes an ended session when the configuration says "sessions": {"push": true}. A
// push that fails is a warning: the session has ended, and is kept here to push later.
func (r *Runner) pushAtEnd(ctx context.Context, workspace string, sess *sessions.Session) {
	env, err := r.LoadEnv(workspace, "")
	if err != nil {
		return
	}
	cfg, err := r.LoadConfig(env)
	if err != nil {
		return // the events just fired with it; nothing new to say
	}
	sc, err := sessionsConfig(cfg)
	if err != nil {
		r.warn("%v", err)
		return
	}
	if !sc.Push {
		return
	}
	sr, err := r.sessionRemote(RemoteRequest{Remote: sc.Remote, Workspace: env.Workspace}, "")
	if err == nil {
		_, err = r.pushSession(ctx, sr, sess.ID)
	}
	if err != nil {
		r.warn("sessions.push: %v; the session is kept here (push it with: agent-hooks session push %s)", err, sess.ID)
	}
}
