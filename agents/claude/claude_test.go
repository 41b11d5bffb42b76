package claude_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/claude"
	"github.com/autoagent/agent-hooks/hooks"
)

var host = claude.Agent{}

// TestAnswers: the one JSON document of each event and decision, exactly. hookEventName is
// always the event's own (Claude drops the answer otherwise); a pass prints nothing, so that
// Claude's own permission rules apply.
func TestAnswers(t *testing.T) {
	t.Parallel()
	ctx := []string{"lint: 2 warnings", "see CONTRIBUTING.md"}
	tests := []struct {
		name string
		v    agents.Verdict
		want string
	}{
		{"pass", agents.Verdict{HostEvent: "PreToolUse", Event: "PreToolUse", Blockable: true}, ``},
		{"deny", agents.Verdict{HostEvent: "PreToolUse", Event: "PreToolUse", Decision: agents.Deny, Reason: "no rm -rf"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm -rf"}}`},
		{"deny without a reason", agents.Verdict{HostEvent: "PreToolUse", Event: "PreToolUse", Decision: agents.Deny},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"blocked by agent-hooks"}}`},
		{"ask with context", agents.Verdict{HostEvent: "PreToolUse", Event: "PreToolUse", Decision: agents.Ask, Reason: "prod", Context: ctx},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"prod","additionalContext":"lint: 2 warnings\n\nsee CONTRIBUTING.md"}}`},
		{"allow", agents.Verdict{HostEvent: "PreToolUse", Event: "PreToolUse", Decision: agents.Allow},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`},
		{"context only, and a warning", agents.Verdict{HostEvent: "PreToolUse", Event: "PreToolUse", Context: ctx[:1], Warnings: []string{"hook x failed: exit 1"}},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"lint: 2 warnings"},"systemMessage":"agent-hooks: hook x failed: exit 1"}`},
		{"permission denied", agents.Verdict{HostEvent: "PermissionRequest", Event: "PermissionRequest", Decision: agents.Deny, Reason: "not on main", Context: ctx},
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main"}}}`},
		{"permission granted", agents.Verdict{HostEvent: "PermissionRequest", Event: "PermissionRequest", Decision: agents.Allow},
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{"permission asked: Claude's prompt", agents.Verdict{HostEvent: "PermissionRequest", Event: "PermissionRequest", Decision: agents.Ask}, ``},
		{"prompt blocked", agents.Verdict{HostEvent: "UserPromptSubmit", Event: "UserPromptSubmit", Decision: agents.Deny, Reason: "no secrets", Context: ctx[:1]},
			`{"decision":"block","reason":"no secrets","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"lint: 2 warnings"}}`},
		{"stop blocked", agents.Verdict{HostEvent: "Stop", Event: "Stop", Decision: agents.Deny, Reason: "tests fail"},
			`{"decision":"block","reason":"tests fail"}`},
		{"subagent stop blocked", agents.Verdict{HostEvent: "SubagentStop", Event: "SubagentStop", Decision: agents.Deny, Reason: "x"},
			`{"decision":"block","reason":"x"}`},
		{"post tool use blocked", agents.Verdict{HostEvent: "PostToolUse", Event: "PostToolUse", Block: "lint failed", Context: ctx[:1]},
			`{"decision":"block","reason":"lint failed","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 2 warnings"}}`},
		{"failure: a block is context", agents.Verdict{HostEvent: "PostToolUseFailure", Event: "PostToolUseFailure", Block: "retry with -v", Context: ctx[:1]},
			`{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"retry with -v\n\nlint: 2 warnings"}}`},
		{"session start blocked", agents.Verdict{HostEvent: "SessionStart", Event: "SessionStart", Decision: agents.Deny, Reason: "wrong branch"},
			`{"continue":false,"stopReason":"wrong branch"}`},
		{"session start context", agents.Verdict{HostEvent: "SessionStart", Event: "SessionStart", Context: ctx[:1]},
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"lint: 2 warnings"}}`},
		{"subagent start", agents.Verdict{HostEvent: "SubagentStart", Event: "SubagentStart", Context: ctx[:1]},
			`{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"lint: 2 warnings"}}`},
		{"session end: warnings only", agents.Verdict{HostEvent: "SessionEnd", Event: "SessionEnd", Context: ctx, Warnings: []string{"w"}},
			`{"systemMessage":"agent-hooks: w"}`},
		{"an event of Claude's own", agents.Verdict{HostEvent: "PostToolBatch", Context: ctx}, ``},
		{"no HTML escaping", agents.Verdict{HostEvent: "Stop", Event: "Stop", Decision: agents.Deny, Reason: "a < b && c > d"},
			`{"decision":"block","reason":"a < b && c > d"}`},
	}
	for _, tt := range tests {
		got, err := host.Answer(&tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tt.name, got, err, tt.want)
		}
	}
}

// TestBudget: Claude Code's own timeouts, which agents-hooks must answer within.
func TestBudget(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		event   string
		timeout time.Duration
		want    time.Duration
	}{
		{"PreToolUse", 0, 600 * time.Second},
		{"PreToolUse", 30 * time.Second, 30 * time.Second},
		{"UserPromptSubmit", 0, 30 * time.Second},
		{"UserPromptSubmit", 90 * time.Second, 90 * time.Second},
		{"SessionEnd", 0, 1500 * time.Millisecond},
		{"SessionEnd", time.Second, 1500 * time.Millisecond},
		{"SessionEnd", 20 * time.Second, 20 * time.Second},
		{"SessionEnd", 600 * time.Second, 60 * time.Second},
	}
	for _, tt := range tests {
		if got := host.Budget(tt.event, tt.timeout, getenv); got != tt.want {
			t.Errorf("Budget(%s, %s) = %s, want %s", tt.event, tt.timeout, got, tt.want)
		}
	}
	env["CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"] = "5000"
	if got := host.Budget("SessionEnd", 600*time.Second, getenv); got != 5*time.Second {
		t.Errorf("with $CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS: %s", got)
	}
}

// TestCapturedInputs: every input Claude Code sent reads, maps to the canonical event of its
// name (or none), and gives native hooks its fields unchanged plus the normalised ones.
func TestCapturedInputs(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", "claude", "*.json"))
	if err != nil || len(files) < 15 {
		t.Fatalf("captured inputs: %v %v", files, err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in, _, err := agents.ReadInput(context.Background(), bytes.NewReader(raw), 0)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := strings.Split(filepath.Base(f), ".")[0]
		if in.HostEvent != name {
			t.Errorf("%s: event %q", f, in.HostEvent)
		}
		canonical, ok := host.Event(in.HostEvent)
		if want := name != "PostToolBatch"; ok != want || ok && canonical != name {
			t.Errorf("%s: maps to %q, %v", f, canonical, ok)
		}
		p := in.Payload(host)
		var fields map[string]any
		if err := json.Unmarshal(raw, &fields); err != nil {
			t.Fatal(err)
		}
		for k := range fields {
			if _, ok := p[k]; !ok {
				t.Errorf("%s: %s is not in the payload", f, k)
			}
		}
		if p["agent"] != "claude" || p["agentSessionId"] != fields["session_id"] || p["transcriptPath"] != fields["transcript_path"] {
			t.Errorf("%s: payload %v", f, p)
		}
		if tool, ok := fields["tool_name"]; ok && (p["toolName"] != tool || p["toolUseId"] != fields["tool_use_id"] || p["toolInput"] == nil) {
			t.Errorf("%s: tool fields %v %v %v", f, p["toolName"], p["toolUseId"], p["toolInput"])
		}
	}
}

func TestToolsAndFiles(t *testing.T) {
	t.Parallel()
	if got := host.ToolAliases("Agent"); !slices.Equal(got, []string{"Task"}) {
		t.Errorf("Agent answers to %v", got)
	}
	if host.ShellCommand("Bash", map[string]any{"command": "ls"}) != "ls" || host.ShellCommand("Write", map[string]any{"command": "ls"}) != "" {
		t.Error("ShellCommand")
	}
	in := map[string]any{"file_path": "/p/a.go", "notebook_path": "/p/n.ipynb"}
	for _, tc := range []struct {
		event, tool string
		want        []string
	}{
		{hooks.PostToolUse, "Write", []string{"/p/a.go"}}, {hooks.PostToolUse, "Edit", []string{"/p/a.go"}},
		{hooks.PostToolUse, "MultiEdit", []string{"/p/a.go"}}, {hooks.PostToolUse, "NotebookEdit", []string{"/p/n.ipynb"}},
		{hooks.PostToolUse, "Read", nil}, {hooks.PreToolUse, "Write", nil}, {hooks.PostToolUseFailure, "Edit", nil},
	} {
		if got := host.EditedFiles(tc.event, tc.tool, in); !slices.Equal(got, tc.want) {
			t.Errorf("EditedFiles(%s, %s) = %v, want %v", tc.event, tc.tool, got, tc.want)
		}
	}
}
