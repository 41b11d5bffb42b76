package gemini_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/gemini"
	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
)

var host = gemini.Agent{}

func TestEvents(t *testing.T) {
	t.Parallel()
	for hostEvent, want := range map[string]string{
		"BeforeTool": "PreToolUse", "AfterTool": "PostToolUse", "BeforeAgent": "UserPromptSubmit",
		"AfterAgent": "Stop", "PreCompress": "PreCompact", "SessionStart": "SessionStart",
		"SessionEnd": "SessionEnd", "Notification": "Notification", "BeforeModel": "",
	} {
		got, ok := host.Event(hostEvent)
		if got != want || ok != (want != "") {
			t.Errorf("Event(%s) = %q, %v; want %q", hostEvent, got, ok, want)
		}
	}
	// Gemini's timeouts are milliseconds, its default 60 s; --timeout is the same in seconds.
	if b := host.Budget("BeforeTool", 0, nil); b != time.Minute {
		t.Errorf("default budget %s", b)
	}
	if b := host.Budget("BeforeTool", 90*time.Second, nil); b != 90*time.Second {
		t.Errorf("budget %s", b)
	}
}

// TestAnswers: exactly one JSON object in Gemini's shape; a refusal is decision "deny" with a
// reason that is never empty, and an ask a refusal (a headless or --yolo run would approve it).
func TestAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    agents.Verdict
		want string
	}{
		{"deny", agents.Verdict{HostEvent: "BeforeTool", Event: "PreToolUse", Decision: agents.Deny, Reason: " no rm \n", Context: []string{"c"}},
			`{"decision":"deny","reason":"no rm"}`},
		{"deny without a reason", agents.Verdict{HostEvent: "BeforeTool", Event: "PreToolUse", Decision: agents.Deny},
			`{"decision":"deny","reason":"blocked by agent-hooks"}`},
		{"ask is a refusal", agents.Verdict{HostEvent: "BeforeTool", Event: "PreToolUse", Decision: agents.Ask, Reason: "sure?"},
			`{"decision":"deny","reason":"sure?"}`},
		{"granted", agents.Verdict{HostEvent: "BeforeTool", Event: "PreToolUse", Decision: agents.Allow, Reason: "policy"},
			`{"decision":"allow","reason":"policy"}`},
		{"passed", agents.Verdict{HostEvent: "BeforeTool", Event: "PreToolUse"}, ``},
		{"prompt refused", agents.Verdict{HostEvent: "BeforeAgent", Event: "UserPromptSubmit", Decision: agents.Deny, Reason: "no", Context: []string{"c"}},
			`{"decision":"deny","reason":"no","hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"c"}}`},
		{"keep working", agents.Verdict{HostEvent: "AfterAgent", Event: "Stop", Decision: agents.Deny, Reason: "tests are red", Context: []string{"c"}},
			`{"decision":"deny","reason":"tests are red"}`},
		{"after tool", agents.Verdict{HostEvent: "AfterTool", Event: "PostToolUse", Block: "lint failed", Context: []string{"c1", "c2"}, Warnings: []string{"w"}},
			`{"decision":"deny","reason":"lint failed","hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"c1\n\nc2"},"systemMessage":"agent-hooks: w"}`},
		{"after a failed tool", agents.Verdict{HostEvent: "AfterTool", Event: "PostToolUseFailure", Context: []string{"c"}},
			`{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"c"}}`},
		{"session start", agents.Verdict{HostEvent: "SessionStart", Event: "SessionStart", Decision: agents.Deny, Reason: "r", Context: []string{"c"}},
			`{"continue":false,"stopReason":"r","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"c"}}`},
		{"session end", agents.Verdict{HostEvent: "SessionEnd", Event: "SessionEnd", Context: []string{"c"}}, ``},
		{"an event of Gemini's own", agents.Verdict{HostEvent: "AfterModel", Context: []string{"c"}}, ``},
	}
	for _, tt := range tests {
		got, err := host.Answer(&tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tt.name, got, err, tt.want)
		}
	}
}

