package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// DefaultMessage is the request text of an approval hook that sets no "message".
const DefaultMessage = "Approve {{eventName}} in session {{sessionId}}?"

// Common are the options every provider of this package understands. A provider's options
// struct embeds it and is decoded with DecodeOptions.
type Common struct {
	// Message is the request shown to the human; {{key}} is replaced by the payload value
	// verbatim (it is a message, not a shell command).
	Message string `json:"message"`
	// TimeoutAction is what happens when nobody decides before the hook's timeout: block
	// (default) or approve.
	TimeoutAction string `json:"timeoutAction"`
}

// DecodeOptions decodes a provider's options strictly into dst (a pointer to a struct that may
// embed Common) and checks the common ones.
func DecodeOptions(raw json.RawMessage, dst any, c *Common) error {
	if err := hooks.DecodeOptions(raw, dst); err != nil {
		return fmt.Errorf("approval options: %w", err)
	}
	switch c.TimeoutAction {
	case "":
		c.TimeoutAction = hooks.DecisionBlock
	case hooks.DecisionBlock, hooks.DecisionApprove:
	default:
		return fmt.Errorf("timeoutAction: %q is not block or approve", c.TimeoutAction)
	}
	return nil
}

// Render is the request text for an event.
func (c Common) Render(p hooks.Payload) string {
	m := c.Message
	if m == "" {
		m = DefaultMessage
	}
	return strings.TrimSpace(template.ExpandMessage(m, p))
}

// DecideBy is when a provider must stop waiting and apply timeoutAction: the hook's timeout
// after start, and a little before the engine's own deadline on ctx, so that what happens at the
// timeout is timeoutAction rather than the engine's timeout. "A little" is at most two seconds, a
// tenth of the hook's timeout and a tenth of the time left: a caller's deadline of a few seconds
// (an agent's timeout) still leaves most of them to wait.
func DecideBy(ctx context.Context, h *hooks.Hook, start time.Time) time.Time {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = hooks.DefaultTimeout
	}
	by := start.Add(timeout)
	if dl, ok := ctx.Deadline(); ok {
		if early := dl.Add(-min(2*time.Second, timeout/10, max(dl.Sub(start), 0)/10)); early.Before(by) {
			by = early
		}
	}
	return by
}

// Answer is a human's (or the clock's) decision on a request.
type Answer struct {
	Approved bool
	By       string // who decided ("" for the timeout)
	Via      string // terminal, cli, http-poll, timeout, …
	Reason   string
}

// Outcome turns an answer into the hook's outcome: approval proceeds, rejection blocks. details
// are added to the outcome's Details.
func (a Answer) Outcome(details map[string]any) hooks.Outcome {
	d := map[string]any{"decision": "rejected", "via": a.Via}
	if a.Approved {
		d["decision"] = "approved"
	}
	if a.By != "" {
		d["decider"] = a.By
	}
	for k, v := range details {
		d[k] = v
	}
	verb := "rejected"
	if a.Approved {
		verb = "approved"
	}
	reason := verb
	if a.By != "" {
		reason += " by " + a.By
	}
	if a.Reason != "" {
		reason += ": " + a.Reason
	}
	if a.Via == "timeout" {
		reason = a.Reason // it says what timeoutAction did
	}
	if a.Approved {
		return hooks.Outcome{Status: hooks.StatusOK, Decision: hooks.DecisionApprove, Reason: reason, Details: d}
	}
	return hooks.Outcome{Status: hooks.StatusBlocked, Decision: hooks.DecisionBlock, ExitCode: 2, Reason: reason, Details: d}
}

// TimedOut is the answer timeoutAction gives after waiting for waited, when the last check of the
// request succeeded and nobody decided. (When the last check failed, the request is Undecided; a
// check the wait's end cut short does not count as the last: see LastCheck.)
func (c Common) TimedOut(waited time.Duration) Answer {
	reason := fmt.Sprintf("no decision within %s (timeoutAction: %s)", hooks.RoundDuration(waited), c.TimeoutAction)
	return Answer{Approved: c.TimeoutAction == hooks.DecisionApprove, Via: "timeout", Reason: reason}
}

// LastCheck is how the latest check of a request went, for a provider that checks again and
// again until its wait ends: the error of the latest check that said something. A check that the
// wait's end cut short says nothing (nobody knows what it would have found), so the check before
// it stands, and the wait ends as that one left it: a timeout after "no decision yet", the
// failure after a failed check. Only a first check cut short is itself the failure.
type LastCheck struct {
	err    error
	checks int
}

// Record notes a check's outcome; cutShort says the wait had ended when it returned.
func (l *LastCheck) Record(err error, cutShort bool) {
	l.checks++
	if err == nil || !cutShort || l.checks == 1 {
		l.err = err
	}
}

// Err is the latest check's failure, nil when it succeeded.
func (l *LastCheck) Err() error { return l.err }
