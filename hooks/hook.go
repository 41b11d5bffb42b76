// Package hooks owns the hook model of agent-hooks: events and their aliases, loading and
// validating configuration (the native AutoAgent format and, through Format loaders, the other seed
// formats), template expansion, running hook processes and built-in hook types, and turning what
// they answer into one decision for the event.
//
// hooks knows nothing of git, GitHub, sessions or notifications. Built-in hook types are registered
// into a Registry from outside (see Type), other configuration formats through Format, and the
// audit trail through Observer, so each of those lives in its own package.
package hooks

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"regexp"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/internal/progress"
)

// Payload is the event data a hook receives: eventName, sessionId, workspace, timestamp and
// whatever the caller passed.
type Payload map[string]any

// KeySessionName is the payload key of the session's human name (`session start --name`), which
// the runner sets when the session has one and the caller did not.
const KeySessionName = "sessionName"

// KeyVars is the payload key under which a hook hands values on to the hooks after it in the same
// event, by variable name: an approval's answer (its responseVar, agent-pipelines' response_var),
// a spawned pipeline's CHILD_OUTPUT. It is an object of strings; the agent-pipelines format's
// hooks get the names their stage file declares as environment variables.
const KeyVars = "vars"

// HandOn is the Outcome.Set of a hook that hands value on under name (in the payload's KeyVars,
// keeping the values earlier hooks handed on).
func HandOn(p Payload, name, value string) Payload {
	vars := map[string]any{}
	if old, ok := p[KeyVars].(map[string]any); ok {
		maps.Copy(vars, old)
	}
	vars[name] = value
	return Payload{KeyVars: vars}
}

// Subject is a copy of the payload without the values the engine sets anew on every firing
// (sessionId, workspace, timestamp): what the event is about rather than when and where it
// fired, e.g. to tell whether two firings ask for the same decision.
func (p Payload) Subject() Payload {
	out := make(Payload, len(p))
	for k, v := range p {
		switch k {
		case "sessionId", "workspace", "timestamp":
		default:
			out[k] = v
		}
	}
	return out
}

// Status is what became of one hook execution.
type Status string

// The statuses of a hook execution, as they appear in --json output and the audit trail.
const (
	StatusOK      Status = "ok"
	StatusBlocked Status = "blocked"
	StatusError   Status = "error"
	StatusTimeout Status = "timeout"
	StatusSkipped Status = "skipped"
)

// Decisions of an event (and of a single hook).
const (
	DecisionApprove = "approve"
	DecisionBlock   = "block"
	DecisionSkip    = "skip"
	// DecisionAsk is a hook asking that a person confirm (Claude Code's permissionDecision "ask"):
	// the event's decision when the Engine can ask (CanAsk), else a block.
	DecisionAsk = "ask"
)

// Source says where a hook was configured.
type Source struct {
	Format string `json:"format"`         // "autoagent", "iteratr", "agent-pipelines", "babysitter", "fresher", "claude", "codex"
	Scope  string `json:"scope"`          // "project", "user", "plugin", "global"
	File   string `json:"file"`           // the file that configures it (or the hook file itself)
	Line   int    `json:"line,omitempty"` // 1-based position of the hook in File, when known
	Col    int    `json:"col,omitempty"`
}

// Matcher restricts a hook to payloads whose Field (a dotted path) matches Regex.
type Matcher struct {
	Field string `json:"field"`
	Regex string `json:"regex"`
}

// Hook is one configured hook, whichever format it came from.
type Hook struct {
	Name     string            // display name; defaults to the type or the command
	Type     string            // "command" or a registered built-in type
	Event    string            // canonical event it runs on
	Command  string            // for command hooks: the shell command template
	Timeout  time.Duration     // 0 means DefaultTimeout
	Blocking bool              // fail-closed: an error or timeout on a blockable event blocks it
	Parallel bool              // adjacent parallel hooks run concurrently
	Enabled  bool              // false: recorded as skipped
	Env      map[string]string // extra environment
	Matcher  *Matcher
	// Tools restricts the hook to the tool calls whose tool it names (the "tools" shorthand, in
	// Claude Code's matcher syntax); nil runs it for every payload.
	Tools  *ToolMatcher
	Source Source
	// Options is the hook's own JSON object as written, for built-in types and `config show`.
	Options json.RawMessage
	// Dialect runs command hooks of a non-native format; nil means the native AutoAgent protocol.
	Dialect Dialect

	runner Task // set for built-in types when the config is loaded

	matcherOnce sync.Once // compiles Matcher.Regex once, on first use
	matcherRE   *regexp.Regexp
}

