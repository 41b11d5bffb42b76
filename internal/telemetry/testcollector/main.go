// Command testcollector is an OpenTelemetry Collector for agent-hooks' tests: the collector's own
// OTLP receiver (HTTP on the address the configuration names), and a "jsonfile" exporter that
// appends what it received to a file as OTLP/JSON, one request a line, for the tests to read.
//
// It is a module of its own so that the collector's dependencies stay out of agent-hooks' go.mod;
// the tests build it with `go build` into a temporary directory (see internal/telemetry/ship).
package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func main() {
	set := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "testcollector", Description: "agent-hooks test collector", Version: "0.150.0"},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()}, DefaultScheme: "file"},
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "testcollector:", err)
		os.Exit(1)
	}
}

func factories() (otelcol.Factories, error) {
	var f otelcol.Factories
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap(otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	if f.Exporters, err = otelcol.MakeFactoryMap(newJSONFileFactory()); err != nil {
		return f, err
	}
	f.Telemetry = otelconftelemetry.NewFactory()
	return f, nil
}

// jsonFileConfig is the "jsonfile" exporter's configuration.
type jsonFileConfig struct {
	Path string `mapstructure:"path"`
}

func newJSONFileFactory() exporter.Factory {
	return exporter.NewFactory(component.MustNewType("jsonfile"),
		func() component.Config { return &jsonFileConfig{} },
		exporter.WithTraces(createTraces, component.StabilityLevelDevelopment),
		exporter.WithLogs(createLogs, component.StabilityLevelDevelopment))
}

// files serialises the appends of the traces and logs pipelines to one file.
var files sync.Mutex

func appendLine(path string, line []byte) error {
	files.Lock()
	defer files.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func createTraces(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Traces, error) {
	path := cfg.(*jsonFileConfig).Path
	var m ptrace.JSONMarshaler
	return exporterhelper.NewTraces(ctx, set, cfg, func(_ context.Context, td ptrace.Traces) error {
		b, err := m.MarshalTraces(td)
		if err != nil {
			return err
		}
		return appendLine(path, b)
	})
}

func createLogs(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Logs, error) {
	path := cfg.(*jsonFileConfig).Path
	var m plog.JSONMarshaler
	return exporterhelper.NewLogs(ctx, set, cfg, func(_ context.Context, ld plog.Logs) error {
		b, err := m.MarshalLogs(ld)
		if err != nil {
			return err
		}
		return appendLine(path, b)
	})
}
