// Package telemetry records what agent-hooks does as OpenTelemetry traces and logs, without the
// OpenTelemetry SDK: every event is a span and every hook a child span, every audit line a log
// record, written as OTLP/JSON to a spool under $AUTOAGENT_HOME/telemetry/spool, one file per
// fired event. A gate never waits on the network: the spool is shipped by agent-hooks-otel (the
// SDK's OTLP/HTTP exporters, in a binary of its own so that their start-up cost stays out of
// every hook call), started detached after an event at most every ShipInterval, and at session
// end. A collector that is down loses nothing: a batch leaves the spool only once exported.
//
// Configured by the standard OTEL_EXPORTER_OTLP_* variables and by the "telemetry" key of
// config.json, which wins (agent hosts such as Claude Code strip OTEL_* from hook environments).
package telemetry

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
)

// Config is the "telemetry" key of config.json.
type Config struct {
	// Enabled false turns telemetry off even where OTEL_EXPORTER_OTLP_* is set.
	Enabled *bool `json:"enabled,omitempty"`
	// Endpoint is the collector's OTLP/HTTP base URL (http://host:4318): traces go to
	// <Endpoint>/v1/traces, logs to <Endpoint>/v1/logs (OTEL_EXPORTER_OTLP_ENDPOINT).
	Endpoint string `json:"endpoint,omitempty"`
	// TracesEndpoint and LogsEndpoint are full URLs for one signal
	// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT).
	TracesEndpoint string `json:"tracesEndpoint,omitempty"`
	LogsEndpoint   string `json:"logsEndpoint,omitempty"`
	// Headers are sent with every export (OTEL_EXPORTER_OTLP_HEADERS), such as an API key.
	Headers map[string]string `json:"headers,omitempty"`
	// ServiceName is the resource's service.name (OTEL_SERVICE_NAME; default agent-hooks).
	ServiceName string `json:"serviceName,omitempty"`
	// ResourceAttributes are added to the resource (OTEL_RESOURCE_ATTRIBUTES).
	ResourceAttributes map[string]string `json:"resourceAttributes,omitempty"`
}

// Destination is where telemetry goes, resolved from the configuration and the environment.
type Destination struct {
	TracesURL string            `json:"tracesUrl"`
	LogsURL   string            `json:"logsUrl"`
	Headers   map[string]string `json:"headers,omitempty"`
}

// Key names the destination's spool folder: batches wait there for their own collector.
func (d *Destination) Key() string {
	sum := sha256.Sum256([]byte(d.TracesURL + "\n" + d.LogsURL))
	return hex.EncodeToString(sum[:8])
}

// Resolve is the destination of cfg over the environment, or nil when telemetry is off: no
// endpoint is configured, "enabled" is false, or OTEL_SDK_DISABLED is true.
func Resolve(cfg Config, getenv func(string) string) (*Destination, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if cfg.Enabled != nil && !*cfg.Enabled || strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return nil, nil
	}
	base := first(cfg.Endpoint, getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	traces := first(cfg.TracesEndpoint, getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
	logs := first(cfg.LogsEndpoint, getenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"))
	if base == "" && traces == "" && logs == "" {
		return nil, nil
	}
	if p := getenv("OTEL_EXPORTER_OTLP_PROTOCOL"); p != "" && p != "http/protobuf" && p != "http/json" {
		return nil, fmt.Errorf("telemetry: OTEL_EXPORTER_OTLP_PROTOCOL=%s: agent-hooks exports over OTLP/HTTP (http/protobuf), to port 4318 of a collector", p)
	}
	signal := func(full, path string) (string, error) {
		if full == "" {
			if base == "" {
				return "", nil
			}
			full = strings.TrimRight(base, "/") + path
		}
		u, err := url.Parse(full)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("telemetry: endpoint %q: want an http:// or https:// URL", full)
		}
		return full, nil
	}
	d := &Destination{Headers: map[string]string{}}
	var err error
	if d.TracesURL, err = signal(traces, "/v1/traces"); err != nil {
		return nil, err
	}
	if d.LogsURL, err = signal(logs, "/v1/logs"); err != nil {
		return nil, err
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_HEADERS"} {
		for k, val := range parsePairs(getenv(v)) {
			d.Headers[k] = val
		}
	}
	for k, v := range cfg.Headers {
		d.Headers[k] = v
	}
	return d, nil
}

func first(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// parsePairs reads the k=v,k=v lists of OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES
// (values URL-encoded).
func parsePairs(s string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if dv, err := url.QueryUnescape(strings.TrimSpace(v)); err == nil {
			v = dv
		}
		out[k] = strings.TrimSpace(v)
	}
	return out
}
