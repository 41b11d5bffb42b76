package hooks

import (
	"context"
	"fmt"

	"github.com/autoagent/agent-hooks/hooks/process"
)

// Dialect is how a hook of a non-native format runs: what its process gets and how its exit is
// read. The native AutoAgent protocol is the Native dialect; the other seed formats implement their
// own. A dialect decides nothing about the event: the engine applies the event's blocking rules to
// the Outcome it returns.
type Dialect interface {
	// Prepare builds the process for one execution of inv.Hook.
	Prepare(inv *Invocation) (process.Process, error)
	// Interpret turns a finished process into an outcome.
	Interpret(inv *Invocation, p *process.Result) Outcome
}

// Format loads the hooks of one configuration format from a workspace.
type Format interface {
	// Name is the format's name as shown in `config show` ("iteratr", "fresher", …).
	Name() string
	// Load reads the format's files once and returns everything it configures. A returned error
	// is an I/O failure, not a configuration problem (those are diagnostics).
	Load(env LoadEnv) (Loaded, error)
}

// Loaded is what a Format configures in a workspace.
type Loaded struct {
	// Hooks are the format's hooks, with canonical events set, in run order.
	Hooks []*Hook
	// Diagnostics are warnings (a non-executable hook file) and errors (bad YAML), with file and
	// line.
	Diagnostics []Diagnostic
	// Extension is what the format does around whole events (iteratr's pending output,
	// agent-pipelines' checkpoints, …), bound to what Load read; nil when the workspace configures
	// nothing of the kind, so that the events of other workspaces pay nothing for it.
	Extension Extension
}

// LoadEnv is what configuration loading may look at.
type LoadEnv struct {
	Workspace     string              // absolute workspace directory
	UserHome      string              // the user's home directory (~)
	AutoagentHome string              // $AUTOAGENT_HOME, default ~/.autoagent
	Getenv        func(string) string // the environment
	LoopFile      string              // agent-pipelines: --loop FILE, if given
	// ExtraConfig is one more native config file (the Action's config input), loaded after the
	// project's and before the user's, with scope "extra".
	ExtraConfig string
	// ManagedConfig is the managed layer's file (AGENT_HOOKS_MANAGED_CONFIG, else the platform's
	// place for it): its rules and hooks come first, and nothing in the other layers, nor
	// AGENT_HOOKS_DISABLE or AGENT_HOOKS_SKIP, turns them off. A missing file configures nothing.
	ManagedConfig string
	// DisableUserHooks is the project's "disableUserHooks", set by Load before it asks formats:
	// a format with user-level hooks (webhooks.json, ~/.config/...) leaves them out.
	DisableUserHooks bool
	// Agent is the coding agent agent-hooks runs as the hook runner of ("claude" for
	// `agent-hooks hook claude`), "" otherwise: the format of that agent's own settings loads
	// nothing, since the agent runs those hooks itself.
	Agent string
	// AgentRuns are the other agents' settings the agent also runs itself, as
	// "name:scope,scope" ("name" alone: every scope): their formats load nothing of those
	// (Cursor runs Claude Code's hooks).
	AgentRuns []string
}

// Severity of a Diagnostic.
type Severity string

// Diagnostic severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Diagnostic is one problem found in configuration.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"`
	Col      int      `json:"col,omitempty"`
	Message  string   `json:"message"`
}

func (d Diagnostic) String() string {
	pos := d.File
	if d.Line > 0 {
		pos = fmt.Sprintf("%s:%d:%d", d.File, d.Line, max(d.Col, 1))
	}
	return fmt.Sprintf("%s: %s: %s", pos, d.Severity, d.Message)
}

// ConfigError is a configuration that cannot be used; nothing runs when one is returned.
type ConfigError struct {
	Diagnostics []Diagnostic // the errors, first one first
}

func (e *ConfigError) Error() string {
	if len(e.Diagnostics) == 0 {
		return "invalid configuration"
	}
	msg := e.Diagnostics[0].File
	d := e.Diagnostics[0]
	if d.Line > 0 {
		msg = fmt.Sprintf("%s:%d:%d", d.File, d.Line, max(d.Col, 1))
	}
	msg += ": " + d.Message
	if n := len(e.Diagnostics) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	return msg
}

// EventInfo describes an event being fired, for Extensions.
type EventInfo struct {
	Event     string  // canonical event
	Payload   Payload // the payload hooks will receive; BeforeEvent may add to it
	Workspace string
	SessionID string
	// State keeps per-session state for extensions across the processes of a session; nil when
	// the event is fired outside a session (nothing can be kept).
	State  SessionState
	Config *Config
	// Fire runs the hooks of another event with the same configuration (e.g. Checkpoint after PostIteration).
	Fire func(ctx context.Context, event string, data Payload) (*Result, error)
}

// SessionState is the per-session state of the session an event is fired in, by name: the
// sessions package keeps each name in a JSON file of its own, under a lock.
type SessionState interface {
	// Update reads the state called name into v (a pointer, left as it is when there is no state
	// yet), calls fn, and writes v back when fn reports a change; nothing is lost when processes
	// of one session update the same state at once.
	Update(name string, v any, fn func() (changed bool, err error)) error
}

// Extension takes part in firing an event as a whole: iteratr's pending output buffer,
// agent-pipelines' checkpoints, the runner's Stop-loop cap, … A format returns its own in
// Loaded (Config.Extensions); whoever fires events adds its own in Engine.Extensions, which run
// first.
type Extension interface {
	// BeforeEvent runs before the event's hooks; it may add to e.Payload.
	BeforeEvent(ctx context.Context, e *EventInfo) error
	// AfterEvent runs after the event's hooks; it may add to res.Extra and res.Warnings.
	AfterEvent(ctx context.Context, e *EventInfo, res *Result) error
}
