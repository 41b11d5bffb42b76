package ship

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"

	"github.com/autoagent/agent-hooks/internal/telemetry"
	"github.com/autoagent/agent-hooks/runner"
)

// receiver is an OTLP/HTTP endpoint on 127.0.0.1 in the test's own process: it decodes the
// exporters' protobuf requests (/v1/traces, /v1/logs) as a collector's OTLP receiver does, and
// keeps what they carried. status, when set, answers every request with that HTTP status instead.
type receiver struct {
	mu       sync.Mutex
	spans    []telemetry.Span
	logs     []telemetry.LogRecord
	resource []telemetry.KeyValue
	requests int
	status   int
}

// startReceiver serves r on 127.0.0.1:port (0: any free port) and returns its port.
func startReceiver(t *testing.T, r *receiver, port int) int {
	t.Helper()
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(r)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return l.Addr().(*net.TCPAddr).Port
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	if r.status != 0 {
		http.Error(w, "refused", r.status)
		return
	}
	if err != nil || req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf POST", http.StatusUnsupportedMediaType)
		return
	}
	var answer proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		var in coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range in.ResourceSpans {
			r.resource = keyValues(rs.GetResource().GetAttributes())
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					r.spans = append(r.spans, telemetry.Span{
						TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId),
						ParentSpanID: hex.EncodeToString(s.ParentSpanId), Name: s.Name, Kind: int(s.Kind),
						StartTimeUnixNano: telemetry.Uint64(s.StartTimeUnixNano), EndTimeUnixNano: telemetry.Uint64(s.EndTimeUnixNano),
						Attributes: keyValues(s.Attributes),
						Status:     telemetry.SpanStatus{Code: int(s.GetStatus().GetCode()), Message: s.GetStatus().GetMessage()},
					})
				}
			}
		}
		answer = &coltracepb.ExportTraceServiceResponse{}
	case "/v1/logs":
		var in collogspb.ExportLogsServiceRequest
		if err := proto.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rl := range in.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, l := range sl.LogRecords {
					r.logs = append(r.logs, telemetry.LogRecord{
						TimeUnixNano: telemetry.Uint64(l.TimeUnixNano), SeverityNumber: int(l.SeverityNumber), SeverityText: l.SeverityText,
						EventName: l.EventName, Attributes: keyValues(l.Attributes),
						TraceID: hex.EncodeToString(l.TraceId), SpanID: hex.EncodeToString(l.SpanId),
					})
				}
			}
		}
		answer = &collogspb.ExportLogsServiceResponse{}
	default:
		http.NotFound(w, req)
		return
	}
	b, err := proto.Marshal(answer)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(b)
}

func (r *receiver) received() ([]telemetry.Span, []telemetry.LogRecord, []telemetry.KeyValue) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spans, r.logs, r.resource
}

func keyValues(kvs []*commonpb.KeyValue) []telemetry.KeyValue {
	var out []telemetry.KeyValue
	for _, kv := range kvs {
		var v telemetry.AnyValue
		switch x := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			v.StringValue = &x.StringValue
		case *commonpb.AnyValue_IntValue:
			i := telemetry.Int64(x.IntValue)
			v.IntValue = &i
		case *commonpb.AnyValue_BoolValue:
			v.BoolValue = &x.BoolValue
		case *commonpb.AnyValue_DoubleValue:
			v.DoubleValue = &x.DoubleValue
		}
		out = append(out, telemetry.KeyValue{Key: kv.Key, Value: v})
	}
	return out
}

// TestShipToAnOTLPReceiver is TestShipToARealCollector's scenario (kept while down, the backoff,
// everything delivered once up, spans and log records in their places) against an OTLP/HTTP
// receiver in this process: the shipper's logic without building a collector.
func TestShipToAnOTLPReceiver(t *testing.T) {
	t.Parallel()
	shipScenario(t, func(t *testing.T, port int) func() ([]telemetry.Span, []telemetry.LogRecord, []telemetry.KeyValue) {
		r := &receiver{}
		startReceiver(t, r, port)
		return r.received
	})
}

// TestShipMovesARefusedBatchAside: a batch the collector refuses as malformed (400) is moved to
// rejected/ and not sent again; the next batches still go, and no backoff starts.
func TestShipMovesARefusedBatchAside(t *testing.T) {
	t.Parallel()
	r := &receiver{status: http.StatusBadRequest}
	port := startReceiver(t, r, 0)
	home := spoolBatch(t, fmt.Sprintf("http://127.0.0.1:%d", port))
	rep, err := Ship(context.Background(), Options{Home: home, Timeout: 5 * time.Second})
	if err != nil || rep.Rejected != 1 || rep.Shipped != 0 || rep.Kept != 0 || len(rep.Errors) != 0 {
		t.Fatalf("ship to a collector that refuses the batch = %+v, %v; want it rejected", rep, err)
	}
	parts, err := telemetry.Partitions(home)
	if err != nil || len(parts) != 1 {
		t.Fatalf("partitions: %v %v", parts, err)
	}
	aside, _ := filepath.Glob(filepath.Join(parts[0].Dir, "rejected", "*"))
	if b, _ := parts[0].Batches(); len(b) != 0 || len(aside) != 1 {
		t.Errorf("spool %v, rejected/ %v; want the batch moved aside", b, aside)
	}
	if st := telemetry.ReadState(parts[0].Dir); st.Failures != 0 || !st.Retry.IsZero() {
		t.Errorf("state after a refusal = %+v, want no backoff", st)
	}
	before := r.requests
	if rep, _ := Ship(context.Background(), Options{Home: home, Timeout: 5 * time.Second}); rep.Rejected != 0 || r.requests != before {
		t.Errorf("the refused batch was sent again: %+v", rep)
	}
	if _, err := os.Stat(aside[0]); err != nil {
		t.Errorf("the refused batch is gone: %v", err)
	}
}

// spoolBatch fires one event of a workspace whose telemetry goes to endpoint, and returns the
// AUTOAGENT_HOME whose spool holds its batch.
func spoolBatch(t *testing.T, endpoint string) string {
	t.Helper()
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	config := fmt.Sprintf(`{"telemetry": {"endpoint": %q}, "hooks": {"PreExecutionEnd": [{"name": "ok", "command": "true"}]}}`, endpoint)
	if err := os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &runner.Runner{Getenv: func(string) string { return "" }, Environ: []string{"PATH=" + os.Getenv("PATH")},
		Cwd: ws, AutoagentHome: home, Version: "test"}
	if _, err := r.Fire(context.Background(), runner.Request{Event: "PreExecutionEnd", CaptureStdout: true}); err != nil {
		t.Fatal(err)
	}
	return home
}
