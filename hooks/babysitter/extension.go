package babysitter

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// ExtraExecutedHooks is the key of the aggregate in hooks.Result.Extra (and --json output).
const ExtraExecutedHooks = "executedHooks"

// ExtraOutput is the key of the hooks' stdout, as the SDK's HookResult.output.
const ExtraOutput = "output"

// ExecutedHook is one entry of executedHooks: the babysitter SDK's HookExecutionResult. HookPath is
// the hook's real path (the SDK writes "unknown"); ExitCode is set for a failed hook only, and
// Error when it did not exit by itself (a timeout).
type ExecutedHook struct {
	HookPath     string `json:"hookPath"`
	HookName     string `json:"hookName"`
	HookLocation string `json:"hookLocation"` // per-repo, per-user or plugin
	Status       string `json:"status"`       // success or failed
	ExitCode     *int   `json:"exitCode,omitempty"`
	Error        string `json:"error,omitempty"`
}

// extension adds executedHooks to the result of every event that had babysitter hooks. Format.Load
// returns it with the workspace's babysitter hooks.
type extension struct{}

// BeforeEvent implements hooks.Extension: on SessionEnd it tells on-run-complete from on-run-fail
// by the name the event was fired with, else by the payload.
func (extension) BeforeEvent(_ context.Context, e *hooks.EventInfo) error {
	if e.Event != hooks.SessionEnd {
		return nil
	}
	switch e.Payload["eventAlias"] {
	case "on-run-fail":
		e.Payload[RunOutcomeKey] = "fail"
	case "on-run-complete":
		e.Payload[RunOutcomeKey] = "complete"
	default:
		if _, set := e.Payload[RunOutcomeKey]; !set {
			e.Payload[RunOutcomeKey] = runOutcome(e.Payload)
		}
	}
	return nil
}

// runOutcome is "fail" when the payload describes a failed run, else "complete".
func runOutcome(p hooks.Payload) string {
	switch strings.ToLower(template.FormatValue(p["status"])) {
	case "failed", "failure", "fail", "error", "errored":
		return "fail"
	}
	if ok, isBool := p["success"].(bool); (isBool && !ok) || strings.EqualFold(template.FormatValue(p["success"]), "false") {
		return "fail"
	}
	if template.FormatValue(p["error"]) != "" {
		return "fail"
	}
	return "complete"
}

// AfterEvent implements hooks.Extension: the SDK's HookResult fields executedHooks and output.
func (extension) AfterEvent(_ context.Context, _ *hooks.EventInfo, res *hooks.Result) error {
	if res == nil {
		return nil
	}
	var (
		executed []ExecutedHook
		stdout   strings.Builder
	)
	seen := false
	for _, h := range res.Hooks {
		if h.Format != Name {
			continue
		}
		seen = true
		if h.Status == hooks.StatusSkipped {
			continue
		}
		stdout.WriteString(h.Stdout)
		eh := ExecutedHook{HookPath: h.File, Status: "success"}
		if p, ok := h.Details["hookPath"].(string); ok {
			eh.HookPath = p
		}
		eh.HookName = filepath.Base(eh.HookPath)
		eh.HookLocation, _ = h.Details["location"].(string)
		if h.Status != hooks.StatusOK {
			code := h.ExitCode
			eh.Status, eh.ExitCode = "failed", &code
			if h.Status == hooks.StatusTimeout {
				eh.Error = h.Reason
			}
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
	if out, ok := output(stdout.String()); ok {
		res.Extra[ExtraOutput] = out
	}
	return nil
}

// output is the SDK's HookResult.output of the hooks' stdout: its JSON value when it is JSON,
// else the trimmed text; none when there is no text.
func output(stdout string) (any, bool) {
	var v any
	if err := json.Unmarshal([]byte(stdout), &v); err == nil {
		return v, true
	}
	s := strings.TrimSpace(stdout)
	return s, s != ""
}
