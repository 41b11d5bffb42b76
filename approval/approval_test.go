package approval

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
)

// fixedProvider answers every request with one outcome.
type fixedProvider struct{ out hooks.Outcome }

func (p fixedProvider) Configure(*hooks.Hook, json.RawMessage) (hooks.Task, error) {
	return hooks.TaskFunc(func(context.Context, *hooks.Invocation) hooks.Outcome { return p.out }), nil
}

// TestOnlyADecisionApproves: whatever a provider answers, the approval type lets the event
// proceed only on an explicit approval; an error, a timeout of the engine or an answer without a
// decision blocks, with the provider's reason.
func TestOnlyADecisionApproves(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		out        hooks.Outcome
		wantStatus hooks.Status
		wantReason string
	}{
		{"approved", hooks.Outcome{Status: hooks.StatusOK, Decision: hooks.DecisionApprove, Reason: "approved by ann"}, hooks.StatusOK, "approved by ann"},
		{"rejected", hooks.Outcome{Status: hooks.StatusBlocked, Decision: hooks.DecisionBlock, Reason: "rejected by ann"}, hooks.StatusBlocked, "rejected by ann"},
		{"error", hooks.Outcome{Status: hooks.StatusError, Reason: "store broken"}, hooks.StatusBlocked, "fixed approval could not be decided: store broken"},
		{"timeout", hooks.Outcome{Status: hooks.StatusTimeout, Reason: "timed out"}, hooks.StatusBlocked, "fixed approval could not be decided: timed out"},
		{"nothing", hooks.Outcome{}, hooks.StatusBlocked, `fixed approval could not be decided: the provider answered without a decision`},
		{"ok without approve", hooks.Outcome{Status: hooks.StatusOK}, hooks.StatusBlocked, `fixed approval could not be decided: the provider answered without a decision`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := &hooks.Hook{Name: "gate", Type: TypeName, Event: hooks.PreExecutionEnd}
			r, err := NewType(map[string]Provider{"fixed": fixedProvider{tt.out}}).Configure(h, json.RawMessage(`{"provider": "fixed"}`))
			if err != nil {
				t.Fatal(err)
			}
			out := r.Run(context.Background(), &hooks.Invocation{Hook: h, Event: h.Event})
			if out.Status != tt.wantStatus || out.Reason != tt.wantReason {
				t.Errorf("got %s %q, want %s %q", out.Status, out.Reason, tt.wantStatus, tt.wantReason)
			}
			if tt.wantStatus == hooks.StatusBlocked && out.Decision != hooks.DecisionBlock {
				t.Errorf("decision %q, want block", out.Decision)
			}
		})
	}
}

// TestDecideBy: the wait ends at the hook's timeout, or a little before the caller's deadline —
// by a part of the time left, so that a caller with a short deadline (an agent's timeout of a few
// seconds) still waits most of it, instead of not at all.
func TestDecideBy(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		timeout  time.Duration
		deadline time.Duration // after start; 0: none
		want     time.Duration
	}{
		{"the hook's timeout", 30 * time.Second, 0, 30 * time.Second},
		{"the default timeout", 0, 0, hooks.DefaultTimeout},
		{"the engine's deadline at the hook's timeout", 30 * time.Second, 30 * time.Second, 28 * time.Second},
		{"a long hook timeout, a long caller deadline", time.Hour, 10 * time.Minute, 10*time.Minute - 2*time.Second},
		{"a long hook timeout, a caller deadline of seconds", 10 * time.Minute, 1750 * time.Millisecond, 1575 * time.Millisecond},
	} {
		ctx := context.Background()
		if tt.deadline > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, start.Add(tt.deadline))
			defer cancel()
		}
		if got := DecideBy(ctx, &hooks.Hook{Timeout: tt.timeout}, start).Sub(start); got != tt.want {
			t.Errorf("%s: waits %s, want %s", tt.name, got, tt.want)
		}
	}
}
