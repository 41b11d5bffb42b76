package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents/gitcmd"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/sessions"
	"github.com/autoagent/agent-hooks/toolcall"
)

// Options are Handle's inputs.
type Options struct {
	Agent Agent
	// Runner fires the events. The workspace is found from the agent's cwd (else the project
	// directory the agent names in its environment, else Runner.Cwd); the hooks' stdout is
	// never streamed (stdout is the agent's answer).
	Runner *runner.Runner
	Stdin  io.Reader
	// Getenv is the environment the agent ran the hook with (nil: none).
	Getenv func(string) string
	// Timeout is the --timeout given: the timeout of the hook entry in the agent's settings, which
	// the agent does not tell the hook. 0 uses the agent's default for the event.
	Timeout time.Duration
	// Event is the agent's name of the event, given on the command line (--event) for an agent
	// whose input does not name it (Copilot CLI's camelCase hooks); "" when none was.
	Event string
	// MaxInput bounds the agent's input (0: DefaultMaxInput).
	MaxInput int64
	// Start is when the agent started the hook, which its timeout counts from (zero: now).
	Start time.Time
	// Messages receives agent-hooks' own messages: why it refused, internal errors (nil: discarded).
	Messages io.Writer
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Reply is the hook's answer: Stdout (one JSON document, or nothing), Stderr, and the exit code.
type Reply struct {
	Stdout   []byte
	Stderr   string
	ExitCode int
	// HandOff is set, with Input and nothing else, when the runner is lean and the configuration
	// needs the full program (*runner.HandOffError): nothing ran, and the caller hands the event
	// over, giving the full program Input, every byte Handle read of Stdin, to read again.
	HandOff error
	Input   string

	wait    func()
	settled time.Time
}

// Wait blocks until the work Handle stopped waiting for (hooks past the deadline, being
// stopped; a built-in such as git-commit being cancelled) is done: tests wait, before their
// temporary directories go.
func (r Reply) Wait() {
	if r.wait != nil {
		r.wait()
	}
}

// Settle is Wait for the command, once the answer is written: it waits no longer than the
// agent's budget leaves (a quarter of the margin before its timeout), so that exiting does not
// cut short what was cancelled (a commit half written) while the agent still waits for the
// process, and returns at once when nothing is left.
func (r Reply) Settle() {
	if r.wait == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		r.wait()
		close(done)
	}()
	timer := time.NewTimer(max(time.Until(r.settled), 0))
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}

// Handle answers one hook event of an agent. It never returns an exit code the agent reads as
// "proceed" for an event that hooks could not decide: see the package documentation.
func Handle(ctx context.Context, o Options) Reply {
	h := &handler{o: o}
	reply := h.run(ctx)
	reply.wait, reply.settled = h.work.Wait, h.settle
	return reply
}

// handler is one hook event being answered.
type handler struct {
	o         Options
	in        *Input
	hostEvent string // the agent's event name
	event     string // the canonical event, or the agent's own name for one without
	mapped    bool
	blockable bool
	req       runner.Request
	call      *toolcall.Call // the tool call in the shape every agent shares (nil: none)
	runner    *runner.Runner
	deadline  time.Time // hooks must have decided by then
	hard      time.Time // the answer must be written by then
	settle    time.Time // the process must be gone by then
	work      sync.WaitGroup
	handOff   error  // the lean runner's *runner.HandOffError
	raw       string // every byte read of the agent's input
}

func (h *handler) now() time.Time {
	if h.o.Now != nil {
		return h.o.Now()
	}
	return time.Now()
}

func (h *handler) getenv(k string) string {
	if h.o.Getenv == nil {
		return ""
	}
	return h.o.Getenv(k)
}

func (h *handler) say(format string, args ...any) {
	if h.o.Messages != nil {
		fmt.Fprintf(h.o.Messages, "agent-hooks: "+format+"\n", args...)
	}
}

