package telemetry

import (
	"context"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
)

// BenchmarkEventWithOneHook is what telemetry adds to an event with one hook, in-process: the
// event's and the hook's spans, the hook's log record, the batch written to the spool, and the
// look at the shipper's state (bench/telemetry.sh measures the whole process).
func BenchmarkEventWithOneHook(b *testing.B) {
	home := b.TempDir()
	dest := &Destination{TracesURL: "http://127.0.0.1:9/v1/traces", LogsURL: "http://127.0.0.1:9/v1/logs"}
	h := &hooks.Hook{Name: "check", Type: hooks.TypeCommand, Event: hooks.PreExecutionEnd, Enabled: true}
	payload := hooks.Payload{"sessionId": "session-1700000000000-abcdef", "issueNumber": 7}
	for b.Loop() {
		r := NewRecorder(RecorderOptions{Destination: dest, AutoagentHome: home, SessionID: "session-1700000000000-abcdef"})
		ctx, endEvent := r.StartEvent(context.Background(), hooks.PreExecutionEnd, payload)
		_, _, endHook := r.StartHook(ctx, hooks.PreExecutionEnd, h)
		endHook(&hooks.HookResult{Name: h.Name, Type: h.Type, Source: "project", Format: "native", Status: hooks.StatusOK})
		endEvent(&hooks.Result{Decision: hooks.DecisionApprove}, nil)
		if err := r.Flush(); err != nil {
			b.Fatal(err)
		}
		r.ShouldShip(false)
	}
}
