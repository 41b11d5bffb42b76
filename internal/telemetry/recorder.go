package telemetry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
)

// ScopeName is the instrumentation scope of agent-hooks' spans and log records.
const ScopeName = "github.com/autoagent/agent-hooks"

// Recorder is the hooks engine's Tracer for one fired event (and the events its hooks fire): it
// keeps the spans and log records in memory and Flush writes them to the spool in one file.
type Recorder struct {
	dest      *Destination
	spool     string // <home>/telemetry/spool
	sessionID string
	resource  []KeyValue
	now       func() time.Time
	parent    spanContext // from an incoming TRACEPARENT (zero: a new trace)
	version   string

	mu    sync.Mutex
	spans []Span
	logs  []LogRecord
}

// RecorderOptions are a Recorder's inputs.
type RecorderOptions struct {
	Config        Config
	Destination   *Destination
	AutoagentHome string
	SessionID     string
	Getenv        func(string) string
	Now           func() time.Time
	Version       string // agent-hooks' version, the resource's service.version
}

// NewRecorder records into the spool of o.AutoagentHome. An incoming TRACEPARENT (W3C trace
// context) makes the event's span a child of the caller's.
func NewRecorder(o RecorderOptions) *Recorder {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	r := &Recorder{dest: o.Destination, spool: SpoolDir(o.AutoagentHome), sessionID: o.SessionID, now: now, version: o.Version}
	r.parent, _ = parseTraceparent(getenv("TRACEPARENT"))
	r.resource = resourceAttributes(o.Config, getenv, o.Version)
	return r
}

// spanContext is a span's identity.
type spanContext struct {
	trace [16]byte
	span  [8]byte
}

func (s spanContext) valid() bool { return s.trace != [16]byte{} && s.span != [8]byte{} }

func (s spanContext) traceparent() string {
	return "00-" + hex.EncodeToString(s.trace[:]) + "-" + hex.EncodeToString(s.span[:]) + "-01"
}

// parseTraceparent reads a W3C traceparent: 00-<32 hex trace id>-<16 hex span id>-<flags>.
func parseTraceparent(s string) (spanContext, bool) {
	var sc spanContext
	parts := strings.Split(strings.TrimSpace(s), "-")
	if len(parts) < 4 || len(parts[0]) != 2 || parts[0] == "ff" || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return sc, false
	}
	if _, err := hex.Decode(sc.trace[:], []byte(parts[1])); err != nil {
		return spanContext{}, false
	}
	if _, err := hex.Decode(sc.span[:], []byte(parts[2])); err != nil {
		return spanContext{}, false
	}
	return sc, sc.valid()
}

type ctxKey struct{}

func (r *Recorder) parentOf(ctx context.Context) spanContext {
	if sc, ok := ctx.Value(ctxKey{}).(spanContext); ok {
		return sc
	}
	return r.parent
}

// child starts a span context under parent (a new trace when parent is zero).
func child(parent spanContext) spanContext {
	sc := spanContext{trace: parent.trace}
	if sc.trace == [16]byte{} {
		_, _ = rand.Read(sc.trace[:])
	}
	_, _ = rand.Read(sc.span[:])
	return sc
}

func hexID(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	for _, c := range b {
		if c != 0 {
			return hex.EncodeToString(b)
		}
	}
	return ""
}

// StartEvent implements hooks.Tracer: the event's span.
func (r *Recorder) StartEvent(ctx context.Context, event string, payload hooks.Payload) (context.Context, func(*hooks.Result, error)) {
	parent := r.parentOf(ctx)
	sc := child(parent)
	start := r.now()
	attrs := []KeyValue{Str("agent_hooks.event", event), Str("agent_hooks.session.id", r.sessionID)}
	attrs = append(attrs, genAIAttributes(payload, r.sessionID)...)
	return context.WithValue(ctx, ctxKey{}, sc), func(res *hooks.Result, err error) {
		s := Span{TraceID: hexID(sc.trace[:]), SpanID: hexID(sc.span[:]), ParentSpanID: hexID(parent.span[:]),
			Name: event, Kind: SpanKindInternal, StartTimeUnixNano: nanos(start), EndTimeUnixNano: nanos(r.now()), Attributes: attrs}
		if res != nil {
			s.Attributes = append(s.Attributes, Str("agent_hooks.decision", res.Decision), Bool("agent_hooks.blocked", res.Blocked),
				Int("agent_hooks.hooks", int64(len(res.Hooks))))
			if res.Reason != "" {
				s.Attributes = append(s.Attributes, Str("agent_hooks.reason", res.Reason))
			}
		}
		if err != nil {
			s.Status = SpanStatus{Code: StatusError, Message: err.Error()}
		}
		r.mu.Lock()
		r.spans = append(r.spans, s)
		r.mu.Unlock()
	}
}

