package ship

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/internal/telemetry"
	"github.com/autoagent/agent-hooks/runner"
)

// The collector is a real OpenTelemetry Collector (its OTLP receiver), built from
// internal/telemetry/testcollector, a module of its own, once per test binary. Building it needs
// the Go module proxy (or a module cache that has it); a test that cannot build it skips, unless
// AGENT_HOOKS_REQUIRE_COLLECTOR=1 (CI), where that fails.
var (
	collectorOnce sync.Once
	collectorBin  string
	collectorErr  error
)

func buildCollector(t *testing.T) string {
	t.Helper()
	collectorOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agent-hooks-testcollector-")
		if err != nil {
			collectorErr = err
			return
		}
		collectorBin = filepath.Join(dir, "testcollector")
		cmd := exec.Command("go", "build", "-o", collectorBin, ".")
		cmd.Dir = filepath.Join("..", "testcollector")
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			collectorErr = fmt.Errorf("go build the test collector: %v\n%s", err, out)
		}
	})
	if collectorErr != nil {
		if os.Getenv("AGENT_HOOKS_REQUIRE_COLLECTOR") == "1" {
			t.Fatal(collectorErr)
		}
		t.Skip(collectorErr)
	}
	return collectorBin
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startCollector runs the collector with its OTLP/HTTP receiver on 127.0.0.1:port, appending
// what it receives to out as OTLP/JSON lines.
func startCollector(t *testing.T, bin string, port int, out string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "collector.yaml")
	yaml := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  jsonfile:
    path: %s
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jsonfile]
    logs:
      receivers: [otlp]
      exporters: [jsonfile]