// TestHooksThroughGeminiInputs: Gemini CLI's captured inputs through the real runner and sh
// hooks: a gate written for Claude's Bash refuses run_shell_command, a write_file lands in
// filesModified for AfterAgent (Stop), a failed call is PostToolUseFailure, and the session
// records Gemini's session id.
func TestHooksThroughGeminiInputs(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {
		"PreToolUse": [{"command": "cat > pre.json; echo 'no shell here' >&2; exit 2", "tools": "Bash"}],
		"PostToolUseFailure": [{"command": "cat > failed.json"}],
		"Stop": [{"command": "cat > stop.json"}]}}`)
	got := e.Answer(host, e.Input("gemini", "BeforeTool", nil), time.Minute)
	if want := `{"decision":"deny","reason":"no shell here"}`; got != want {
		t.Errorf("BeforeTool:\n got %s\nwant %s", got, want)
	}
	var pre map[string]any
	if err := json.Unmarshal([]byte(e.Read("pre.json")), &pre); err != nil {
		t.Fatal(err)
	}
	if pre["agent"] != "gemini" || pre["toolName"] != "run_shell_command" || fmt.Sprint(pre["toolAliases"]) != "[Bash]" ||
		pre["agentSessionId"] != "ef43fc4f-6ed1-4c2b-8858-1efd6dcf35d6" || pre["timestamp"] == nil {
		t.Errorf("payload %v", pre)
	}

	write := map[string]any{"tool_name": "write_file", "tool_input": map[string]any{"file_path": filepath.Join(e.Workspace, "notes.md"), "content": "x"}}
	if got := e.Answer(host, e.Input("gemini", "AfterTool", write), time.Minute); got != `` {
		t.Errorf("AfterTool: %s", got)
	}
	failed := map[string]any{"tool_response": map[string]any{"llmContent": "", "error": "exit 1"}}
	e.Answer(host, e.Input("gemini", "AfterTool", failed), time.Minute)
	if !strings.Contains(e.Read("failed.json"), `"eventName":"PostToolUseFailure"`) {
		t.Errorf("a failed call did not fire PostToolUseFailure: %q", e.Read("failed.json"))
	}
	e.Answer(host, e.Input("gemini", "AfterAgent", nil), time.Minute)
	var stop map[string]any
	if err := json.Unmarshal([]byte(e.Read("stop.json")), &stop); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(stop["filesModified"]) != "[notes.md]" {
		t.Errorf("Stop filesModified %v", stop["filesModified"])
	}
	list := e.Sessions()
	if len(list) != 1 || list[0].Agent != "gemini" || list[0].AgentSessionID != "ef43fc4f-6ed1-4c2b-8858-1efd6dcf35d6" {
		t.Fatalf("sessions %+v", list)
	}
}

// TestFailsClosed: a configuration that cannot be read, and a blocking hook that times out, are
// an explicit deny in Gemini's shape with exit 0: Gemini reads exit 1, a crash or a timeout as
// "proceed".
func TestFailsClosed(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {"PreToolUse": [`)
	got := e.Answer(host, e.Input("gemini", "BeforeTool", nil), time.Minute)
	if !strings.HasPrefix(got, `{"decision":"deny","reason":"agent-hooks refused this PreToolUse: its hooks could not run: `) ||
		!strings.Contains(got, `config.json:1:`) {
		t.Errorf("broken config: %s", got)
	}
	e = hooktest.New(t, `{"hooks": {"PreToolUse": [{"name": "tests", "command": "sleep 30", "blocking": true, "timeout": 200}]}}`)
	if got, want := e.Answer(host, e.Input("gemini", "BeforeTool", nil), time.Minute), `{"decision":"deny","reason":"blocking hook tests failed: timed out after 200ms"}`; got != want {
		t.Errorf("timeout:\n got %s\nwant %s", got, want)
	}
	// Input that is not even JSON: exit 2 with the reason on stderr and nothing on stdout, which
	// Gemini reads as a refusal (any exit from 2 with text).
	if r := e.Handle(host, []byte("{not json"), time.Minute); r.ExitCode != 2 || !strings.Contains(r.Stderr, "could not read") || len(r.Stdout) != 0 {
		t.Errorf("unreadable input: %+v", r)
	}
}
