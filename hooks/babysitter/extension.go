package babysitter

import (
	"context"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
)

// ExtraExecutedHooks is the key of the aggregate in hooks.Result.Extra (and --json output).
const ExtraExecutedHooks = "executedHooks"

// ExecutedHook is one entry of executedHooks, as babysitter's dispatcher reports it.
type ExecutedHook struct {
	HookPath string `json:"hookPath"`
	Location string `json:"location"`
	Status   string `json:"status"` // success or failed
	ExitCode int    `json:"exitCode"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

// extension adds executedHooks to the result of every event that had babysitter hooks. Format.Load
// returns it with the workspace's babysitter hooks.
type extension struct{}

// BeforeEvent implements hooks.Extension: on SessionEnd it tells on-run-complete from on-run-fail.
func (extension) BeforeEvent(_ context.Context, e *hooks.EventInfo) error {
	if e.Event != hooks.SessionEnd {
		return nil
	}
	if _, set := e.Payload[RunOutcomeKey]; !set {
		e.Payload[RunOutcomeKey] = runOutcome(e.Payload)
	}
	return nil
}

// runOutcome is "fail" when the payload describes a failed run, else "complete".
func runOutcome(p hooks.Payload) string {
	switch strings.ToLower(hooks.FormatValue(p["status"])) {
	case "failed", "failure", "fail", "error", "errored":
		return "fail"
	}
	if ok, isBool := p["success"].(bool); (isBool && !ok) || strings.EqualFold(hooks.FormatValue(p["success"]), "false") {
		return "fail"
	}
	if hooks.FormatValue(p["error"]) != "" {
		return "fail"
	}
	return "complete"
}

// AfterEvent implements hooks.Extension.
func (extension) AfterEvent(_ context.Context, _ *hooks.EventInfo, res *hooks.Result) error {
	if res == nil {
		return nil
	}
	var executed []ExecutedHook
	seen := false
	for _, h := range res.Hooks {
		if h.Format != Name {
			continue
		}
		seen = true
		if h.Status == hooks.StatusSkipped {
			continue
		}
		eh := ExecutedHook{HookPath: h.File, Status: "success", ExitCode: h.ExitCode, Stdout: h.Stdout, Stderr: h.Stderr}
		if p, ok := h.Details["hookPath"].(string); ok {
			eh.HookPath = p
		}
		eh.Location, _ = h.Details["location"].(string)
		if h.Status != hooks.StatusOK {
			eh.Status = "failed"
		}
		executed = append(executed, eh)
	}
	if !seen {
		return nil
	}
	if executed == nil {
		executed = []ExecutedHook{}
	}
	if res.Extra == nil {
		res.Extra = map[string]any{}
	}
	res.Extra[ExtraExecutedHooks] = executed
	return nil
}