// StartHook implements hooks.Tracer: the hook's span, a child of its event's, and TRACEPARENT
// for its process.
func (r *Recorder) StartHook(ctx context.Context, event string, h *hooks.Hook) (context.Context, []string, func(*hooks.HookResult)) {
	parent := r.parentOf(ctx)
	sc := child(parent)
	start := r.now()
	return context.WithValue(ctx, ctxKey{}, sc), []string{"TRACEPARENT=" + sc.traceparent()}, func(hr *hooks.HookResult) {
		end := r.now()
		attrs := []KeyValue{
			Str("agent_hooks.event", event), Str("agent_hooks.session.id", r.sessionID),
			Str("agent_hooks.hook.name", hr.Name), Str("agent_hooks.hook.type", hr.Type),
			Str("agent_hooks.hook.source", hr.Source), Str("agent_hooks.hook.format", hr.Format),
			Str("agent_hooks.hook.status", string(hr.Status)), Int("process.exit.code", int64(hr.ExitCode)),
			Int("agent_hooks.hook.duration_ms", hr.DurationMs), Str("agent_hooks.decision", hr.Decision),
		}
		if hr.File != "" {
			attrs = append(attrs, Str("agent_hooks.hook.file", hr.File))
		}
		if hr.Reason != "" {
			attrs = append(attrs, Str("agent_hooks.reason", hr.Reason))
		}
		s := Span{TraceID: hexID(sc.trace[:]), SpanID: hexID(sc.span[:]), ParentSpanID: hexID(parent.span[:]),
			Name: "hook " + hr.Name, Kind: SpanKindInternal, StartTimeUnixNano: nanos(start), EndTimeUnixNano: nanos(end), Attributes: attrs}
		severity, text := SeverityInfo, "INFO"
		switch hr.Status {
		case hooks.StatusError, hooks.StatusTimeout:
			s.Status = SpanStatus{Code: StatusError, Message: hr.Reason}
			severity, text = SeverityError, "ERROR"
		case hooks.StatusBlocked:
			severity, text = SeverityWarn, "WARN"
		}
		// The audit line, as a log record in the hook's span.
		body := fmt.Sprintf("%s %s: %s", event, hr.Name, hr.Status)
		if hr.Reason != "" {
			body += ": " + hr.Reason
		}
		l := LogRecord{TimeUnixNano: nanos(end), ObservedTimeUnixNano: nanos(end), SeverityNumber: severity, SeverityText: text,
			EventName: "agent_hooks.hook", Body: AnyValue{StringValue: &body}, Attributes: attrs, TraceID: s.TraceID, SpanID: s.SpanID}
		r.mu.Lock()
		r.spans = append(r.spans, s)
		r.logs = append(r.logs, l)
		r.mu.Unlock()
	}
}

func nanos(t time.Time) Uint64 { return Uint64(t.UnixNano()) }

// genAIAttributes are the GenAI semantic conventions' ids an agent's payload carries: the
// conversation (the agent's session, else agent-hooks') and the tool call.
func genAIAttributes(p hooks.Payload, sessionID string) []KeyValue {
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := p[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	conv := str("session_id", "conversationId", "conversation_id")
	if conv == "" {
		conv = sessionID
	}
	out := []KeyValue{Str("gen_ai.conversation.id", conv)}
	if id := str("tool_use_id", "toolUseId", "tool_call_id", "toolCallId"); id != "" {
		out = append(out, Str("gen_ai.tool.call.id", id))
	}
	if name := str("tool_name", "toolName"); name != "" {
		out = append(out, Str("gen_ai.tool.name", name))
	}
	return out
}

// resourceAttributes describe the process: service.name and version, OTEL_RESOURCE_ATTRIBUTES
// and the config's, and in GitHub Actions the CI/CD and VCS conventions' attributes of the run.
func resourceAttributes(cfg Config, getenv func(string) string, version string) []KeyValue {
	set := map[string]string{}
	var order []string
	put := func(k, v string) {
		if v == "" {
			return
		}
		if _, ok := set[k]; !ok {
			order = append(order, k)
		}
		set[k] = v
	}
	put("service.name", "agent-hooks")
	put("service.version", version)
	put("telemetry.sdk.name", "agent-hooks")
	put("telemetry.sdk.language", "go")
	if getenv("GITHUB_ACTIONS") == "true" {
		server, repo, run := first(getenv("GITHUB_SERVER_URL"), "https://github.com"), getenv("GITHUB_REPOSITORY"), getenv("GITHUB_RUN_ID")
		put("cicd.pipeline.name", getenv("GITHUB_WORKFLOW"))
		put("cicd.pipeline.run.id", run)
		put("cicd.pipeline.task.name", getenv("GITHUB_JOB"))
		if repo != "" {
			put("vcs.repository.url.full", server+"/"+repo)
			put("vcs.repository.name", repo)
			if run != "" {
				put("cicd.pipeline.run.url.full", server+"/"+repo+"/actions/runs/"+run)
			}
		}
		put("vcs.provider.name", "github")
		put("vcs.ref.head.name", first(getenv("GITHUB_HEAD_REF"), getenv("GITHUB_REF_NAME")))
		put("vcs.ref.head.revision", getenv("GITHUB_SHA"))
	}
	for k, v := range parsePairs(getenv("OTEL_RESOURCE_ATTRIBUTES")) {
		put(k, v)
	}
	for k, v := range cfg.ResourceAttributes {
		put(k, v)
	}
	put("service.name", first(cfg.ServiceName, getenv("OTEL_SERVICE_NAME")))
	out := make([]KeyValue, 0, len(order))
	for _, k := range order {
		out = append(out, Str(k, set[k]))
	}
	return out
}

// Empty reports whether nothing was recorded.
func (r *Recorder) Empty() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.spans) == 0 && len(r.logs) == 0
}

// batch is what was recorded, as the two lines of a spool file.
func (r *Recorder) batch() (TracesData, LogsData) {
	r.mu.Lock()
	defer r.mu.Unlock()
	scope := Scope{Name: ScopeName, Version: r.version}
	res := Resource{Attributes: r.resource}
	return TracesData{ResourceSpans: []ResourceSpans{{Resource: res, ScopeSpans: []ScopeSpans{{Scope: scope, Spans: r.spans}}}}},
		LogsData{ResourceLogs: []ResourceLogs{{Resource: res, ScopeLogs: []ScopeLogs{{Scope: scope, LogRecords: r.logs}}}}}
}
