// Package ship sends the telemetry spool (see package telemetry) to its collectors with the
// OpenTelemetry SDK's OTLP/HTTP exporters. It is linked only into agent-hooks-otel: the SDK, the
// exporters and the protobuf and gRPC packages they bring cost every process that links them
// milliseconds of start-up, which agent-hooks itself, called on every tool call, must not pay.
//
// Each batch leaves the spool only once both its spans and its log records were exported; a
// collector that is down keeps its batches for the next run, which waits a backoff (5 s doubling
// to 5 min) first. A batch the collector refuses as malformed (HTTP 400) is moved aside to
// rejected/, never retried and never lost.
package ship

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
	"github.com/autoagent/agent-hooks/internal/telemetry"
)

// Options say what to ship.
type Options struct {
	Home string // AUTOAGENT_HOME
	// Timeout bounds one export, its retries included (default 10 s).
	Timeout time.Duration
	// IgnoreBackoff ships even while a backoff after failures is running (a person asking).
	IgnoreBackoff bool
	Now           func() time.Time
}

// Report is what a run shipped.
type Report struct {
	Shipped  int     // batches exported and removed from the spool
	Kept     int     // batches left for a later run
	Rejected int     // batches the collector refused, moved to rejected/
	Errors   []error // one per destination that failed
}

// Ship exports every destination's batches, oldest first. It stops at a destination's first
// failure (the collector is down: the rest would fail too) and goes on with the next.
func Ship(ctx context.Context, o Options) (*Report, error) {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	parts, err := telemetry.Partitions(o.Home)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	for _, p := range parts {
		err := atomicfile.WithLock(filepath.Join(p.Dir, ".lock"), func() error { return shipPartition(ctx, p, o, rep) })
		if err != nil {
			rep.Errors = append(rep.Errors, fmt.Errorf("%s: %w", p.Destination.TracesURL, err))
		}
	}
	return rep, nil
}

func shipPartition(ctx context.Context, p telemetry.Partition, o Options, rep *Report) error {
	batches, err := p.Batches()
	if err != nil || len(batches) == 0 {
		return err
	}
	state := telemetry.ReadState(p.Dir)
	if !o.IgnoreBackoff && o.Now().Before(state.Retry) {
		rep.Kept += len(batches)
		return nil
	}
	retry := otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 250 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: o.Timeout}
	topts := []otlptracehttp.Option{otlptracehttp.WithTimeout(o.Timeout), otlptracehttp.WithRetry(retry)}
	lopts := []otlploghttp.Option{otlploghttp.WithTimeout(o.Timeout), otlploghttp.WithRetry(otlploghttp.RetryConfig(retry))}
	if d := p.Destination; d.TracesURL != "" {
		topts = append(topts, otlptracehttp.WithEndpointURL(d.TracesURL), otlptracehttp.WithHeaders(d.Headers))
	}
	if d := p.Destination; d.LogsURL != "" {
		lopts = append(lopts, otlploghttp.WithEndpointURL(d.LogsURL), otlploghttp.WithHeaders(d.Headers))
	}
	texp, err := otlptracehttp.New(ctx, topts...)
	if err != nil {
		return err
	}
	defer texp.Shutdown(context.Background())
	lexp, err := otlploghttp.New(ctx, lopts...)
	if err != nil {
		return err
	}
	defer lexp.Shutdown(context.Background())

	for i, path := range batches {
		err := shipBatch(ctx, path, p.Destination, texp, lexp)
		switch {
		case err == nil:
			if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				return rerr
			}
			rep.Shipped++
		case rejected(err):
			if merr := moveAside(p.Dir, path); merr != nil {
				return merr
			}
			rep.Rejected++
		default:
			rep.Kept += len(batches) - i
			state.Failures++
			state.Retry = o.Now().Add(telemetry.Backoff(state.Failures))
			state.Error = err.Error()
			_ = telemetry.WriteState(p.Dir, state)
			return err
		}
	}
	state.Failures, state.Retry, state.Error = 0, time.Time{}, ""
	return telemetry.WriteState(p.Dir, state)
}

// rejected reports a collector's refusal of the data itself (HTTP 400): sending it again would
// not help.
func rejected(err error) bool {
	return strings.Contains(err.Error(), "400 Bad Request")
}

func moveAside(dir, path string) error {
	aside := filepath.Join(dir, "rejected")
	if err := os.MkdirAll(aside, 0o700); err != nil {
		return err
	}
	return os.Rename(path, filepath.Join(aside, filepath.Base(path)))
}

