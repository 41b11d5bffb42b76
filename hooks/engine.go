package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/internal/progress"

	"github.com/sourcegraph/conc"

	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// Engine fires events: it runs the configured hooks of an event in order and decides.
type Engine struct {
	Config *Config
	// Extensions are the caller's own (the runner's Stop-loop cap): they run before the
	// configuration's (Config.Extensions), so that those see what they decided.
	Extensions []Extension
	Workspace  string
	SessionID  string
	Getenv     func(string) string
	Environ    []string
	// Stdout and Stderr receive hook output live (nil: captured only, as with --json).
	Stdout io.Writer
	Stderr io.Writer
	// Messages receives agent-hooks' own warnings (skipped gates, ignored blocks); nil: discarded.
	Messages io.Writer
	// Progress is where built-ins that wait (an approval, a push) show how the wait goes: set
	// only when a person watches a terminal; nil shows nothing (Invocation.Progress).
	Progress progress.Reporter
	Observer Observer
	State    SessionState // handed to extensions as EventInfo.State; nil keeps no state
	Now      func() time.Time
	// CanAsk says the caller can ask a person to confirm (an agent host with a permission
	// prompt): a hook's ask is then the event's decision, not a block (see DecisionAsk).
	CanAsk bool
	// Tracer is told when each event and hook starts and ends (telemetry spans); nil traces
	// nothing.
	Tracer Tracer
	// AsksAgain says the caller fires the same event again when this one is refused: an agent
	// whose tool call is refused tries the call again, and its deadline (the agent's timeout)
	// is often shorter than a person takes to answer. Built-ins see it as Invocation.AsksAgain.
	AsksAgain bool
	// Starter starts the processes of command hooks; nil is a process.Local over Environ.
	Starter process.Starter

	starter process.Starter
	once    sync.Once
}

// maxNesting bounds events fired from hooks (git-commit firing PreGitCommit, …).
const maxNesting = 8

func (e *Engine) init() {
	e.once.Do(func() {
		if e.Now == nil {
			e.Now = time.Now
		}
		if e.Getenv == nil {
			e.Getenv = func(string) string { return "" }
		}
		e.starter = e.Starter
		if e.starter == nil {
			e.starter = &process.Local{Environ: e.Environ}
		}
		if e.Config == nil {
			e.Config = &Config{Hooks: map[string][]*Hook{}}
		}
	})
}

// Fire runs the hooks of event (a name or alias) with data as the payload. The error is non-nil
// only when agent-hooks itself failed (unknown event, cancelled); a block is a Result.
func (e *Engine) Fire(ctx context.Context, event string, data Payload) (*Result, error) {
	e.init()
	canonical, err := ResolveEvent(event, e.Config.CustomEvents)
	if err != nil {
		return nil, err
	}
	if canonical != event {
		// the name the caller used (an alias such as on-run-fail) stays visible to hooks
		withAlias := make(Payload, len(data)+1)
		maps.Copy(withAlias, data)
		withAlias["eventAlias"] = event
		data = withAlias
	}
	return e.fire(ctx, canonical, data, 0)
}

func (e *Engine) fire(ctx context.Context, event string, data Payload, depth int) (*Result, error) {
	if e.Tracer == nil {
		return e.fireEvent(ctx, event, data, depth)
	}
	ctx, end := e.Tracer.StartEvent(ctx, event, data)
	res, err := e.fireEvent(ctx, event, data, depth)
	end(res, err)
	return res, err
}

