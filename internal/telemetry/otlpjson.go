package telemetry

import (
	"encoding/json"
	"strconv"
)

// The spool holds OTLP/JSON (the JSON encoding of OTLP's ExportTraceServiceRequest and
// ExportLogsServiceRequest, as a collector's OTLP/HTTP receiver takes it and its file exporter
// writes it): these types are that encoding, for the gate to write without the OpenTelemetry SDK
// and the shipper to read back. Ids are hex, 64-bit integers and times are decimal strings.

// TracesData is an ExportTraceServiceRequest.
type TracesData struct {
	ResourceSpans []ResourceSpans `json:"resourceSpans"`
}

// LogsData is an ExportLogsServiceRequest.
type LogsData struct {
	ResourceLogs []ResourceLogs `json:"resourceLogs"`
}

// ResourceSpans are the spans of one resource.
type ResourceSpans struct {
	Resource   Resource     `json:"resource"`
	ScopeSpans []ScopeSpans `json:"scopeSpans"`
}

// ResourceLogs are the log records of one resource.
type ResourceLogs struct {
	Resource  Resource    `json:"resource"`
	ScopeLogs []ScopeLogs `json:"scopeLogs"`
}

// Resource is what produced the telemetry.
type Resource struct {
	Attributes []KeyValue `json:"attributes"`
}

// Scope is the instrumentation scope.
type Scope struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// ScopeSpans are the spans of one scope.
type ScopeSpans struct {
	Scope Scope  `json:"scope"`
	Spans []Span `json:"spans"`
}

// ScopeLogs are the log records of one scope.
type ScopeLogs struct {
	Scope      Scope       `json:"scope"`
	LogRecords []LogRecord `json:"logRecords"`
}

// Span kinds and status codes of OTLP.
const (
	SpanKindInternal = 1
	StatusUnset      = 0
	StatusOK         = 1
	StatusError      = 2
)

// Span is one OTLP span.
type Span struct {
	TraceID           string     `json:"traceId"`
	SpanID            string     `json:"spanId"`
	ParentSpanID      string     `json:"parentSpanId,omitempty"`
	Name              string     `json:"name"`
	Kind              int        `json:"kind"`
	StartTimeUnixNano Uint64     `json:"startTimeUnixNano"`
	EndTimeUnixNano   Uint64     `json:"endTimeUnixNano"`
	Attributes        []KeyValue `json:"attributes,omitempty"`
	Status            SpanStatus `json:"status"`
}

// SpanStatus is a span's status.
type SpanStatus struct {
	Code    int    `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// Severity numbers of OTLP log records.
const (
	SeverityInfo  = 9
	SeverityWarn  = 13
	SeverityError = 17
)

// LogRecord is one OTLP log record.
type LogRecord struct {
	TimeUnixNano         Uint64     `json:"timeUnixNano"`
	ObservedTimeUnixNano Uint64     `json:"observedTimeUnixNano"`
	SeverityNumber       int        `json:"severityNumber"`
	SeverityText         string     `json:"severityText"`
	EventName            string     `json:"eventName,omitempty"`
	Body                 AnyValue   `json:"body"`
	Attributes           []KeyValue `json:"attributes,omitempty"`
	TraceID              string     `json:"traceId,omitempty"`
	SpanID               string     `json:"spanId,omitempty"`
}

// KeyValue is an attribute.
type KeyValue struct {
	Key   string   `json:"key"`
	Value AnyValue `json:"value"`
}

// AnyValue is an attribute value: one of its fields is set.
type AnyValue struct {
	StringValue *string  `json:"stringValue,omitempty"`
	BoolValue   *bool    `json:"boolValue,omitempty"`
	IntValue    *Int64   `json:"intValue,omitempty"`
	DoubleValue *float64 `json:"doubleValue,omitempty"`
}

// Str, Int and Bool make attributes.
func Str(k, v string) KeyValue { return KeyValue{Key: k, Value: AnyValue{StringValue: &v}} }

// Int is an integer attribute.
func Int(k string, v int64) KeyValue {
	i := Int64(v)
	return KeyValue{Key: k, Value: AnyValue{IntValue: &i}}
}

// Bool is a boolean attribute.
func Bool(k string, v bool) KeyValue { return KeyValue{Key: k, Value: AnyValue{BoolValue: &v}} }

// Uint64 is a 64-bit unsigned integer, a decimal string in OTLP/JSON (a number is accepted too).
type Uint64 uint64

// MarshalJSON writes a string.
func (u Uint64) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, strconv.FormatUint(uint64(u), 10)), nil
}

// UnmarshalJSON reads a string or a number.
func (u *Uint64) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		s = string(b)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	*u = Uint64(n)
	return err
}

// Int64 is a 64-bit integer, a decimal string in OTLP/JSON (a number is accepted too).
type Int64 int64

// MarshalJSON writes a string.
func (i Int64) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, strconv.FormatInt(int64(i), 10)), nil
}

// UnmarshalJSON reads a string or a number.
func (i *Int64) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		s = string(b)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	*i = Int64(n)
	return err
}