// margin is how long before the agent's deadline agent-hooks stops waiting for hooks: time to
// write the answer, and to spare on a loaded machine. A tenth of the budget, between a quarter
// of a second and five seconds, and never more than half of it.
func margin(budget time.Duration) time.Duration {
	return min(max(budget/10, 250*time.Millisecond), 5*time.Second, budget/2)
}

func (h *handler) run(ctx context.Context) (reply Reply) {
	defer func() {
		if p := recover(); p != nil {
			h.say("internal error: %v\n%s", p, debug.Stack())
			reply = h.lastResort(fmt.Sprintf("agent-hooks failed (internal error: %v)", p))
		}
	}()
	start := h.o.Start
	if start.IsZero() {
		start = h.now()
	}
	readBudget := h.o.Agent.Budget("", h.o.Timeout, h.getenv)
	readCtx, cancel := context.WithDeadline(ctx, start.Add(readBudget-margin(readBudget)))
	in, raw, err := readInput(readCtx, h.o.Stdin, h.o.MaxInput, h.decode)
	cancel()
	h.raw = raw
	if err != nil {
		hostEvent := eventNameIn(raw)
		if hostEvent == "" {
			hostEvent = h.o.Event
		}
		return h.unreadable(err, hostEvent)
	}
	h.in = in
	h.classify(in.HostEvent)
	budget := h.o.Agent.Budget(in.HostEvent, h.o.Timeout, h.getenv)
	h.deadline = start.Add(budget - margin(budget))
	h.hard = start.Add(budget - margin(budget)/2)
	h.settle = start.Add(budget - margin(budget)/4)
	if err := h.prepare(); err != nil {
		return h.reply(h.refuse(err.Error()))
	}
	v := h.decide(ctx)
	if h.handOff != nil {
		return Reply{HandOff: h.handOff, Input: h.raw}
	}
	return h.reply(v)
}

// decode reads the meaning of the agent's fields: the Host's own Decoder, else Claude Code's
// keys.
func (h *handler) decode(in *Input) error {
	if d, ok := h.o.Agent.(Decoder); ok {
		return d.Decode(in, h.o.Event)
	}
	CommonShape(in)
	return nil
}

// classify sets the event fired for the agent's event, and whether it can be blocked.
func (h *handler) classify(hostEvent string) {
	h.hostEvent = hostEvent
	h.event, h.mapped = h.o.Agent.Event(hostEvent)
	if h.in != nil && h.in.Event != "" {
		h.event, h.mapped = h.in.Event, true
	}
	if !h.mapped {
		h.event = hostEvent
	}
	h.blockable = h.mapped && hooks.CanBlock(h.event)
}

// unreadable answers input that could not be read: refused when its event (found in what was
// read) can be blocked; when not even the event is known, exit 2 with the reason, which both
// hosts read as a block on every event that can be blocked.
func (h *handler) unreadable(err error, hostEvent string) Reply {
	cause := "agent-hooks could not read the agent's hook input: " + err.Error()
	if hostEvent == "" {
		return h.lastResort(cause) // the cause is on stderr as the reason: said once
	}
	h.say("could not read the agent's hook input: %v", err)
	h.classify(hostEvent)
	v := h.verdict()
	if h.blockable {
		v.Decision, v.Reason = Deny, cause
	} else {
		v.Warnings = append(v.Warnings, cause)
	}
	return h.reply(v)
}

// lastResort is the answer when no verdict can be written: the agent's Refusal when it reads no
// exit code as a block (Cline); else exit 2 with the reason on stderr, which blocks on Claude
// Code and Codex; on an event that cannot be blocked, exit 1 (a non-blocking error).
func (h *handler) lastResort(reason string) Reply {
	if r, ok := h.o.Agent.(Refuser); ok {
		if out := r.Refusal(reason); len(out) > 0 {
			return Reply{Stdout: append(out, '\n'), Stderr: reason + "\n"}
		}
	}
	code := 2
	if h.in != nil && !h.blockable {
		code = 1
	}
	return Reply{Stderr: reason + "\n", ExitCode: code}
}

