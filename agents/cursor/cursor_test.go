package cursor_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/cursor"
	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
)

var host = cursor.Agent{}

const conversation = "conv-7f3a"

// input is what Cursor sends for event, made from its documentation as Cursor makes it (the docs
// show the common fields apart from each event's): testdata/agents/cursor/common.doc.json merged
// with <event>.input.doc.json (file, when not ""), with the event's name, a conversation id, the
// workspace as its root and cwd where the event has one, then set.
func input(t *testing.T, e *hooktest.Env, event, file string, set map[string]any) []byte {
	t.Helper()
	fields := map[string]any{}
	for _, f := range []string{"common.doc.json", file} {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "agents", "cursor", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &fields); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	fields["hook_event_name"] = event
	fields["conversation_id"] = conversation
	fields["workspace_roots"] = []any{e.Workspace}
	if _, ok := fields["cwd"]; ok {
		fields["cwd"] = e.Workspace
	}
	for k, v := range set {
		fields[k] = v
	}
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEvents(t *testing.T) {
	t.Parallel()
	for hostEvent, want := range map[string]string{
		"preToolUse": "PreToolUse", "beforeShellExecution": "PreToolUse", "beforeMCPExecution": "PreToolUse",
		"beforeReadFile": "PreToolUse", "postToolUse": "PostToolUse", "afterFileEdit": "PostToolUse",
		"afterShellExecution": "PostToolUse", "postToolUseFailure": "PostToolUseFailure",
		"beforeSubmitPrompt": "UserPromptSubmit", "stop": "Stop", "subagentStop": "SubagentStop",
		"subagentStart": "SubagentStart", "sessionStart": "SessionStart", "sessionEnd": "SessionEnd",
		"preCompact": "PreCompact", "afterAgentResponse": "", "workspaceOpen": "",
	} {
		got, ok := host.Event(hostEvent)
		if got != want || ok != (want != "") {
			t.Errorf("Event(%s) = %q, %v; want %q", hostEvent, got, ok, want)
		}
	}
}

func TestAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    agents.Verdict
		want string
	}{
		{"deny", agents.Verdict{HostEvent: "preToolUse", Event: "PreToolUse", Decision: agents.Deny, Reason: " no rm \n"},
			`{"permission":"deny","user_message":"no rm","agent_message":"no rm"}`},
		{"deny with a warning", agents.Verdict{HostEvent: "beforeShellExecution", Event: "PreToolUse", Decision: agents.Deny, Warnings: []string{"w"}},
			`{"permission":"deny","user_message":"blocked by agent-hooks\nagent-hooks: w","agent_message":"blocked by agent-hooks"}`},
		{"ask is a refusal", agents.Verdict{HostEvent: "preToolUse", Event: "PreToolUse", Decision: agents.Ask, Reason: "sure?"},
			`{"permission":"deny","user_message":"sure?","agent_message":"sure?"}`},
		{"granted", agents.Verdict{HostEvent: "preToolUse", Event: "PreToolUse", Decision: agents.Allow}, `{"permission":"allow"}`},
		{"passed", agents.Verdict{HostEvent: "preToolUse", Event: "PreToolUse", Context: []string{"c"}}, ``},
		{"prompt refused", agents.Verdict{HostEvent: "beforeSubmitPrompt", Event: "UserPromptSubmit", Decision: agents.Deny, Reason: "no"},
			`{"continue":false,"user_message":"no"}`},
		{"keep working", agents.Verdict{HostEvent: "stop", Event: "Stop", Decision: agents.Deny, Reason: "tests are red"},
			`{"followup_message":"tests are red"}`},
		{"subagent keeps working", agents.Verdict{HostEvent: "subagentStop", Event: "SubagentStop", Decision: agents.Deny, Reason: "r"},
			`{"followup_message":"r"}`},
		{"post tool use", agents.Verdict{HostEvent: "postToolUse", Event: "PostToolUse", Block: "lint failed", Context: []string{"c"}},
			`{"additional_context":"lint failed\n\nc"}`},
		{"after file edit has no output", agents.Verdict{HostEvent: "afterFileEdit", Event: "PostToolUse", Block: "b", Context: []string{"c"}}, ``},
		{"session start", agents.Verdict{HostEvent: "sessionStart", Event: "SessionStart", Context: []string{"c"}}, `{"additional_context":"c"}`},
		{"session end", agents.Verdict{HostEvent: "sessionEnd", Event: "SessionEnd", Warnings: []string{"w"}}, ``},
	}
	for _, tt := range tests {
		got, err := host.Answer(&tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tt.name, got, err, tt.want)
		}
	}
}

