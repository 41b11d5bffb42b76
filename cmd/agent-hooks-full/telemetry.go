package main

import (
	"errors"
	"fmt"
	"os/exec"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/internal/redact"
	"github.com/autoagent/agent-hooks/internal/telemetry"
)

func (a *app) newTelemetryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "telemetry",
		Short: "Ship or inspect the OpenTelemetry spool",
		Long: `With telemetry configured (OTEL_EXPORTER_OTLP_ENDPOINT, or "telemetry": {"endpoint":
"http://collector:4318"} in config.json), every event is a span, every hook a child span and
every audit line a log record. They are written to a spool under
$AUTOAGENT_HOME/telemetry/spool as OTLP/JSON, never sent while a hook waits, and shipped by
agent-hooks-otel (installed next to agent-hooks), which agent-hooks starts in the background
after events and at session end. A collector that is down loses nothing: the spool keeps
what it did not take.`,
		Example: `  agent-hooks telemetry status
  agent-hooks telemetry ship`,
	}
	cmd.AddCommand(a.newTelemetryShipCmd(), a.newTelemetryStatusCmd())
	return cmd
}

func (a *app) newTelemetryShipCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "ship",
		Short: "Ship the spool now and wait (as a last CI step, say)",
		Long: `Run agent-hooks-otel on the spool now, in the foreground, ignoring any backoff after
failures, and report what it shipped and kept. Exits 1 when a collector could not be reached
(the spool keeps the batches).`,
		Example: `  # the last step of a CI job, whose runner goes away with its spool
  agent-hooks telemetry ship`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := a.AutoagentHome()
			if err != nil {
				return err
			}
			shipper := telemetry.FindShipper(a.Executable)
			if shipper == "" {
				return fmt.Errorf("%s is not installed next to agent-hooks nor on PATH (go install github.com/autoagent/agent-hooks/cmd/%s@latest)", telemetry.ShipperName, telemetry.ShipperName)
			}
			c := exec.CommandContext(cmd.Context(), shipper, "ship", "--home", home, "--now")
			c.Env, c.Stdout, c.Stderr = a.Environ, a.Stdout, a.Stderr
			err = c.Run()
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return &cli.SilentError{Code: cli.ExitFailure}
			}
			return err
		},
	}
}

func (a *app) newTelemetryStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "status",
		Short:   "Show the spool: batches waiting per collector, failures, next retry",
		Example: "  agent-hooks telemetry status",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := a.AutoagentHome()
			if err != nil {
				return err
			}
			parts, err := telemetry.Partitions(home)
			if err != nil {
				return err
			}
			if len(parts) == 0 {
				_, err := fmt.Fprintln(a.Stdout, "the telemetry spool is empty")
				return err
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TRACES ENDPOINT\tWAITING\tFAILURES\tRETRY\tLAST ERROR")
			for _, p := range parts {
				batches, err := p.Batches()
				if err != nil {
					return err
				}
				s := telemetry.ReadState(p.Dir)
				retry := "-"
				if !s.Retry.IsZero() {
					retry = s.Retry.UTC().Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", redact.URL(p.Destination.TracesURL), len(batches), s.Failures, retry, sessDash(s.Error))
			}
			return tw.Flush()
		},
	}
}