// prepare builds the runner and the request of the event.
func (h *handler) prepare() error {
	dir := h.in.Cwd()
	if dir == "" {
		if env := h.o.Agent.ProjectDirEnv(); env != "" {
			dir = h.getenv(env)
		}
	}
	r := *h.o.Runner
	if dir == "" {
		dir = r.Cwd
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.Cwd, dir)
	}
	r.Stdout = io.Discard
	h.runner = r.Once() // the event and its git gates read one configuration
	// The workspace is the agent's, found from its cwd: not $GITHUB_WORKSPACE, which would win
	// over it for `agent-hooks run`.
	ws, err := runner.FindWorkspace("", dir, nil)
	if err != nil {
		return err
	}
	tool, toolInput := h.in.Tool(), h.in.ToolInput()
	h.req = runner.Request{
		Event: h.event, Data: h.in.Payload(h.o.Agent), Workspace: ws, CaptureStdout: true,
		Agent: h.o.Agent.Name(), AgentRuns: h.o.Agent.Settings().Runs(), AgentSessionID: h.in.SessionID(), ToolUseID: h.in.ToolUseID(),
		CanAsk:    h.event == hooks.PermissionRequest || h.event == hooks.PreToolUse && h.o.Agent.CanAsk(),
		AsksAgain: asksAbout(h.event),
	}
	if tool != "" {
		tc := map[string]any{"tool": tool}
		if asksAbout(h.event) {
			tc = toolCall(h.o.Agent, h.in)
		}
		if c := normalizedCall(h.o.Agent, h.in, dir, ws, r.UserHome); c != nil {
			c.Into(tc)
			h.call = c
		}
		h.req.Data["toolCall"] = tc
	}
	for _, f := range h.o.Agent.EditedFiles(h.event, tool, toolInput) {
		if !filepath.IsAbs(filepath.FromSlash(f)) {
			f = filepath.Join(dir, filepath.FromSlash(f))
		}
		h.req.FilesModified = append(h.req.FilesModified, f)
	}
	if h.event == hooks.SessionEnd {
		h.req.EndStatus = sessions.StatusCompleted
	}
	return nil
}

// decide fires the event and waits for its hooks until the deadline; a panic, an error or the
// deadline is a refusal.
func (h *handler) decide(ctx context.Context) *Verdict {
	ctx, cancel := context.WithDeadline(ctx, h.deadline)
	defer cancel()
	type result struct {
		v   *Verdict
		err error
	}
	done := make(chan result, 1)
	h.work.Add(1)
	go func() {
		defer h.work.Done()
		defer func() {
			if p := recover(); p != nil {
				h.say("internal error: %v\n%s", p, debug.Stack())
				done <- result{err: fmt.Errorf("internal error: %v", p)}
			}
		}()
		v, err := h.fire(ctx)
		done <- result{v, err}
	}()
	select {
	case res := <-done:
		var handOff *runner.HandOffError
		if errors.As(res.err, &handOff) {
			h.handOff = handOff // before anything ran: nothing to refuse or record
			return nil
		}
		if res.err != nil {
			return h.refuse(h.cause(ctx, res.err))
		}
		return res.v
	case <-ctx.Done():
		return h.refuse(h.cause(ctx, ctx.Err()))
	}
}

// cause says why the hooks could not decide.
func (h *handler) cause(ctx context.Context, err error) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded),
		errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.Canceled):
		budget := h.o.Agent.Budget(h.hostEvent, h.o.Timeout, h.getenv)
		return fmt.Sprintf("the hooks did not finish within %s, before %s's own timeout of %s (raise the hook's timeout, and --timeout with it)",
			roundDuration(budget-margin(budget)), h.o.Agent.Name(), roundDuration(budget))
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return "interrupted"
	}
	return err.Error()
}

