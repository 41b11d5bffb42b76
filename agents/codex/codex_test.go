package codex_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/codex"
	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var host = codex.Agent{}

// schemaFile is the output schema of an event in Codex's binary (testdata/agents/codex/schemas).
func schemaFile(event string) string {
	var b strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return filepath.Join("..", "..", "testdata", "agents", "codex", "schemas", b.String()+".command.output.json")
}

// TestAnswersValidate: every answer, for every event and decision, validates against the schema
// Codex validates it with (one unknown key and Codex drops the whole answer, and the tool runs),
// and says what it must.
func TestAnswersValidate(t *testing.T) {
	t.Parallel()
	c := jsonschema.NewCompiler()
	events := []string{"PreToolUse", "PermissionRequest", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "SubagentStart", "PreCompact"}
	verdicts := []agents.Verdict{
		{}, {Decision: agents.Deny, Reason: "r"}, {Decision: agents.Deny}, {Decision: agents.Ask, Reason: "sure?"},
		{Decision: agents.Allow}, {Block: "b"}, {Context: []string{"c1", "c2"}}, {Warnings: []string{"w"}},
		{Decision: agents.Deny, Reason: "r", Block: "b", Context: []string{"c"}, Warnings: []string{"w"}},
	}
	for _, event := range events {
		sch, err := c.Compile(schemaFile(event))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range verdicts {
			v.HostEvent, v.Event, v.Blockable = event, event, true
			out, err := host.Answer(&v)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) == 0 {
				continue
			}
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(out)))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(doc); err != nil {
				t.Errorf("%s %+v: %s does not validate: %v", event, v, out, err)
			}
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
		{"deny", agents.Verdict{HostEvent: "PreToolUse", Event: "PreToolUse", Decision: agents.Deny, Reason: " no rm \n"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}`},
		{"ask is a refusal", agents.Verdict{HostEvent: "PreToolUse", Event: "PreToolUse", Decision: agents.Ask, Reason: "sure?"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"sure?"}}`},
		{"allow is no objection", agents.Verdict{HostEvent: "PreToolUse", Event: "PreToolUse", Decision: agents.Allow}, ``},
		{"context", agents.Verdict{HostEvent: "PreToolUse", Event: "PreToolUse", Context: []string{"c"}},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"c"}}`},
		{"permission granted", agents.Verdict{HostEvent: "PermissionRequest", Event: "PermissionRequest", Decision: agents.Allow},
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{"stop: no context field", agents.Verdict{HostEvent: "Stop", Event: "Stop", Decision: agents.Deny, Reason: "tests", Context: []string{"c"}},
			`{"decision":"block","reason":"tests"}`},
		{"post tool use", agents.Verdict{HostEvent: "PostToolUse", Event: "PostToolUse", Block: "lint", Warnings: []string{"w"}},
			`{"decision":"block","reason":"lint","systemMessage":"agent-hooks: w"}`},
		{"session end: Codex reads nothing", agents.Verdict{HostEvent: "SessionEnd", Event: "SessionEnd", Warnings: []string{"w"}}, ``},
		{"an event of Codex's own", agents.Verdict{HostEvent: "Interrupt", Warnings: []string{"w"}}, ``},
	}
	for _, tt := range tests {
		got, err := host.Answer(&tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tt.name, got, err, tt.want)
		}
	}
}

// TestHooksThroughCodexInputs: Codex's captured inputs through the real runner and sh hooks.
func TestHooksThroughCodexInputs(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {
		"PreToolUse": [
			{"command": "cat > patch.json", "tools": "apply_patch"},
			{"command": "echo 'needs a person' | { read r; echo \"{\\\"decision\\\":\\\"ask\\\",\\\"reason\\\":\\\"$r\\\"}\"; }", "tools": "Write"},
			{"command": "cat > pre.json"}],
		"Stop": [{"command": "cat > stop.json"}]}}`)
	// Codex cannot ask: an ask is a refusal. The apply_patch matches "Write" by its alias.
	// (The apply_patch inputs were captured in another Codex session: give them the shell one's.)
	session := map[string]any{"session_id": "01a2044e-2ad8-72c3-8897-c23aa4fbea55"}
	got := e.Answer(host, e.Input("codex", "PreToolUse.apply_patch", session), 0)
	if want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"needs a person (a hook asked for confirmation, and there is no one to ask)"}}`; got != want {
		t.Errorf("ask:\n got %s\nwant %s", got, want)
	}
	if got := e.Answer(host, e.Input("codex", "PreToolUse.Bash", nil), 0); got != `` {
		t.Errorf("Bash: %s", got)
	}
	var pre map[string]any
	if err := json.Unmarshal([]byte(e.Read("pre.json")), &pre); err != nil {
		t.Fatal(err)
	}
	if pre["agent"] != "codex" || pre["toolName"] != "Bash" || pre["toolUseId"] != "call_1795368562093673818" || pre["turn_id"] == nil || pre["model"] != "gpt-5" {
		t.Errorf("payload %v", pre)
	}
	// The tool call an approval shows: the shell command, and apply_patch's patch as its command.
	// With it, the call in the shape every agent shares: a shell call, its commands and the
	// files it writes.
	if tc, _ := json.Marshal(pre["toolCall"]); string(tc) != `{"command":"echo hi \u003e out.txt","commands":[{"argv":["echo","hi"]}],"cwd":"`+e.Workspace+`","input":{"command":"echo hi \u003e out.txt"},"kind":"shell","tool":"Bash","writes":["out.txt"]}` {
		t.Errorf("Bash toolCall %s", tc)
	}
	var patch map[string]any
	if err := json.Unmarshal([]byte(e.Read("patch.json")), &patch); err != nil {
		t.Fatal(err)
	}
	if tc, _ := patch["toolCall"].(map[string]any); tc["tool"] != "apply_patch" || !strings.HasPrefix(fmt.Sprint(tc["command"]), "*** Begin Patch\n*** Add File: p.txt") {
		t.Errorf("apply_patch toolCall %v", patch["toolCall"])
	}
	// apply_patch's payload carries a patch, not a path: its normalized call names the files.
	if tc, _ := patch["toolCall"].(map[string]any); tc["kind"] != "edit" || fmt.Sprint(tc["writes"]) != "[p.txt]" {
		t.Errorf("apply_patch normalized call %v", patch["toolCall"])
	}
	// apply_patch after the call, and a patch a shell command applies before it, are the
	// session's filesModified; Stop carries them.
	e.Answer(host, e.Input("codex", "PostToolUse.apply_patch", session), 0)
	wrapped := "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/main.go\n@@\n-a\n+b\n*** End Patch\nEOF"
	e.Answer(host, e.Input("codex", "PreToolUse.Bash", map[string]any{"tool_input": map[string]any{"command": wrapped}}), 0)
	e.Answer(host, e.Input("codex", "Stop", nil), 0)
	var stop map[string]any
	if err := json.Unmarshal([]byte(e.Read("stop.json")), &stop); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(stop["filesModified"]) != "[p.txt src/main.go]" {
		t.Errorf("Stop filesModified %v", stop["filesModified"])
	}
	list := e.Sessions()
	if len(list) != 1 || list[0].Agent != "codex" || list[0].AgentSessionID != session["session_id"] {
		t.Fatalf("sessions %+v", list)
	}
	if e.Answer(host, e.Input("codex", "SessionEnd", nil), 0) != `` {
		t.Error("SessionEnd answered")
	}
}

func TestEditedFiles(t *testing.T) {
	t.Parallel()
	patch := map[string]any{"command": "*** Begin Patch\n*** Add File: p.txt\n+hello\n*** End Patch\n"}
	for _, tc := range []struct {
		event, tool string
		want        []string
	}{
		{"PostToolUse", "apply_patch", []string{"p.txt"}}, {"PreToolUse", "apply_patch", nil},
		{"PreToolUse", "Bash", []string{"p.txt"}}, {"PostToolUse", "Bash", nil},
	} {
		if got := host.EditedFiles(tc.event, tc.tool, patch); !slices.Equal(got, tc.want) {
			t.Errorf("EditedFiles(%s, %s) = %v, want %v", tc.event, tc.tool, got, tc.want)
		}
	}
	if got := host.ToolAliases("apply_patch"); !slices.Equal(got, []string{"Write", "Edit"}) {
		t.Errorf("aliases %v", got)
	}
}
