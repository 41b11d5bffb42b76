package approval

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
)

// agentCall is the payload of an agent's PreToolUse, one attempt of it: the agent gives each
// attempt new ids.
func agentCall(command, attempt string) hooks.Payload {
	input := map[string]any{"command": command, "description": "clean the build"}
	return hooks.Payload{
		"eventName": hooks.PreToolUse, "agent": "claude", "agentSessionId": "sess-1",
		"tool_use_id": "toolu_" + attempt, "toolUseId": "toolu_" + attempt, "prompt_id": "p-" + attempt,
		"tool_name": "Bash", "tool_input": input, "toolName": "Bash", "toolInput": input,
		"toolCall": map[string]any{"tool": "Bash", "command": command, "reason": "clean the build", "cwd": "/w", "input": input},
	}
}

// TestLocalToolCallStaysOpen: a tool call's request that nobody decides within the wait stays
// pending and refuses the call as pending, saying how to decide; the agent's next identical
// call — new ids — picks the decision up, another call (another command, another session) is
// another request, and a decision is never taken for another call.
func TestLocalToolCallStaysOpen(t *testing.T) {
	t.Parallel()
	l := NewLocal(LocalOptions{Dir: t.TempDir(), PollInterval: 10 * time.Millisecond})
	r, h := localRunner(t, l, 100*time.Millisecond, `{"message": "Run it?"}`)
	run := func(p hooks.Payload, session string) hooks.Outcome {
		inv := localInvocation(h, p, io.Discard)
		inv.Event, inv.AsksAgain = hooks.PreToolUse, true
		if session != "" {
			inv.SessionID = session
		}
		return r.Run(context.Background(), inv)
	}

	first := run(agentCall("rm -rf build", "1"), "")
	id, _ := first.Details["requestId"].(string)
	if first.Status != hooks.StatusBlocked || first.Details["pending"] != true ||
		!strings.Contains(first.Reason, "approval "+id+" pending") || !strings.Contains(first.Reason, "agent-hooks approvals approve|reject "+id) {
		t.Fatalf("first call: %s %q %v, want refused as pending, naming the request", first.Status, first.Reason, first.Details)
	}
	req, err := l.Store().Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if req.StateAt(time.Now().Add(time.Hour)) != StatePending || !req.AsksAgain || req.Key == "" {
		t.Errorf("request after the wait: %+v, want it still pending", req)
	}
	if want := "Run it?\n\nTool: Bash\nCommand:\n    rm -rf build\nReason: clean the build"; req.Message != want {
		t.Errorf("message:\n%s\nwant:\n%s", req.Message, want)
	}

	// Another attempt at the same call waits on the same request.
	if out := run(agentCall("rm -rf build", "2"), ""); out.Details["requestId"] != id || out.Details["pending"] != true {
		t.Fatalf("second attempt: %q %v, want pending on %s", out.Reason, out.Details, id)
	}
	if _, err := l.Store().Decide(id, StateApproved, Decision{By: "ann", Via: "cli"}); err != nil {
		t.Fatal(err)
	}
	if out := run(agentCall("rm -rf build", "3"), ""); out.Status != hooks.StatusOK || out.Details["requestId"] != id || out.Details["decider"] != "ann" {
		t.Fatalf("attempt after the approval: %s %q %v, want approved by ann", out.Status, out.Reason, out.Details)
	}

	// The approval approves nothing else.
	for name, try := range map[string]func() hooks.Outcome{
		"another command": func() hooks.Outcome { return run(agentCall("rm -rf /", "4"), "") },
		"another session": func() hooks.Outcome { return run(agentCall("rm -rf build", "5"), "session-2-bbbbbb") },
		"another hook": func() hooks.Outcome {
			r2, h2 := localRunner(t, l, 100*time.Millisecond, `{"message": "Run it?"}`)
			h2.Name = "second opinion"
			inv := localInvocation(h2, agentCall("rm -rf build", "8"), io.Discard)
			inv.Event, inv.AsksAgain = hooks.PreToolUse, true
			return r2.Run(context.Background(), inv)
		},
	} {
		if out := try(); out.Status != hooks.StatusBlocked || out.Details["pending"] != true || out.Details["requestId"] == id {
			t.Errorf("%s: %s %q %v, want a new pending request", name, out.Status, out.Reason, out.Details)
		}
	}

	// A rejection is picked up the same way.
	other := run(agentCall("rm -rf /", "6"), "")
	if _, err := l.Store().Decide(other.Details["requestId"].(string), StateRejected, Decision{By: "ann", Via: "cli", Reason: "no"}); err != nil {
		t.Fatal(err)
	}
	if out := run(agentCall("rm -rf /", "7"), ""); out.Status != hooks.StatusBlocked || out.Reason != "rejected by ann: no" {
		t.Errorf("attempt after the rejection: %s %q, want rejected by ann", out.Status, out.Reason)
	}
}

// TestLocalToolCallTimeoutApprove: timeoutAction approve is the user's explicit choice and still
// applies to a tool call; its request is closed as expired, not left open.
func TestLocalToolCallTimeoutApprove(t *testing.T) {
	t.Parallel()
	l := NewLocal(LocalOptions{Dir: t.TempDir(), PollInterval: 10 * time.Millisecond})
	r, h := localRunner(t, l, 50*time.Millisecond, `{"timeoutAction": "approve"}`)
	inv := localInvocation(h, agentCall("make", "1"), io.Discard)
	inv.AsksAgain = true
	out := r.Run(context.Background(), inv)
	if out.Status != hooks.StatusOK || out.Details["pending"] != nil {
		t.Fatalf("got %s %q %v, want approved by timeoutAction", out.Status, out.Reason, out.Details)
	}
	if list, _, _ := l.Store().List(); len(list) != 1 || list[0].State != StateExpired {
		t.Errorf("requests: %+v, want one expired", list)
	}
}