// matcherRegexp is the compiled Matcher.Regex (nil if it does not compile; the loader has
// reported that already).
func (h *Hook) matcherRegexp() *regexp.Regexp {
	h.matcherOnce.Do(func() { h.matcherRE, _ = regexp.Compile(h.Matcher.Regex) })
	return h.matcherRE
}

// Type is a built-in hook type (git-commit, approval, webhook, …). Register one with
// Registry.Register; the name is then valid in every config.
type Type interface {
	// Configure validates the hook's type-specific options: the hook's JSON object with the common
	// fields (type, name, timeout, blocking, parallel, enabled, env, matcher) removed. Decode it
	// strictly (DisallowUnknownFields) so that a misspelt option is an error, not a silent default.
	// The returned error should name the offending field; the loader adds file and line:column.
	Configure(h *Hook, options json.RawMessage) (Task, error)
}

// Task executes one configured built-in hook.
type Task interface {
	Run(ctx context.Context, inv *Invocation) Outcome
}

// OutcomeReporter is a Task that reports an event's outcome (a pull-request review, a sticky
// comment, …). The engine runs reporters after the event's other hooks, in config order, even
// when one of those blocked, with Invocation.Result holding the outcome so far; the usual rules
// then apply to the reporter's own outcome.
type OutcomeReporter interface {
	Task
	ReportsOutcome()
}

// TypeFunc adapts a function to Type.
type TypeFunc func(h *Hook, options json.RawMessage) (Task, error)

// Configure implements Type.
func (f TypeFunc) Configure(h *Hook, options json.RawMessage) (Task, error) { return f(h, options) }

// TaskFunc adapts a function to Task.
type TaskFunc func(ctx context.Context, inv *Invocation) Outcome

// Run implements Task.
func (f TaskFunc) Run(ctx context.Context, inv *Invocation) Outcome { return f(ctx, inv) }

// Invocation is everything one hook execution may use. Built-ins must not read process-wide state
// (environment, working directory, stdout) other than through it.
type Invocation struct {
	Hook      *Hook
	Event     string  // canonical event being fired
	Payload   Payload // the full payload; treat as read-only (use Outcome.Set to add values)
	Workspace string
	SessionID string
	Getenv    func(string) string
	Environ   []string  // the base environment handed to processes
	Stdout    io.Writer // live output shown to the user (progress lines of built-ins)
	Stderr    io.Writer
	// Progress shows a long wait's status (progress.Start) on the terminal of a person who
	// watches; nil when nobody does (not a terminal, or a program reads Stderr: an agent), and
	// then nothing more than Stderr's lines may be written.
	Progress progress.Reporter
	// Result is the event's outcome so far; set only for an OutcomeReporter.
	Result *Result
	// Fire runs the hooks of another event with the same configuration, e.g. PreGitCommit from
	// git-commit. data is merged over the current payload.
	Fire func(ctx context.Context, event string, data Payload) (*Result, error)
	// AsksAgain says the caller fires the same event again when this firing is refused (see
	// Engine.AsksAgain): a wait for a person that ends undecided may leave its question open
	// for that next firing, and refuse this one as pending.
	AsksAgain bool

	traceEnv []string // the Tracer's variables for the hook's process (TRACEPARENT)
}

