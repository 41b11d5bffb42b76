package agents

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Output is the JSON answer Claude Code and Codex share the shape of (Claude Code's hook output;
// Codex validates it against a schema per event that allows a subset of it). A Host fills only
// the fields its agent accepts for the event; every field is omitted when empty.
type Output struct {
	Continue           *bool     `json:"continue,omitempty"`
	StopReason         string    `json:"stopReason,omitempty"`
	Decision           string    `json:"decision,omitempty"` // "block"
	Reason             string    `json:"reason,omitempty"`
	HookSpecificOutput *Specific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string    `json:"systemMessage,omitempty"`
}

// Specific is hookSpecificOutput; HookEventName must be the event's own name.
type Specific struct {
	HookEventName            string      `json:"hookEventName"`
	PermissionDecision       string      `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string      `json:"permissionDecisionReason,omitempty"`
	Decision                 *Permission `json:"decision,omitempty"` // PermissionRequest's
	AdditionalContext        string      `json:"additionalContext,omitempty"`
	// UpdatedInput is the tool input the call runs with instead (Claude Code, Codex).
	UpdatedInput map[string]any `json:"updatedInput,omitempty"`
	// ToolInput is Gemini CLI's name of it.
	ToolInput map[string]any `json:"tool_input,omitempty"`
}

// Permission is a PermissionRequest's decision.
type Permission struct {
	Behavior string `json:"behavior"` // allow or deny
	Message  string `json:"message,omitempty"`
}

// Specific returns the hookSpecificOutput of the output, creating it for event.
func (o *Output) Specific(event string) *Specific {
	if o.HookSpecificOutput == nil {
		o.HookSpecificOutput = &Specific{HookEventName: event}
	}
	return o.HookSpecificOutput
}

// Block sets decision "block" with a reason that is never empty (Codex refuses an empty one).
func (o *Output) Block(reason string) {
	o.Decision, o.Reason = "block", NonEmpty(reason)
}

// StopSession sets continue:false with the reason: the agent stops (a blocked SessionStart).
func (o *Output) StopSession(reason string) {
	f := false
	o.Continue, o.StopReason = &f, NonEmpty(reason)
}

// Encode is the output as one JSON document, nil when it says nothing.
func (o *Output) Encode() ([]byte, error) {
	if o.Continue == nil && o.StopReason == "" && o.Decision == "" && o.Reason == "" && o.HookSpecificOutput == nil && o.SystemMessage == "" {
		return nil, nil
	}
	return Marshal(o)
}

// Marshal is v as one line of JSON, with <, > and & as they are: an agent's answer.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// NonEmpty is reason trimmed, or a generic reason when it is empty.
func NonEmpty(reason string) string {
	if r := strings.TrimSpace(reason); r != "" {
		return r
	}
	return "blocked by agent-hooks"
}

// Joined is the verdict's context as one text, "" when there is none.
func (v *Verdict) Joined() string { return strings.Join(v.Context, "\n\n") }

// Warning is the verdict's warnings as one systemMessage, "" when there are none.
func (v *Verdict) Warning() string {
	if len(v.Warnings) == 0 {
		return ""
	}
	return "agent-hooks: " + strings.Join(v.Warnings, "\nagent-hooks: ")
}
