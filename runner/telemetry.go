package runner

import (
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/telemetry"
)

// telemetryDestination reads the "telemetry" sections of the configuration (the user's, then the
// project's over it) and the OTEL_* environment: nil when telemetry is off.
func (r *Runner) telemetryDestination(cfg *hooks.Config) (*telemetry.Destination, error) {
	tc, err := telemetryConfig(cfg)
	if err != nil {
		return nil, err
	}
	return telemetry.Resolve(tc, r.Getenv)
}

func telemetryConfig(cfg *hooks.Config) (telemetry.Config, error) {
	var tc telemetry.Config
	err := decodeSections(cfg, "telemetry", &tc)
	return tc, err
}

// recorder is the telemetry recorder of one fired event, nil when telemetry is off.
func (r *Runner) recorder(cfg *hooks.Config, dest *telemetry.Destination, sessionID string) *telemetry.Recorder {
	if dest == nil {
		return nil
	}
	tc, _ := telemetryConfig(cfg) // read without error by telemetryDestination
	return telemetry.NewRecorder(telemetry.RecorderOptions{
		Config: tc, Destination: dest, AutoagentHome: r.AutoagentHome, SessionID: sessionID,
		Getenv: r.Getenv, Now: r.Now, Version: r.Version,
	})
}

// ship writes what rec recorded to the spool and, when it is time (or now, at session end),
// starts the shipper, detached: the event never waits on the network. A telemetry failure is a
// warning; it never changes the event's outcome.
func (r *Runner) ship(rec *telemetry.Recorder, now bool) {
	if rec == nil {
		return
	}
	if err := rec.Flush(); err != nil {
		r.Warn("%v", err)
		return
	}
	if !rec.ShouldShip(now) {
		return
	}
	shipper := telemetry.FindShipper(r.Executable)
	if shipper == "" {
		if now {
			r.Warn("telemetry: %s is not installed next to agent-hooks nor on PATH; the spool in %s waits for it (go install github.com/autoagent/agent-hooks/cmd/%s@latest)",
				telemetry.ShipperName, telemetry.SpoolDir(r.AutoagentHome), telemetry.ShipperName)
		}
		return
	}
	if err := rec.StartShipper(shipper, r.AutoagentHome, r.Environ); err != nil {
		r.Warn("telemetry: %v", err)
	}
}