func (e *Engine) fireEvent(ctx context.Context, event string, data Payload, depth int) (*Result, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("event %s: hooks fire events %d levels deep; is a hook firing its own event?", event, depth)
	}
	payload := make(Payload, len(data)+4)
	maps.Copy(payload, data)
	payload["eventName"] = event
	payload["sessionId"] = e.SessionID
	payload["workspace"] = e.Workspace
	payload["timestamp"] = e.Now().UnixMilli()

	res := &Result{Event: event, Decision: DecisionApprove, SessionID: e.SessionID, Hooks: []HookResult{}}
	info := &EventInfo{
		Event: event, Payload: payload, Workspace: e.Workspace, SessionID: e.SessionID,
		State: e.State, Config: e.Config,
		Fire: func(ctx context.Context, ev string, d Payload) (*Result, error) {
			c, err := ResolveEvent(ev, e.Config.CustomEvents)
			if err != nil {
				return nil, err
			}
			return e.fire(ctx, c, d, depth+1)
		},
	}
	exts := append(slices.Clip(e.Extensions), e.Config.Extensions...)
	for _, x := range exts {
		if err := x.BeforeEvent(ctx, info); err != nil {
			return nil, err
		}
	}

	var hooks, reporters []*Hook
	for _, h := range e.Config.Hooks[event] {
		if _, ok := h.runner.(OutcomeReporter); ok {
			reporters = append(reporters, h)
		} else {
			hooks = append(hooks, h)
		}
	}
	for i := 0; i < len(hooks); {
		if d, ok := hooks[i].runner.(Decider); ok {
			h := hooks[i]
			i++
			hr, decided := e.decide(ctx, event, payload, h, d)
			if !decided {
				continue
			}
			res.Hooks = append(res.Hooks, hr.HookResult)
			if e.apply(event, h, &hr, res) {
				break
			}
			continue
		}
		group := hooks[i : i+1]
		if hooks[i].Parallel {
			j := i + 1
			for j < len(hooks) && hooks[j].Parallel {
				j++
			}
			group = hooks[i:j]
		}
		i += len(group)
		results := e.runGroup(ctx, event, payload, group, depth)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		stop, halted := false, ""
		for k, hr := range results {
			h := group[k]
			res.Hooks = append(res.Hooks, hr.HookResult)
			e.rewrite(event, h, hr.UpdatedInput, payload, res)
			for key, v := range hr.set {
				payload[key] = v
				if res.Set == nil {
					res.Set = Payload{}
				}
				res.Set[key] = v
			}
			if e.apply(event, h, &hr, res) {
				stop = true
			}
			if hr.halt && hr.Status == StatusBlocked && !res.Blocked && halted == "" {
				stop, halted = true, h.Name
			}
		}
		if stop {
			if halted != "" && i < len(hooks) {
				names := make([]string, 0, len(hooks)-i)
				for _, h := range hooks[i:] {
					names = append(names, h.Name)
				}
				e.warn(res, "after the block of %s, the remaining hooks of %s did not run: %s", halted, event, strings.Join(names, ", "))
			}
			break
		}
	}
	for _, h := range reporters {
		r := e.runOne(ctx, event, payload, h, depth, e.Stdout, e.Stderr, res)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Hooks = append(res.Hooks, r.HookResult)
		if !res.Blocked {
			e.apply(event, h, &r, res)
		}
	}
	for _, x := range exts {
		if err := x.AfterEvent(ctx, info, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// apply folds one hook's outcome into the event result by the event's rules and reports whether
// the remaining hooks must not run.
func (e *Engine) apply(event string, h *Hook, gr *groupResult, res *Result) bool {
	hr := &gr.HookResult
	blockable := CanBlock(event)
	switch {
	case hr.Status == StatusOK && hr.Decision == DecisionAsk:
		if hr.Feedback != "" && res.Feedback == "" {
			res.Feedback = hr.Feedback
		}
		return e.ask(event, h, hr, res)
	case hr.Status == StatusSkipped || hr.Status == StatusOK && hr.Decision != DecisionSkip:
		if hr.Feedback != "" && res.Feedback == "" {
			res.Feedback = hr.Feedback
		}
		return false
	case hr.Decision == DecisionSkip:
		if event == PreIteration {
			res.Decision, res.Reason, res.Feedback = DecisionSkip, hr.Reason, hr.Feedback
			return true
		}
		e.warn(res, "%s asked to skip %s; only PreIteration can be skipped", h.Name, event)
		return false
	case hr.Status == StatusBlocked:
		if blockable || hr.BlockedBy != "" && CanBlock(hr.BlockedBy) {
			res.Decision, res.Blocked, res.Reason, res.Feedback = DecisionBlock, true, hr.Reason, hr.Feedback
			return true
		}
		e.warn(res, "%s", UnblockableWarning(h.Name, event, hr.Reason))
		return false
	case gr.unstartable && blockable:
		// whether or not the hook is blocking: the payload must not walk around a gate
		res.Decision, res.Blocked = DecisionBlock, true
		res.Reason = fmt.Sprintf("hook %s %s", h.Name, hr.Reason)
		return true
	default: // error or timeout
		if h.Blocking && blockable {
			res.Decision, res.Blocked = DecisionBlock, true
			res.Reason = fmt.Sprintf("blocking hook %s failed: %s", h.Name, hr.Reason)
			return true
		}
		e.warn(res, "hook %s failed: %s", h.Name, hr.Reason)
		return false
	}
}

// ask applies a hook asking that a person confirm the event. With CanAsk the event's decision
// becomes ask (a block, before or after, still wins), the reasons joined, and the remaining hooks
// run; without it there is no one to ask, and the ask blocks. It reports whether the remaining
// hooks must not run.
func (e *Engine) ask(event string, h *Hook, hr *HookResult, res *Result) bool {
	if !CanBlock(event) {
		e.warn(res, "%s asked to confirm %s, which cannot be blocked: %s", h.Name, event, hr.Reason)
		return false
	}
	reason := hr.Reason
	if reason == "" {
		reason = h.Name + " asks for confirmation"
	}
	if !e.CanAsk {
		res.Decision, res.Blocked = DecisionBlock, true
		res.Reason = reason + " (a hook asked for confirmation, and there is no one to ask)"
		return true
	}
	if res.Decision == DecisionAsk && res.Reason != "" {
		reason = res.Reason + "\n" + reason
	}
	res.Decision, res.Reason = DecisionAsk, reason
	return false
}

// rewrite takes a hook's rewritten tool input: on an event about a tool call that has not run yet
// (PreToolUse, PermissionRequest) it is the result's, and the input the hooks after it see; on any
// other event it is a warning.
func (e *Engine) rewrite(event string, h *Hook, input map[string]any, payload Payload, res *Result) {
	if input == nil {
		return
	}
	if event != PreToolUse && event != PermissionRequest {
		e.warn(res, "%s rewrote the tool input on %s, where the call has already run: ignored", h.Name, event)
		return
	}
	res.UpdatedInput = input
	payload["toolInput"] = input
	if _, ok := payload["tool_input"]; ok {
		payload["tool_input"] = input
	}
}

// UnblockableWarning is the warning of a hook (by name) that asked to block an event that cannot
// be blocked; an agent adapter whose agent can tell the model (Claude Code's PostToolUse) does
// that instead of warning.
func UnblockableWarning(hook, event, reason string) string {
	return fmt.Sprintf("%s asked to block %s, which cannot be blocked: %s", hook, event, reason)
}

func (e *Engine) warn(res *Result, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	res.Warnings = append(res.Warnings, msg)
	if e.Messages != nil {
		fmt.Fprintf(e.Messages, "agent-hooks: warning: %s\n", msg)
	}
}

type groupResult struct {
	HookResult
	set         Payload
	unstartable bool // the hook could not start because of its input (process.InputError)
	halt        bool // Outcome.Halt
}

// runGroup runs one hook, or a run of adjacent parallel hooks concurrently; output of parallel
// hooks is buffered and printed in config order.
func (e *Engine) runGroup(ctx context.Context, event string, payload Payload, group []*Hook, depth int) []groupResult {
	out := make([]groupResult, len(group))
	if len(group) == 1 {
		out[0] = e.runOne(ctx, event, payload, group[0], depth, e.Stdout, e.Stderr, nil)
		return out
	}
	bufs := make([]struct{ out, err lockedBuffer }, len(group))
	var wg conc.WaitGroup
	for i, h := range group {
		var lo, le io.Writer
		if e.Stdout != nil {
			lo = &bufs[i].out
		}
		if e.Stderr != nil {
			le = &bufs[i].err
		}
		wg.Go(func() { out[i] = e.runOne(ctx, event, payload, h, depth, lo, le, nil) })
	}
	wg.Wait()
	for i := range group {
		if e.Stdout != nil {
			_, _ = e.Stdout.Write(bufs[i].out.Bytes())
		}
		if e.Stderr != nil {
			_, _ = e.Stderr.Write(bufs[i].err.Bytes())
		}
	}
	return out
}

// runOne runs a single hook (or records why it was skipped) and tells the observer.
func (e *Engine) runOne(ctx context.Context, event string, payload Payload, h *Hook, depth int, stdout, stderr io.Writer, sofar *Result) groupResult {
	start := time.Now()
	var traceEnv []string
	endTrace := func(*HookResult) {}
	if e.Tracer != nil {
		ctx, traceEnv, endTrace = e.Tracer.StartHook(ctx, event, h)
	}
	var o Outcome
	if reason := e.skipReason(h, payload); reason != "" {
		o = Outcome{Status: StatusSkipped, Reason: reason}
		if h.Blocking && e.Messages != nil && !strings.HasPrefix(reason, "matcher") {
			fmt.Fprintf(e.Messages, "agent-hooks: warning: blocking hook %s skipped (%s)\n", h.Name, reason)
		}
	} else {
		inv := &Invocation{
			Hook: h, Event: event, Payload: payload, Workspace: e.Workspace, SessionID: e.SessionID,
			Getenv: e.Getenv, Environ: append(slices.Clip(e.Environ), traceEnv...), Stdout: orDiscard(stdout), Stderr: orDiscard(stderr), Result: sofar,
			traceEnv: traceEnv, AsksAgain: e.AsksAgain, Progress: e.Progress,
			Fire: func(ctx context.Context, ev string, data Payload) (*Result, error) {
				c, err := ResolveEvent(ev, e.Config.CustomEvents)
				if err != nil {
					return nil, err
				}
				merged := make(Payload, len(payload)+len(data))
				maps.Copy(merged, payload)
				maps.Copy(merged, data)
				return e.fire(ctx, c, merged, depth+1)
			},
		}
		o = e.invokeRecovering(ctx, inv, stdout, stderr)
	}
	hr := e.hookResult(h, o, time.Since(start))
	endTrace(&hr)
	if e.Observer != nil {
		e.Observer.HookDone(event, h, &hr)
	}
	return groupResult{HookResult: hr, set: o.Set, unstartable: o.unstartable, halt: o.Halt}
}

// decide asks a Decider (a rule) whether it applies; only one that decides is traced, observed
// and part of the result. A rule of the managed layer is not skipped by AGENT_HOOKS_DISABLE or
// AGENT_HOOKS_SKIP.
func (e *Engine) decide(ctx context.Context, event string, payload Payload, h *Hook, d Decider) (groupResult, bool) {
	if h.Source.Scope != ScopeManaged && e.skipReason(h, payload) != "" {
		return groupResult{}, false
	}
	start := time.Now()
	inv := &Invocation{Hook: h, Event: event, Payload: payload, Workspace: e.Workspace, SessionID: e.SessionID, Getenv: e.Getenv}
	var o Outcome
	decided := false
	func() {
		defer func() {
			if r := recover(); r != nil {
				o, decided = Outcome{Status: StatusError, Reason: fmt.Sprintf("rule %q panicked: %v", h.Name, r)}, true
				if e.Messages != nil {
					fmt.Fprintf(e.Messages, "agent-hooks: internal error: %s\n%s", o.Reason, debug.Stack())
				}
			}
		}()
		o, decided = d.Decide(inv)
	}()
	if !decided {
		return groupResult{}, false
	}
	if o.Status == "" {
		o.Status = StatusOK
	}
	endTrace := func(*HookResult) {}
	if e.Tracer != nil {
		_, _, endTrace = e.Tracer.StartHook(ctx, event, h)
	}
	hr := e.hookResult(h, o, time.Since(start))
	endTrace(&hr)
	if e.Observer != nil {
		e.Observer.HookDone(event, h, &hr)
	}
	return groupResult{HookResult: hr}, true
}

// invokeRecovering is invoke with a panic (a bug in a built-in type or a format) turned into the
// hook's own error, whose reason names the hook: one broken hook never takes the process down,
// and a crash is never read as a decision. It is the one place hooks are recovered, for
// sequential and parallel hooks alike; the stack goes to the messages stream.
func (e *Engine) invokeRecovering(ctx context.Context, inv *Invocation, stdout, stderr io.Writer) (o Outcome) {
	defer func() {
		if r := recover(); r != nil {
			h := inv.Hook
			o = Outcome{Status: StatusError, Reason: fmt.Sprintf("hook %q (type %s) panicked: %v", h.Name, h.Type, r)}
			if e.Messages != nil {
				fmt.Fprintf(e.Messages, "agent-hooks: internal error: %s\n%s", o.Reason, debug.Stack())
			}
		}
	}()
	return e.invoke(ctx, inv, stdout, stderr)
}

func (e *Engine) invoke(ctx context.Context, inv *Invocation, stdout, stderr io.Writer) Outcome {
	h := inv.Hook
	if h.runner != nil {
		ctx, cancel := context.WithTimeout(ctx, h.timeout())
		defer cancel()
		o := h.runner.Run(ctx, inv)
		if o.Status == "" {
			o.Status = StatusOK
		}
		return o
	}
	if h.Type != TypeCommand {
		return Outcome{Status: StatusError, Reason: fmt.Sprintf("hook type %q is not available", h.Type)}
	}
	d := h.Dialect
	if d == nil {
		d = Native
	}
	p, err := d.Prepare(inv)
	if err != nil {
		return failedStart(err)
	}
	if p.Cleanup != nil {
		defer p.Cleanup()
	}
	if p.Dir == "" {
		p.Dir = e.Workspace
	}
	if p.Timeout == 0 {
		p.Timeout = h.Timeout
	}
	p.Env = append(p.Env, inv.traceEnv...) // the hook's own env may set its own TRACEPARENT
	for k, v := range h.Env {
		p.Env = append(p.Env, k+"="+v)
	}
	pr, err := e.starter.Run(ctx, p, stdout, stderr)
	if err != nil && pr == nil {
		return Outcome{Status: StatusError, Reason: err.Error()}
	}
	if err != nil { // cancelled: the caller sees ctx.Err()
		return Outcome{Status: StatusError, Reason: "interrupted", ExitCode: pr.ExitCode, Stdout: pr.Stdout, Stderr: pr.Stderr}
	}
	var input *process.InputError
	if errors.As(pr.StartErr, &input) {
		o := failedStart(input)
		o.ExitCode = pr.ExitCode
		return o
	}
	return d.Interpret(inv, pr)
}

// failedStart is the outcome of a hook whose process could not be prepared or started. When its
// input is the cause (a process.InputError), the outcome fails closed (see apply).
func failedStart(err error) Outcome {
	var input *process.InputError
	return Outcome{Status: StatusError, Reason: "could not start: " + err.Error(), unstartable: errors.As(err, &input)}
}

// skipReason says why a hook must not run now, or "".
func (e *Engine) skipReason(h *Hook, payload Payload) string {
	if h.Source.Scope == ScopeManaged {
		return e.matchReason(h, payload) // the managed layer cannot be switched off
	}
	if v := e.Getenv("AGENT_HOOKS_DISABLE"); v != "" && v != "0" && !strings.EqualFold(v, "false") {
		return "AGENT_HOOKS_DISABLE=" + v
	}
	if list := e.Getenv("AGENT_HOOKS_SKIP"); list != "" {
		for _, name := range strings.Split(list, ",") {
			if name = strings.TrimSpace(name); name != "" && (name == h.Name || name == h.Type) {
				return "AGENT_HOOKS_SKIP=" + list
			}
		}
	}
	if !h.Enabled {
		return "disabled in config (enabled: false)"
	}
	return e.matchReason(h, payload)
}

// matchReason says why a hook's matcher or tools do not select the payload, or "".
func (e *Engine) matchReason(h *Hook, payload Payload) string {
	if m := h.Matcher; m != nil {
		v, ok := template.Lookup(payload, m.Field)
		re := h.matcherRegexp()
		if re == nil || !ok || !re.MatchString(template.FormatValue(v)) {
			return fmt.Sprintf("matcher: %s does not match %q", m.Field, m.Regex)
		}
	}
	if h.Tools != nil {
		names := ToolNames(payload)
		if len(names) == 0 {
			return fmt.Sprintf("matcher: tools %q, and the event names no tool", h.Tools)
		}
		if !h.Tools.Match(names...) {
			return fmt.Sprintf("matcher: tools %q does not match %s", h.Tools, strings.Join(names, ", "))
		}
	}
	return ""
}

func (e *Engine) hookResult(h *Hook, o Outcome, d time.Duration) HookResult {
	return HookResult{
		Name: h.Name, Type: h.Type, Source: h.Source.Scope, Format: h.Source.Format, File: h.Source.File,
		ExitCode: o.ExitCode, DurationMs: d.Milliseconds(), Status: o.Status, Decision: o.Decision,
		Reason: o.Reason, Feedback: o.Feedback, BlockedBy: o.BlockedBy, Stdout: o.Stdout, Stderr: o.Stderr, Details: o.Details,
		UpdatedInput: o.UpdatedInput,
	}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// lockedBuffer is a bytes.Buffer safe for the two copiers of one process.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf
}
