// Command agent-hooks-otel ships agent-hooks' telemetry spool ($AUTOAGENT_HOME/telemetry/spool)
// to OpenTelemetry collectors with the OTLP/HTTP exporters. agent-hooks starts it, detached,
// after events and at session end; `agent-hooks telemetry ship` runs it and waits.
//
// It is a program of its own so that the OpenTelemetry SDK's start-up cost stays out of
// agent-hooks, which agents call on every tool call.
//
// Usage: agent-hooks-otel ship [--home DIR] [--now] [--timeout DURATION]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/autoagent/agent-hooks/internal/telemetry/ship"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 || args[0] != "ship" {
		fmt.Fprintln(stderr, "usage: agent-hooks-otel ship [--home DIR] [--now] [--timeout DURATION]")
		return 2
	}
	fs := flag.NewFlagSet("ship", flag.ContinueOnError)
	fs.SetOutput(stderr)
	home := fs.String("home", "", "AUTOAGENT_HOME whose spool to ship (default $AUTOAGENT_HOME, else ~/.autoagent)")
	now := fs.Bool("now", false, "ship even while a backoff after failures is running")
	timeout := fs.Duration("timeout", 10*time.Second, "bound of one export, retries included")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *home == "" {
		*home = getenv("AUTOAGENT_HOME")
	}
	if *home == "" {
		h := getenv("HOME")
		if h == "" {
			fmt.Fprintln(stderr, "agent-hooks-otel: cannot find the home directory: set HOME or AUTOAGENT_HOME")
			return 1
		}
		*home = filepath.Join(h, ".autoagent")
	}
	rep, err := ship.Ship(ctx, ship.Options{Home: *home, Timeout: *timeout, IgnoreBackoff: *now})
	if err != nil {
		fmt.Fprintf(stderr, "agent-hooks-otel: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "shipped %d batch(es), kept %d, rejected %d\n", rep.Shipped, rep.Kept, rep.Rejected)
	for _, e := range rep.Errors {
		fmt.Fprintf(stderr, "agent-hooks-otel: %v (kept in the spool)\n", e)
	}
	if len(rep.Errors) > 0 {
		return 1
	}
	return 0
}
