package runner

import (
	"context"
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
	// Agent is the coding agent whose hook fires the event (`agent-hooks hook claude`:
	// "claude"): its own settings files are not loaded, the agent runs them (hooks.LoadEnv.Agent).
	Agent string
}

// Outcome is what firing decided. The caller chooses the exit code from it: Blocked, Skipped.
type Outcome struct {
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
func (o *Outcome) Blocked() bool { return o.Result != nil && o.Result.Blocked }

// Skipped reports that a hook asked to skip the iteration (PreIteration).
func (o *Outcome) Skipped() bool { return o.Result != nil && o.Result.Decision == hooks.DecisionSkip }

// Message is what a blocked or skipped event tells the agent: the reason (else the event and the
// decision), then the feedback.
func (o *Outcome) Message() string {
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
func (o *Outcome) ReasonStreamed() bool {
	res := o.Result
	if res == nil || len(res.Hooks) == 0 || res.Feedback != "" {
		return false
	}
	last := res.Hooks[len(res.Hooks)-1]
	return last.Status == hooks.StatusBlocked && strings.TrimSpace(last.Stderr) == res.Reason
}

// Fire runs an event exactly like `agent-hooks run`: it loads the configuration, attaches the
// session, runs the hooks and records the event in the session. A blocked or skipped event is an
// Outcome, not an error; the error is agent-hooks' own failure (bad configuration, unknown event,
// unusable session, cancelled), returned with the result so far when there is one.
func (r *Runner) Fire(ctx context.Context, req Request) (*Outcome, error) {
	env, err := r.LoadEnv(req.Workspace, req.LoopFile)
	if err != nil {
		return nil, err
	}
	env.ExtraConfig = req.ConfigFile
	env.Agent = req.Agent
	store := r.Store()
	cfg, err := r.loadConfig(r.registry(), env)
	if err != nil {
		return nil, err
	}
	event, err := hooks.ResolveEvent(req.Event, cfg.CustomEvents)
	if err != nil {
		return nil, err
	}
	sess, err := r.attach(store, req.SessionID, env.Workspace)
	if err != nil {
		return nil, err
	}
	data := req.Data
	if data == nil {
		data = hooks.Payload{}
	}
	eng := &hooks.Engine{
		Config: cfg, Workspace: env.Workspace, SessionID: sess.id,
		Getenv: r.Getenv, Environ: r.Environ, Stderr: r.Stderr, Messages: r.Stderr,
		Observer: sess, State: store.SessionState(sess.id), Now: r.Now,
	}
	// The Stop cap runs before the formats' extensions, so that they see a capped Stop as allowed.
	eng.Extensions = []hooks.Extension{&stopLimit{store: store, warn: r.warn}}
	if !req.CaptureStdout {
		eng.Stdout = r.Stdout
	}
	out := &Outcome{Streamed: !req.CaptureStdout}
	// The name the caller used, not the canonical one: Engine.Fire records an alias (on-run-fail)
	// in the payload for the formats that tell aliases of one event apart.
	out.Result, err = eng.Fire(ctx, req.Event, data)
	if err != nil {
		return out, err
	}
	if err := sess.AfterEvent(event, data, out.Result); err != nil {
		return out, err
	}
	return out, nil
}