// shipBatch exports one spool file: its spans, then its log records.
func shipBatch(ctx context.Context, path string, d telemetry.Destination, texp *otlptrace.Exporter, lexp *otlploghttp.Exporter) error {
	traces, logs, err := telemetry.ReadBatch(path)
	if err != nil {
		return err
	}
	if spans := toSpans(traces); len(spans) > 0 && d.TracesURL != "" {
		if err := texp.ExportSpans(ctx, spans); err != nil {
			return fmt.Errorf("export spans: %w", err)
		}
	}
	records, err := toRecords(ctx, logs)
	if err != nil {
		return err
	}
	if len(records) > 0 && d.LogsURL != "" {
		if err := lexp.Export(ctx, records); err != nil {
			return fmt.Errorf("export logs: %w", err)
		}
	}
	return nil
}

func toSpans(td telemetry.TracesData) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, rs := range td.ResourceSpans {
		res := resource.NewSchemaless(attributes(rs.Resource.Attributes)...)
		for _, ss := range rs.ScopeSpans {
			scope := instrumentation.Scope{Name: ss.Scope.Name, Version: ss.Scope.Version}
			for _, s := range ss.Spans {
				tid, sid := traceID(s.TraceID), spanID(s.SpanID)
				stub := tracetest.SpanStub{
					Name:                 s.Name,
					SpanContext:          trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}),
					SpanKind:             trace.SpanKindInternal,
					StartTime:            time.Unix(0, int64(s.StartTimeUnixNano)),
					EndTime:              time.Unix(0, int64(s.EndTimeUnixNano)),
					Attributes:           attributes(s.Attributes),
					Resource:             res,
					InstrumentationScope: scope,
				}
				if s.ParentSpanID != "" {
					stub.Parent = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: spanID(s.ParentSpanID), TraceFlags: trace.FlagsSampled, Remote: true})
				}
				if s.Status.Code == telemetry.StatusError {
					stub.Status = sdktrace.Status{Code: codes.Error, Description: s.Status.Message}
				}
				out = append(out, stub.Snapshot())
			}
		}
	}
	return out
}

// collector is a log processor that keeps the records emitted to it, so that they are exported
// here, where a failure can keep the batch.
type collector struct{ records []sdklog.Record }

func (c *collector) OnEmit(_ context.Context, r *sdklog.Record) error {
	c.records = append(c.records, r.Clone())
	return nil
}
func (c *collector) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (c *collector) Shutdown(context.Context) error                         { return nil }
func (c *collector) ForceFlush(context.Context) error                       { return nil }

// toRecords makes SDK log records of the spool's, through a logger provider of their resource,
// with their span context.
func toRecords(ctx context.Context, ld telemetry.LogsData) ([]sdklog.Record, error) {
	var out []sdklog.Record
	for _, rl := range ld.ResourceLogs {
		c := &collector{}
		lp := sdklog.NewLoggerProvider(sdklog.WithResource(resource.NewSchemaless(attributes(rl.Resource.Attributes)...)), sdklog.WithProcessor(c))
		for _, sl := range rl.ScopeLogs {
			logger := lp.Logger(sl.Scope.Name, otellog.WithInstrumentationVersion(sl.Scope.Version))
			for _, l := range sl.LogRecords {
				var r otellog.Record
				r.SetTimestamp(time.Unix(0, int64(l.TimeUnixNano)))
				r.SetObservedTimestamp(time.Unix(0, int64(l.ObservedTimeUnixNano)))
				r.SetSeverity(otellog.Severity(l.SeverityNumber))
				r.SetSeverityText(l.SeverityText)
				r.SetEventName(l.EventName)
				if l.Body.StringValue != nil {
					r.SetBody(attribute.StringValue(*l.Body.StringValue))
				}
				r.AddAttributes(attributes(l.Attributes)...)
				lctx := ctx
				if l.TraceID != "" && l.SpanID != "" {
					lctx = trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
						TraceID: traceID(l.TraceID), SpanID: spanID(l.SpanID), TraceFlags: trace.FlagsSampled}))
				}
				logger.Emit(lctx, r)
			}
		}
		if err := lp.Shutdown(ctx); err != nil {
			return nil, err
		}
		out = append(out, c.records...)
	}
	return out, nil
}

func attributes(kvs []telemetry.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		v := kv.Value
		switch {
		case v.StringValue != nil:
			out = append(out, attribute.String(kv.Key, *v.StringValue))
		case v.IntValue != nil:
			out = append(out, attribute.Int64(kv.Key, int64(*v.IntValue)))
		case v.BoolValue != nil:
			out = append(out, attribute.Bool(kv.Key, *v.BoolValue))
		case v.DoubleValue != nil:
			out = append(out, attribute.Float64(kv.Key, *v.DoubleValue))
		}
	}
	return out
}

func traceID(s string) trace.TraceID {
	var id trace.TraceID
	_, _ = hex.Decode(id[:], []byte(s))
	return id
}

func spanID(s string) trace.SpanID {
	var id trace.SpanID
	_, _ = hex.Decode(id[:], []byte(s))
	return id
}
