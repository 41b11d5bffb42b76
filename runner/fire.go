package runner

import (
	"context"
	"maps"
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// Request is one event to fire, as `agent-hooks run` and the commands built on it (session end,
// the GitHub Action) ask.
type Request struct {
	Event string        // a canonical event, an alias or a custom event of the configuration
	Data  hooks.Payload // the caller's payload (nil: empty)
	// SessionID is the session to fire in ("" attaches by the rules of Attach).
	SessionID string
	Workspace string // the --workspace flag; "" finds it
	LoopFile  string // the agent-pipelines stage file ("" for the workspace's)
	// ConfigFile is one more native config, loaded after the project's (the Action's config input).
	ConfigFile string
	// CaptureStdout keeps the hooks' stdout in the result only instead of streaming it to
	// Stdout (for a caller that prints the result as JSON).
	CaptureStdout bool

	// Agent and AgentSessionID name the coding agent whose hook fires the event ("claude",
	// "codex") and its own id of its session. The agent's own settings files are not loaded (it
	// runs them itself: hooks.LoadEnv.Agent). Unless SessionID or $AUTOAGENT_SESSION_ID name a
	// session, the event fires in the one that id maps to (created on first sight). In Stop and
	// SessionEnd of an agent's session the payload gets the session's filesModified.
	Agent          string
	AgentSessionID string
	// AgentRuns are the other agents' settings the agent runs itself (hooks.LoadEnv.AgentRuns).
	AgentRuns []string
	// ToolUseID is the agent's id of the tool call the event is about, written on every audit line.
	ToolUseID string
	// FilesModified are files the agent's tools changed (absolute, or relative to the workspace),
	// added to the session's filesModified unless the event is blocked.
	FilesModified []string
	// EndStatus, when set, ends the session with that status after the event (the agent's own
	// SessionEnd: the agent ends its session itself, and Stop already fired).
	EndStatus sessions.Status
	// CanAsk says the caller can ask a person to confirm (see hooks.Engine.CanAsk).
	CanAsk bool
	// AsksAgain says the caller fires the same event again when it is refused (see
	// hooks.Engine.AsksAgain).
	AsksAgain bool

	shipNow bool // start the telemetry shipper whatever the interval (session end)
}

// Fired is what firing decided. The caller chooses the exit code from it: Blocked, Skipped.
type Fired struct {
	// Result is the event's result (EndSession: Stop's, which decides whether the session ends).
	Result *hooks.Result
	// Streamed reports that the hooks' stdout went to Stdout live (the request did not capture it).
	Streamed bool
	// Session is the session's record: EndSession's after it ended it (or, when Stop blocked,
	// as it was); nil for Fire.
	Session *sessions.Session
	// Stop and SessionEnd are the results of EndSession's two events (SessionEnd nil when Stop blocked).
	Stop, SessionEnd *hooks.Result
}

// Blocked reports that the event was blocked.
func (o *Fired) Blocked() bool { return o.Result != nil && o.Result.Blocked }

// Skipped reports that a hook asked to skip the iteration (PreIteration).
func (o *Fired) Skipped() bool { return o.Result != nil && o.Result.Decision == hooks.DecisionSkip }

// Message is what a blocked or skipped event tells the agent: the reason (else the event and the
// decision), then the feedback.
func (o *Fired) Message() string {
	res := o.Result
	msg := res.Reason
	if msg == "" {
		msg = res.Event + " " + res.Decision
	}
	if res.Feedback != "" {
		msg += "\n" + res.Feedback
	}
	return msg
}

// ReasonStreamed reports that the block reason is exactly the stderr the blocking hook already
// printed live, so that a caller that streamed it does not print it twice.
func (o *Fired) ReasonStreamed() bool {
	res := o.Result
	if res == nil || len(res.Hooks) == 0 || res.Feedback != "" {
		return false
	}
	last := res.Hooks[len(res.Hooks)-1]
	return last.Status == hooks.StatusBlocked && strings.TrimSpace(last.Stderr) == res.Reason
}

// Fire runs an event exactly like `agent-hooks run`: it loads the configuration, attaches the
// session, runs the hooks and records the event in the session. A blocked or skipped event is an
// Fired, not an error; the error is agent-hooks' own failure (bad configuration, unknown event,
// unusable session, cancelled), returned with the result so far when there is one.
func (r *Runner) Fire(ctx context.Context, req Request) (*Fired, error) {
	env, err := r.LoadEnv(req.Workspace, req.LoopFile)
	if err != nil {
		return nil, err
	}
	env.ExtraConfig = req.ConfigFile
	env.Agent, env.AgentRuns = req.Agent, req.AgentRuns
	store := r.Store()
	cfg, err := r.loadConfig(r.registry(), env)
	if err != nil {
		return nil, err
	}
	sc, err := ReadSessionsConfig(cfg)
	if err != nil {
		return nil, err
	}
	dest, err := r.telemetryDestination(cfg)
	if err != nil {
		return nil, err
	}
	event, err := hooks.ResolveEvent(req.Event, cfg.CustomEvents)
	if err != nil {
		return nil, err
	}
	sess, err := r.attach(store, req, env.Workspace)
	if err == nil {
		sess, err = r.endIdleAttached(store, sess, req, env.Workspace, sc.idleEnd())
	}
	if err != nil {
		return nil, err
	}
	defer sess.close()
	// Held while the event runs: however long its hooks take, the session is not ended as idle
	// or pruned. Between the attach above and the hold, a `session list` could still end a
	// session that had been idle past its limit until this very event: its status then reads
	// interrupted while this event runs, and the agent's next event takes it back (OpenAgent). A
	// check after the hold would cost every tool call a read of the record for that moment.
	if release, err := store.Hold(sess.id); err != nil {
		r.Warn("%v", err)
	} else {
		defer release()
	}
	data := req.Data
	if data == nil {
		data = hooks.Payload{}
	}
	if name := sess.record.Name; name != "" {
		if _, set := data[hooks.KeySessionName]; !set {
			data = maps.Clone(data)
			data[hooks.KeySessionName] = name
		}
	}
	if files, ok := sess.filesModified(event); ok {
		if _, set := data["filesModified"]; !set {
			data = maps.Clone(data)
			data["filesModified"] = files
		}
	}
	eng := &hooks.Engine{
		Config: cfg, Workspace: env.Workspace, SessionID: sess.id,
		Getenv: r.Getenv, Environ: r.Environ, Stderr: r.Stderr, Messages: r.Stderr,
		Observer: sess, State: store.SessionState(sess.id), Now: r.Now, CanAsk: req.CanAsk,
		AsksAgain: req.AsksAgain, Progress: r.Progress,
	}
	// The Stop cap runs before the formats' extensions, so that they see a capped Stop as allowed.
	eng.Extensions = []hooks.Extension{&stopLimit{store: store, warn: r.Warn}}
	if !req.CaptureStdout {
		eng.Stdout = r.Stdout
	}
	rec := r.recorder(cfg, dest, sess.id)
	if rec != nil {
		eng.Tracer = rec
	}
	out := &Fired{Streamed: !req.CaptureStdout}
	// The name the caller used, not the canonical one: Engine.Fire records an alias (on-run-fail)
	// in the payload for the formats that tell aliases of one event apart.
	out.Result, err = eng.Fire(ctx, req.Event, data)
	r.ship(rec, req.shipNow)
	if err != nil {
		return out, err
	}
	if err := sess.AfterEvent(event, data, out.Result, r.after(req, env.Workspace)); err != nil {
		return out, err
	}
	return out, nil
}

// Asked reports that a hook asked for a person's confirmation (only with Request.CanAsk).
func (o *Fired) Asked() bool { return o.Result != nil && o.Result.Decision == hooks.DecisionAsk }

// after is what the request changes in the session after its event: the files the agent
// changed, relative to the workspace (a file outside it is no file of the workspace's to
// commit), and the end of the session.
func (r *Runner) after(req Request, workspace string) func(x *sessions.Session, blocked bool) {
	var files []string
	for _, f := range req.FilesModified {
		if rel, ok := relativeTo(workspace, f); ok {
			files = append(files, rel)
		}
	}
	if len(files) == 0 && req.EndStatus == "" {
		return nil
	}
	return func(x *sessions.Session, blocked bool) {
		if !blocked {
			x.AddFiles(files...)
		}
		if req.EndStatus != "" {
			x.End(req.EndStatus, r.now())
			x.StopBlockCount, x.SubagentStopBlockCount = 0, 0
		}
	}
}

// relativeTo is path relative to workspace, with forward slashes; false when it is outside.
func relativeTo(workspace, path string) (string, bool) {
	if path == "" {
		return "", false
	}
	p := filepath.FromSlash(path)
	if !filepath.IsAbs(p) {
		p = filepath.Join(workspace, p)
	}
	rel, err := filepath.Rel(workspace, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		if real, err := filepath.EvalSymlinks(workspace); err == nil && real != workspace {
			return relativeTo(real, path)
		}
		return "", false
	}
	return filepath.ToSlash(rel), true
}