func roundDuration(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// fire runs the event, then the git gates of a shell command the agent is about to run, and
// records the answer in the session's audit trail.
func (h *handler) fire(ctx context.Context) (*Verdict, error) {
	gates := h.gitGates()
	req := h.req
	if len(gates) > 0 {
		req.FilesModified = nil // recorded once every gate let the command through
		gates[len(gates)-1].FilesModified = h.req.FilesModified
	}
	out, err := h.runner.Fire(ctx, req)
	if err != nil {
		var unknown *hooks.UnknownEventError
		if !h.mapped && errors.As(err, &unknown) {
			return h.verdict(), nil // an agent event no hook is declared for
		}
		return nil, err
	}
	results := []*hooks.Result{out.Result}
	for _, g := range gates {
		if results[len(results)-1].Blocked {
			break
		}
		g.SessionID = out.Result.SessionID
		gout, err := h.runner.Fire(ctx, g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", g.Event, err)
		}
		results = append(results, gout.Result)
	}
	v := h.verdict(results...)
	if v.UpdatedInput != nil {
		h.recheck(v)
	}
	h.record(out.Result.SessionID, v)
	return v, nil
}

// recheck asks the rules again about the call a hook rewrote (the rules decided the call as the
// agent asked it, before the hooks): a rewrite into a call they deny is refused.
func (h *handler) recheck(v *Verdict) {
	req := h.req
	req.Data = maps.Clone(h.req.Data)
	req.Data["toolInput"] = v.UpdatedInput
	if _, ok := req.Data["tool_input"]; ok {
		req.Data["tool_input"] = v.UpdatedInput
	}
	dir, _ := h.req.Data["cwd"].(string)
	if dir == "" {
		dir = h.runner.Cwd
	}
	tc := map[string]any{"tool": h.in.Tool(), "input": v.UpdatedInput}
	if c := callOf(h.o.Agent, h.in.Tool(), v.UpdatedInput, dir, h.req.Workspace, h.runner.UserHome); c != nil {
		c.Into(tc)
	}
	req.Data["toolCall"] = tc
	ex, err := h.runner.Explain(req)
	switch {
	case err != nil:
		v.Decision, v.Reason, v.UpdatedInput = Deny, "the rules could not decide on the rewritten call: "+err.Error(), nil
	case ex.Decision == "deny":
		v.Decision, v.Reason, v.UpdatedInput = Deny, "a hook rewrote the call into one the rules deny: "+ex.Reason, nil
	}
}

// gitGates are the requests of PreGitCommit and PreGitPush for the git commits and pushes a
// shell command the agent is about to run does (all of them when the command cannot be read).
func (h *handler) gitGates() []runner.Request {
	if h.event != hooks.PreToolUse {
		return nil
	}
	command := h.o.Agent.ShellCommand(h.in.Tool(), h.in.ToolInput())
	if command == "" {
		return nil
	}
	report := gitcmd.Scan(command)
	var gates []runner.Request
	for _, g := range []struct{ sub, event string }{{"commit", hooks.PreGitCommit}, {"push", hooks.PreGitPush}} {
		if !report.Has(g.sub) {
			continue
		}
		req := h.req
		req.Event, req.Data, req.FilesModified, req.CanAsk = g.event, gitPayload(h.req.Data, report, g.sub, h.in.Cwd(), command), nil, false
		gates = append(gates, req)
	}
	return gates
}

// gitPayload is the payload of a git gate: the tool call's, plus what the command does with git.
func gitPayload(base hooks.Payload, report gitcmd.Report, sub, cwd, command string) hooks.Payload {
	p := maps.Clone(base)
	p["firedBy"] = hooks.PreToolUse
	p["gitCommand"] = sub
	p["shellCommand"] = command
	noVerify := false
	bypass := []any{}
	commands := []any{}
	for i, op := range report.Of(sub) {
		dir := op.Dir
		if dir != "" && !strings.ContainsAny(dir, "$`") && !filepath.IsAbs(dir) && cwd != "" {
			dir = filepath.Join(cwd, dir)
		}
		args := make([]any, len(op.Args))
		for j, a := range op.Args {
			args[j] = a
		}
		c := map[string]any{"subcommand": op.Command, "args": args, "noVerify": op.NoVerify}
		if dir != "" {
			c["dir"] = dir
		}
		if op.HooksPath != nil {
			c["hooksPath"] = *op.HooksPath
		}
		commands = append(commands, c)
		if i == 0 {
			p["gitArgs"] = args
			if dir != "" {
				p["gitDir"] = dir
			}
		}
		noVerify = noVerify || op.NoVerify
		for _, b := range op.Bypasses {
			bypass = appendUnique(bypass, b)
		}
	}
	p["gitCommands"] = commands
	p["noVerify"] = noVerify
	p["bypass"] = bypass
	if report.Unknown {
		p["commandUnknown"] = true
		p["unknownReason"] = report.Why
	}
	return p
}

func appendUnique(list []any, s string) []any {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// record writes the answer's decision in the session's audit trail, when it has one.
func (h *handler) record(sessionID string, v *Verdict) {
	decision, reason := v.Decision, v.Reason
	if decision == "" && v.Block != "" {
		decision, reason = hooks.DecisionBlock, v.Block
	}
	// A tool call is recorded whatever was answered, with its normalized shape (redacted: no
	// contents, no secrets), so that `session replay` can ask today's rules about it.
	call := h.call
	if !asksAbout(h.event) {
		call = nil
	}
	if decision == "" && call == nil {
		return
	}
	req := h.req
	req.SessionID = sessionID
	e := sessions.Event{
		Event: h.event, Name: h.o.Agent.Name(), Type: "agent", Source: "agent-hooks",
		Status: "answered", Decision: decision, Reason: reason,
	}
	if decision == "" {
		e.Status = "passed"
	}
	if call != nil {
		tc := map[string]any{}
		call.Redacted().Into(tc)
		e.Details = map[string]any{"call": tc}
	}
	if _, err := h.runner.Record(req, e); err != nil {
		h.say("warning: audit trail: %v", err)
	}
}

// refuse is the verdict when the hooks could not decide (cause says why): a refusal of a
// blockable event, recorded in the session (a Stop refused stopBlockLimit times in a row is let
// through); a warning on any other.
func (h *handler) refuse(cause string) *Verdict {
	h.say("%s %s: %s", h.o.Agent.Name(), h.hostEvent, cause)
	v := h.verdict()
	if h.runner == nil || !h.blockable {
		v.Warnings = append(v.Warnings, "agent-hooks could not run the "+h.event+" hooks: "+cause)
		return v
	}
	capped := h.bounded(func() bool {
		capped, err := h.runner.Refuse(h.req, cause)
		if err != nil {
			h.say("warning: record the refusal: %v", err)
		}
		return capped
	})
	if capped {
		v.Warnings = append(v.Warnings, fmt.Sprintf("agent-hooks could not run the %s hooks (%s); %s was refused too many times in a row, so this one is let through", h.event, cause, h.event))
		return v
	}
	v.Decision = Deny
	v.Reason = fmt.Sprintf("agent-hooks refused this %s: its hooks could not run: %s", h.event, cause)
	return v
}

// bounded runs fn (bookkeeping) but waits for it no longer than the time left before the
// agent's deadline: a lock held by a stuck process must not cost the answer.
func (h *handler) bounded(fn func() bool) bool {
	done := make(chan bool, 1)
	h.work.Add(1)
	go func() {
		defer h.work.Done()
		done <- fn()
	}()
	wait := max(time.Until(h.hard), 50*time.Millisecond)
	select {
	case c := <-done:
		return c
	case <-time.After(wait):
		h.say("warning: recording the refusal takes too long; answering without it")
		return false
	}
}

// reply writes the verdict in the agent's protocol.
func (h *handler) reply(v *Verdict) (reply Reply) {
	defer func() {
		if p := recover(); p != nil {
			h.say("internal error writing the answer: %v\n%s", p, debug.Stack())
			reply = h.lastResort(fmt.Sprintf("agent-hooks failed to answer (internal error: %v); %s", p, v.Reason))
		}
	}()
	out, err := h.o.Agent.Answer(v)
	if err != nil {
		h.say("internal error writing the answer: %v", err)
		return h.lastResort(fmt.Sprintf("agent-hooks failed to answer (%v); %s", err, v.Reason))
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	return Reply{Stdout: out}
}