// Outcome is what a hook execution produced, before the engine applies the event's blocking rules.
type Outcome struct {
	Status   Status // ok, blocked, error or timeout (the engine sets skipped)
	Decision string // "", approve, block or skip
	Reason   string // why it blocked or failed
	Feedback string
	ExitCode int
	Stdout   string
	Stderr   string
	// BlockedBy names the nested event whose block this outcome carries (git-commit blocked by
	// PreGitCommit). A block from a blockable nested event blocks the outer event too, even one
	// that cannot block by itself: the gate the user configured held, and the agent must know.
	BlockedBy string
	// Halt stops the event's remaining hooks even on an event that cannot be blocked (where the
	// block itself is only a warning): the native protocol's JSON block, so that a check failing
	// on PostExecutionEnd prevents the git-commit configured after it.
	Halt bool
	// Set is merged into the payload of the hooks that run after this one (e.g. commitSha).
	Set Payload
	// UpdatedInput is the tool input the hook wants the call run with instead (PreToolUse,
	// PermissionRequest): the hooks after it see it as the call's input, and the agent is asked
	// to run the call with it (or refuses the call, where the agent cannot rewrite one).
	UpdatedInput map[string]any
	// Details are type-specific result fields (decider, url, changes, …), shown in --json output
	// and the audit trail.
	Details map[string]any

	unstartable bool // the engine could not start the hook because of its input (process.InputError)
}

// HookResult is one hook's line in the result of an event.
type HookResult struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Source     string         `json:"source"` // scope: project, user, …
	Format     string         `json:"format"`
	File       string         `json:"file,omitempty"`
	ExitCode   int            `json:"exitCode"`
	DurationMs int64          `json:"durationMs"`
	Status     Status         `json:"status"`
	Decision   string         `json:"decision,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Feedback   string         `json:"feedback,omitempty"`
	BlockedBy  string         `json:"blockedBy,omitempty"`
	Stdout     string         `json:"stdout"`
	Stderr     string         `json:"stderr"`
	Details    map[string]any `json:"details,omitempty"`
	// UpdatedInput is the tool input the hook rewrote the call to (see Outcome.UpdatedInput).
	UpdatedInput map[string]any `json:"updatedInput,omitempty"`
}

// Result is the outcome of firing one event.
type Result struct {
	Event     string       `json:"event"`
	Decision  string       `json:"decision"` // approve, block or skip
	Blocked   bool         `json:"blocked"`
	Reason    string       `json:"reason"`
	Feedback  string       `json:"feedback"`
	SessionID string       `json:"sessionId"`
	Hooks     []HookResult `json:"hooks"`
	Warnings  []string     `json:"warnings,omitempty"`
	// Set collects the values hooks added to the payload (commitSha, …).
	Set Payload `json:"outputs,omitempty"`
	// UpdatedInput is the tool input the event's hooks rewrote the call to, the last rewrite's
	// (nil: the call runs as the agent asked).
	UpdatedInput map[string]any `json:"updatedInput,omitempty"`
	// Extra holds format-specific aggregate fields (iteratr's agentOutput, babysitter's
	// executedHooks); they are written at the top level of the --json object.
	Extra map[string]any `json:"-"`
}

// Observer is told about every hook execution, skipped ones included (the audit trail).
type Observer interface {
	HookDone(event string, h *Hook, r *HookResult)
}

// Tracer follows events and hooks as they run, for telemetry: StartEvent when an event (nested
// ones included) starts, with end called with its result; StartHook when a hook starts (skipped
// ones included), returning the environment its process gets (TRACEPARENT, so that a hook that
// traces nests under it), with end called with its result. The contexts it returns carry what it
// needs to nest spans; it must be safe for parallel hooks.
type Tracer interface {
	StartEvent(ctx context.Context, event string, payload Payload) (context.Context, func(*Result, error))
	StartHook(ctx context.Context, event string, h *Hook) (context.Context, []string, func(*HookResult))
}

// MarshalJSON writes the result with its format-specific Extra fields at the top level.
func (r *Result) MarshalJSON() ([]byte, error) {
	type plain Result
	base, err := json.Marshal((*plain)(r))
	if err != nil || len(r.Extra) == 0 {
		return base, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(base, &fields); err != nil {
		return nil, err
	}
	for k, v := range r.Extra {
		if _, taken := fields[k]; taken {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		fields[k] = raw
	}
	return json.Marshal(fields)
}