// TestHooksThroughCursorInputs: the documented inputs through the real runner and sh hooks. A
// gate written for Claude's Bash refuses Cursor's Shell, in preToolUse and in
// beforeShellExecution (which carries the command outside tool_input); beforeMCPExecution's
// tool_input, a JSON text, reaches hooks as an object; afterFileEdit's file is the session's
// filesModified for stop; the session is Cursor's conversation, its workspace workspace_roots.
func TestHooksThroughCursorInputs(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {
		"PreToolUse": [
			{"command": "cat > pre-{{hook_event_name}}.json"},
			{"command": "echo 'no installs here' >&2; exit 2", "tools": "Bash"}],
		"Stop": [{"command": "cat > stop.json"}]}}`)
	deny := `{"permission":"deny","user_message":"no installs here","agent_message":"no installs here"}`
	if got := e.Answer(host, input(t, e, "preToolUse", "preToolUse.input.doc.json", nil), 30*time.Second); got != deny {
		t.Errorf("preToolUse:\n got %s\nwant %s", got, deny)
	}
	if got := e.Answer(host, input(t, e, "beforeShellExecution", "beforeShellExecution.input.doc.json", nil), 30*time.Second); got != deny {
		t.Errorf("beforeShellExecution:\n got %s\nwant %s", got, deny)
	}
	mcp := input(t, e, "beforeMCPExecution", "beforeMCPExecution.input.doc.json", map[string]any{"tool_name": "query", "tool_input": `{"sql": "select 1"}`})
	if got := e.Answer(host, mcp, 30*time.Second); got != `` {
		t.Errorf("beforeMCPExecution: %s", got)
	}
	for _, tc := range []struct{ file, want string }{
		{"pre-preToolUse.json", `"toolName":"Shell"`},
		{"pre-beforeShellExecution.json", `"toolInput":{"command":"\u003cfull terminal command\u003e"},"toolName":"Shell"`},
		{"pre-beforeMCPExecution.json", `"toolInput":{"sql":"select 1"}`},
		{"pre-beforeMCPExecution.json", `"toolName":"MCP:query"`},
		{"pre-preToolUse.json", `"agentSessionId":"` + conversation + `"`},
	} {
		if got := e.Read(tc.file); !strings.Contains(got, tc.want) {
			t.Errorf("%s lacks %s: %s", tc.file, tc.want, got)
		}
	}

	edit := input(t, e, "afterFileEdit", "afterFileEdit.input.doc.json", map[string]any{"file_path": filepath.Join(e.Workspace, "src", "a.go")})
	if got := e.Answer(host, edit, 30*time.Second); got != `` {
		t.Errorf("afterFileEdit: %s", got)
	}
	e.Answer(host, input(t, e, "stop", "", map[string]any{"status": "completed", "loop_count": 0}), 30*time.Second)
	var stop map[string]any
	if err := json.Unmarshal([]byte(e.Read("stop.json")), &stop); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(stop["filesModified"]) != "[src/a.go]" || stop["workspace"] != e.Workspace {
		t.Errorf("stop payload %v", stop)
	}
	list := e.Sessions()
	if len(list) != 1 || list[0].Agent != "cursor" || list[0].AgentSessionID != conversation {
		t.Fatalf("sessions %+v", list)
	}
}

// TestFailsClosed: a configuration that cannot be read is an explicit deny in Cursor's shape,
// exit 0 (Cursor lets a failed hook's action through unless its entry fails closed).
func TestFailsClosed(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {"PreToolUse": [`)
	got := e.Answer(host, input(t, e, "beforeShellExecution", "beforeShellExecution.input.doc.json", nil), 30*time.Second)
	if !strings.HasPrefix(got, `{"permission":"deny","user_message":"agent-hooks refused this PreToolUse: its hooks could not run: `) || !strings.Contains(got, "config.json:1:") {
		t.Errorf("broken config: %s", got)
	}
	got = e.Answer(host, input(t, e, "beforeSubmitPrompt", "", map[string]any{"prompt": "go"}), 30*time.Second)
	if !strings.HasPrefix(got, `{"continue":false,"user_message":"agent-hooks refused this UserPromptSubmit`) {
		t.Errorf("broken config, prompt: %s", got)
	}
	e = hooktest.New(t, `{"hooks": {"PreToolUse": [{"name": "tests", "command": "sleep 30", "blocking": true, "timeout": 200}]}}`)
	want := `{"permission":"deny","user_message":"blocking hook tests failed: timed out after 200ms","agent_message":"blocking hook tests failed: timed out after 200ms"}`
	if got := e.Answer(host, input(t, e, "preToolUse", "preToolUse.input.doc.json", nil), 30*time.Second); got != want {
		t.Errorf("timeout:\n got %s\nwant %s", got, want)
	}
	// Input that is not even JSON: exit 2 with the reason, which Cursor reads as a block.
	if r := e.Handle(host, []byte("{not json"), 30*time.Second); r.ExitCode != 2 || !strings.Contains(r.Stderr, "could not read") || len(r.Stdout) != 0 {
		t.Errorf("unreadable input: %+v", r)
	}
}
