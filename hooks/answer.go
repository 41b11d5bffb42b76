package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Answer is a hook's JSON decision on stdout: {"decision":"block|approve|ask","reason":…,"feedback":…}.
type Answer struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Feedback string `json:"feedback"`
	// UpdatedInput is the tool input the hook wants the tool call run with instead (native
	// "updatedInput", or Claude Code's hookSpecificOutput.updatedInput).
	UpdatedInput map[string]any `json:"updatedInput,omitempty"`
}

// ParseAnswer reads a hook's stdout as a JSON decision. ok is false when stdout is not a JSON
// object with a decision or feedback (plain output is normal, not an error). err reports an object
// that has a "decision" the protocol does not know: a typo there must not pass silently.
//
// A hook written for Claude Code or Codex answers in their shape, and is understood too:
// hookSpecificOutput.permissionDecision (deny, ask, allow) with permissionDecisionReason, a
// PermissionRequest's hookSpecificOutput.decision {behavior, message}, and
// hookSpecificOutput.additionalContext as the feedback.
func ParseAnswer(stdout string) (a Answer, ok bool, err error) {
	trimmed := bytes.TrimSpace([]byte(stdout))
	if len(trimmed) < 2 || trimmed[0] != '{' || trimmed[len(trimmed)-1] != '}' {
		return Answer{}, false, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(trimmed, &fields) != nil {
		return Answer{}, false, nil
	}
	a.Reason = stringField(fields["reason"])
	a.Feedback = stringField(fields["feedback"])
	a.UpdatedInput = updatedInput(fields["updatedInput"])
	if a.UpdatedInput == nil {
		var specific struct {
			UpdatedInput json.RawMessage `json:"updatedInput"`
		}
		if raw := fields["hookSpecificOutput"]; raw != nil && json.Unmarshal(raw, &specific) == nil {
			a.UpdatedInput = updatedInput(specific.UpdatedInput)
		}
	}
	hostDecision, hostReason, context := hostAnswer(fields["hookSpecificOutput"])
	if a.Feedback == "" {
		a.Feedback = context
	}
	raw, has := fields["decision"]
	if !has {
		if hostDecision != "" && a.Reason == "" {
			a.Reason = hostReason
		}
		a.Decision = hostDecision
		return a, a.Decision != "" || a.Feedback != "" || a.UpdatedInput != nil, nil
	}
	var decision string
	if json.Unmarshal(raw, &decision) != nil {
		return Answer{}, false, fmt.Errorf(`"decision" must be a string, got %s`, raw)
	}
	a.Decision = strings.ToLower(strings.TrimSpace(decision))
	switch a.Decision {
	case DecisionBlock, DecisionApprove, DecisionSkip, DecisionAsk:
		return a, true, nil
	case "":
		return a, a.Feedback != "" || a.UpdatedInput != nil, nil
	default:
		msg := fmt.Sprintf("unknown decision %q (want block, approve or ask)", decision)
		if s := Suggest(a.Decision, []string{DecisionBlock, DecisionApprove, DecisionSkip, DecisionAsk}); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return Answer{}, false, fmt.Errorf("%s", msg)
	}
}

// hostAnswer reads the decision, reason and context of Claude Code's (and Codex's)
// hookSpecificOutput object; "" where it has none.
func hostAnswer(raw json.RawMessage) (decision, reason, context string) {
	var out struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		Decision                 *struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message"`
		} `json:"decision"`
		AdditionalContext string `json:"additionalContext"`
	}
	if raw == nil || json.Unmarshal(raw, &out) != nil {
		return "", "", ""
	}
	switch strings.ToLower(out.PermissionDecision) {
	case "deny":
		decision = DecisionBlock
	case "ask":
		decision = DecisionAsk
	case "allow":
		decision = DecisionApprove
	}
	reason = out.PermissionDecisionReason
	if decision == "" && out.Decision != nil {
		switch strings.ToLower(out.Decision.Behavior) {
		case "deny":
			decision = DecisionBlock
		case "allow":
			decision = DecisionApprove
		}
		reason = out.Decision.Message
	}
	return decision, reason, out.AdditionalContext
}

// updatedInput is a rewritten tool input: a JSON object (nil for anything else).
func updatedInput(raw json.RawMessage) map[string]any {
	if raw == nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func stringField(raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
