// Package agents makes agent-hooks the hook runner of coding agents (Claude Code, Codex, …):
// `agent-hooks hook <agent>` is the one command a user puts in the agent's settings for every hook
// event. Handle reads the agent's JSON input from stdin (with a deadline and a size cap), fires
// the canonical event it maps to through runner (in the agent-hooks session of the
// agent's own session, with the agent's fields in the payload), fires the repository's git gates
// for the git the agent runs itself, records the files its edit tools change, and answers in the
// agent's own protocol: one JSON document on stdout, or nothing, and exit 0.
//
// It fails closed inside the agent's budget: the agents treat a crash, exit 1 or a timeout as
// "proceed", so on an event that can be blocked a configuration error, an internal error or a
// gate that cannot decide becomes an explicit refusal with a reason, delivered before the
// agent's own timeout. Only when even that cannot be written does it exit 2 with the reason on
// stderr, which both hosts read as a block.
//
// What differs between agents is an Agent: one descriptor that owns the agent's three roles — its
// hook protocol (how its event names map onto ours, how long it waits, how it names its tools,
// how it wants to be answered), its hook settings as agent-hooks installs into them
// (hostsettings.Spec), and its own hook files read as a configuration format. Each agent lives in
// its own package (agents/claude, agents/codex, …); adding one is that package and one line in
// agents/all, the one list of agents.
package agents

import (
	"context"
	"io"
	"time"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/hooks"
)

// Agent is one coding agent: its protocol, its settings and its own hook files.
type Agent interface {
	Protocol
	// Title is the product's name ("Claude Code").
	Title() string
	// Settings are the agent's hook settings: where they are, install, uninstall and doctor.
	Settings() *hostsettings.Spec
	// Format is the agent's own hook files read as a configuration format, so that its hooks
	// run under `agent-hooks run` too.
	Format() hooks.Format
	// Tools describes the agent's tools for the normalized call (toolcall): each tool's kind and
	// the input keys that name its files.
	Tools() map[string]ToolShape
}

// Protocol is one agent's hook protocol.
type Protocol interface {
	// Name is the agent's name on the command line and in session records ("claude").
	Name() string
	// Event maps the agent's hook_event_name to a canonical event. ok is false for an event of
	// the agent's that has none: it is fired under its own name, for hooks of a declared custom
	// event, and its answer cannot block.
	Event(hostEvent string) (canonical string, ok bool)
	// Budget is how long the agent waits for the hook of hostEvent before it kills it and
	// proceeds. timeout is the --timeout of `agent-hooks hook` (the agent's own "timeout" of the
	// hook entry, which install writes into both), 0 when none was given; getenv is the
	// environment the agent ran the hook with.
	Budget(hostEvent string, timeout time.Duration, getenv func(string) string) time.Duration
	// ProjectDirEnv is the environment variable that names the project when the input has no
	// cwd ("" when the agent sets none).
	ProjectDirEnv() string
	// ToolAliases are the other names the agent matches a tool by in its own matchers (Codex's
	// apply_patch also answers to Write and Edit), so that "tools" matches the same.
	ToolAliases(tool string) []string
	// ShellCommand is the command line of a tool call that runs a shell command, "" for any
	// other tool.
	ShellCommand(tool string, input map[string]any) string
	// EditedFiles are the files a tool call changes, as the agent names them (absolute, or
	// relative to cwd), to be recorded as the session's filesModified after canonical event
	// (a tool's PostToolUse; a PreToolUse when the agent fires nothing after the call).
	EditedFiles(event, tool string, input map[string]any) []string
	// CanAsk reports whether the agent can ask its user to confirm a tool call (Claude Code's
	// permissionDecision "ask"); a hook's ask is a refusal where it cannot.
	CanAsk() bool
	// Answer is the agent's JSON document for a verdict, nil when there is nothing to say. It
	// must hold only what the agent accepts for v.HostEvent: Codex drops an answer with one
	// unknown key, Claude Code one whose hookEventName names another event.
	Answer(v *Verdict) ([]byte, error)
}

// Refuser is implemented by a Host that reads no exit code as a block (Cline proceeds on every
// exit code): Refusal is its JSON refusal of whatever event, for when no verdict can be
// written (input it cannot read, an internal error). It must be safe on an event that cannot
// be blocked.
type Refuser interface {
	Refusal(reason string) []byte
}

// The decisions of a verdict on a blockable event.
const (
	Allow = "allow" // a hook granted it explicitly: the agent skips its own permission prompt
	Ask   = "ask"   // a hook wants the user to confirm
	Deny  = "deny"  // blocked: the tool does not run, the prompt is dropped, the agent does not stop
)

// Verdict is what the hooks of one agent event decided, for Host.Answer.
type Verdict struct {
	HostEvent string // the agent's event name, as it must be echoed (hookEventName)
	Event     string // the canonical event ("" when the agent's event has none)
	Blockable bool   // the event can be blocked (hooks.CanBlock of a mapped event)
	// Decision is "", Allow, Ask or Deny. "" means the hooks merely passed: no decision is
	// printed, so that the agent applies its own permission rules (Claude Code's "allow" would
	// skip them).
	Decision string
	Reason   string // why: the reasons of the decision's hooks, joined
	// Block is the reason of hooks that blocked an event that already happened (PostToolUse):
	// the agent tells the model, where its protocol has a way to.
	Block string
	// Context is what the hooks want the model to know (their feedback; plain output on
	// SessionStart and UserPromptSubmit), in order.
	Context []string
	// Warnings are agent-hooks' warnings for the user: hooks that failed without blocking, a
	// capped Stop loop, a refusal's cause.
	Warnings []string
	// UpdatedInput is the tool input a hook rewrote the call to (PreToolUse): the agent runs the
	// call with it (Rewriter), or the call is refused.
	UpdatedInput map[string]any
}

// TimeoutOr is a hook's budget for an agent whose hook entry's timeout is the whole budget:
// timeout (--timeout), or def, the agent's default, when none was given.
func TimeoutOr(timeout, def time.Duration) time.Duration {
	if timeout == 0 {
		return def
	}
	return timeout
}

// Truster is an Agent that runs agent-hooks' hooks only once it trusts them (and their project),
// and records that trust itself (Codex's config.toml): install --trust asks it to.
type Truster interface {
	// TrustProgram is the agent's program that records the trust ("codex"): install and doctor
	// find it on PATH, or take it from their --<program> flag.
	TrustProgram() string
	// Trust makes the agent trust what install wrote in file, asking bin (run with procEnv), and
	// says so on w; with trust false it only says what the agent still needs.
	Trust(ctx context.Context, w io.Writer, env hostsettings.Env, file hostsettings.File, bin string, procEnv []string, trust bool) error
}

// PlainContexter is an Agent whose own hooks' plain output (not JSON) reaches the model on other
// events than SessionStart and UserPromptSubmit, where Claude Code and Codex take it: agent-hooks
// does as the agent does with its own hooks.
type PlainContexter interface {
	PlainContext(event string) bool
}

// plainContext reports whether a hook's plain output is context for the model on event.
func plainContext(a Agent, event string) bool {
	if p, ok := a.(PlainContexter); ok {
		return p.PlainContext(event)
	}
	return event == hooks.SessionStart || event == hooks.UserPromptSubmit
}

// Rewriter is an Agent that can run a tool call with the input a hook rewrote it to: its Answer
// says so for a verdict with UpdatedInput. An agent that cannot has such a call refused.
type Rewriter interface {
	Rewrites() bool
}