`, port, out)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	cmd := exec.Command(bin, "--config=file:"+cfg)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("the collector exited: %s", logs.String())
		default:
		}
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector does not listen on %d: %s", port, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lockedBuffer is the collector's output, written by os/exec while a failing test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// received reads what the collector wrote: every span and log record.
func received(t *testing.T, path string) ([]telemetry.Span, []telemetry.LogRecord, []telemetry.KeyValue) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the collector received nothing: %v", err)
	}
	defer f.Close()
	var spans []telemetry.Span
	var logs []telemetry.LogRecord
	var resource []telemetry.KeyValue
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var td telemetry.TracesData
		var ld telemetry.LogsData
		if err := json.Unmarshal(sc.Bytes(), &td); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(sc.Bytes(), &ld); err != nil {
			t.Fatal(err)
		}
		for _, rs := range td.ResourceSpans {
			resource = rs.Resource.Attributes
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
		for _, rl := range ld.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				logs = append(logs, sl.LogRecords...)
			}
		}
	}
	return spans, logs, resource
}

func attr(kvs []telemetry.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			switch v := kv.Value; {
			case v.StringValue != nil:
				return *v.StringValue
			case v.IntValue != nil:
				return fmt.Sprint(int64(*v.IntValue))
			case v.BoolValue != nil:
				return fmt.Sprint(*v.BoolValue)
			}
		}
	}
	return ""
}

// TestShipToARealCollector: events fired while the collector is down are spooled, nothing is
// lost, and once it is up the shipper delivers every span (an event's, and one per hook under
// it, skipped ones included, with their status) and every audit line as a log record in its
// hook's span; the hook process got TRACEPARENT naming its span; an incoming TRACEPARENT is
// honoured. TestShipToAnOTLPReceiver is the same scenario against a receiver in this process.
func TestShipToARealCollector(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: builds an OpenTelemetry Collector (minutes with a cold build cache); runs without -short")
	}
	t.Parallel()
	bin := buildCollector(t)
	out := filepath.Join(t.TempDir(), "received.jsonl")
	shipScenario(t, func(t *testing.T, port int) func() ([]telemetry.Span, []telemetry.LogRecord, []telemetry.KeyValue) {
		startCollector(t, bin, port, out)
		return func() ([]telemetry.Span, []telemetry.LogRecord, []telemetry.KeyValue) { return received(t, out) }
	})
}

// shipScenario fires two events while nothing listens on the telemetry endpoint, ships (kept,
// then held back by the backoff), starts the collector with up and ships again, then checks
// what up's function says the collector received.
func shipScenario(t *testing.T, up func(t *testing.T, port int) func() ([]telemetry.Span, []telemetry.LogRecord, []telemetry.KeyValue)) {
	t.Helper()
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	port := freePort(t)
	config := fmt.Sprintf(`{
  "telemetry": {"endpoint": "http://127.0.0.1:%d", "resourceAttributes": {"team": "infra"}},
  "hooks": {
    "PreExecutionEnd": [
      {"name": "traced", "command": "echo $TRACEPARENT >> %s/traceparent.txt"},
      {"name": "off", "command": "true", "enabled": false},
      {"name": "flaky", "command": "exit 1"},
      {"name": "gate", "command": "echo no >&2; exit 2"}
    ]
  }
}`, port, root)
	if err := os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	r := &runner.Runner{Getenv: func(k string) string { return env[k] }, Environ: []string{"PATH=" + os.Getenv("PATH")},
		Cwd: ws, AutoagentHome: home, Version: "test"}
	fire := func() {
		t.Helper()
		out, err := r.Fire(context.Background(), runner.Request{Event: "PreExecutionEnd", Data: map[string]any{"tool_use_id": "toolu_1", "tool_name": "Bash"}, CaptureStdout: true})
		if err != nil || !out.Blocked() {
			t.Fatalf("fire: %+v %v", out, err)
		}
	}

	// The collector is down: the events are spooled and the shipper keeps them.
	fire()
	rep, err := Ship(context.Background(), Options{Home: home, Timeout: time.Second})
	if err != nil || rep.Shipped != 0 || rep.Kept != 1 || len(rep.Errors) != 1 {
		t.Fatalf("ship with the collector down = %+v, %v; want the batch kept", rep, err)
	}
	// A shipper started again at once waits out the backoff rather than hammer it.
	if rep, _ := Ship(context.Background(), Options{Home: home, Timeout: time.Second}); rep.Kept != 1 || len(rep.Errors) != 0 {
		t.Errorf("ship during the backoff = %+v, want the batch kept without trying", rep)
	}
	const parentTrace, parentSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	env["TRACEPARENT"] = "00-" + parentTrace + "-" + parentSpan + "-01"
	fire()

	// Up again: everything arrives.
	receivedNow := up(t, port)
	rep, err = Ship(context.Background(), Options{Home: home, IgnoreBackoff: true, Timeout: 10 * time.Second})
	if err != nil || rep.Shipped != 2 || rep.Kept != 0 || len(rep.Errors) != 0 {
		t.Fatalf("ship with the collector up = %+v, %v", rep, err)
	}
	parts, _ := telemetry.Partitions(home)
	for _, p := range parts {
		if b, _ := p.Batches(); len(b) != 0 {
			t.Errorf("batches left in the spool: %v", b)
		}
	}

	spans, logs, resource := receivedNow()
	if attr(resource, "service.name") != "agent-hooks" || attr(resource, "team") != "infra" || attr(resource, "service.version") != "test" {
		t.Errorf("resource = %+v", resource)
	}
	byID := map[string]telemetry.Span{}
	var events []telemetry.Span
	for _, s := range spans {
		byID[s.SpanID] = s
		if s.Name == "PreExecutionEnd" {
			events = append(events, s)
		}
	}
	if len(events) != 2 || len(spans) != 10 {
		t.Fatalf("received %d spans (%d events), want 2 events of 4 hooks each", len(spans), len(events))
	}
	hooksOf := map[string][]telemetry.Span{}
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "hook ") {
			parent, ok := byID[s.ParentSpanID]
			if !ok || parent.Name != "PreExecutionEnd" || parent.TraceID != s.TraceID {
				t.Errorf("hook span %s is not a child of its event's span", s.Name)
			}
			hooksOf[s.ParentSpanID] = append(hooksOf[s.ParentSpanID], s)
		}
	}
	for _, ev := range events {
		if attr(ev.Attributes, "gen_ai.tool.call.id") != "toolu_1" || attr(ev.Attributes, "agent_hooks.blocked") != "true" || !strings.HasPrefix(attr(ev.Attributes, "agent_hooks.session.id"), "session-") {
			t.Errorf("event span attributes = %+v", ev.Attributes)
		}
		status := map[string]string{}
		for _, h := range hooksOf[ev.SpanID] {
			status[attr(h.Attributes, "agent_hooks.hook.name")] = attr(h.Attributes, "agent_hooks.hook.status")
			if (h.Status.Code == telemetry.StatusError) != (h.Name == "hook flaky") {
				t.Errorf("%s: status %+v", h.Name, h.Status)
			}
		}
		if want := map[string]string{"traced": "ok", "off": "skipped", "flaky": "error", "gate": "blocked"}; fmt.Sprint(status) != fmt.Sprint(want) {
			t.Errorf("hook statuses = %v, want %v", status, want)
		}
	}
	// The second event continues the caller's trace.
	var continued int
	for _, ev := range events {
		if ev.TraceID == parentTrace && ev.ParentSpanID == parentSpan {
			continued++
		}
	}
	if continued != 1 {
		t.Errorf("%d event spans under the incoming TRACEPARENT, want 1", continued)
	}
	// Every audit line is a log record in its hook's span.
	if len(logs) != 8 {
		t.Errorf("received %d log records, want 8", len(logs))
	}
	for _, l := range logs {
		s, ok := byID[l.SpanID]
		if !ok || !strings.HasPrefix(s.Name, "hook ") || l.TraceID != s.TraceID || attr(l.Attributes, "agent_hooks.hook.name") != strings.TrimPrefix(s.Name, "hook ") {
			t.Errorf("log record %+v is not in its hook's span", l)
		}
	}
	// The hook process got its own span as TRACEPARENT.
	b, err := os.ReadFile(filepath.Join(root, "traceparent.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range strings.Fields(string(b)) {
		parts := strings.Split(tp, "-")
		s, ok := byID[parts[2]]
		if len(parts) != 4 || !ok || s.Name != "hook traced" || s.TraceID != parts[1] {
			t.Errorf("TRACEPARENT %s does not name the hook's span", tp)
		}
	}
}
