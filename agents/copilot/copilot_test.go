package copilot_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/copilot"
	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
	"github.com/autoagent/agent-hooks/hooks"
)

var host = copilot.Agent{}

// TestAnswers: the camelCase dialect's flat answer, only what Copilot reads for the event; the
// PascalCase dialect's is Claude Code's.
func TestAnswers(t *testing.T) {
	t.Parallel()
	v := func(hostEvent, event string, v agents.Verdict) agents.Verdict {
		v.HostEvent, v.Event = hostEvent, event
		return v
	}
	tests := []struct {
		name string
		v    agents.Verdict
		want string
	}{
		{"deny", v("preToolUse", hooks.PreToolUse, agents.Verdict{Decision: agents.Deny, Reason: " no rm <x> \n", Context: []string{"c"}}),
			`{"permissionDecision":"deny","permissionDecisionReason":"no rm <x>"}`},
		{"deny without a reason", v("preToolUse", hooks.PreToolUse, agents.Verdict{Decision: agents.Deny}),
			`{"permissionDecision":"deny","permissionDecisionReason":"blocked by agent-hooks"}`},
		{"ask", v("preToolUse", hooks.PreToolUse, agents.Verdict{Decision: agents.Ask, Reason: "sure?"}),
			`{"permissionDecision":"ask","permissionDecisionReason":"sure?"}`},
		{"a pass says nothing", v("preToolUse", hooks.PreToolUse, agents.Verdict{Warnings: []string{"w"}}), ``},
		{"permission denied", v("permissionRequest", hooks.PermissionRequest, agents.Verdict{Decision: agents.Deny, Reason: "no"}),
			`{"behavior":"deny","message":"no"}`},
		{"permission granted", v("permissionRequest", hooks.PermissionRequest, agents.Verdict{Decision: agents.Allow}), `{"behavior":"allow"}`},
		{"PascalCase PermissionRequest is sent camelCase", v("PermissionRequest", hooks.PermissionRequest, agents.Verdict{Decision: agents.Allow}), `{"behavior":"allow"}`},
		{"stop blocked: keep working", v("agentStop", hooks.Stop, agents.Verdict{Decision: agents.Deny, Reason: "tests fail", Context: []string{"c"}}),
			`{"decision":"block","reason":"tests fail"}`},
		{"subagent stop", v("subagentStop", hooks.SubagentStop, agents.Verdict{Decision: agents.Deny}), `{"decision":"block","reason":"blocked by agent-hooks"}`},
		{"post tool use: block and context", v("postToolUse", hooks.PostToolUse, agents.Verdict{Block: "lint", Context: []string{"c1", "c2"}}),
			`{"additionalContext":"lint\n\nc1\n\nc2"}`},
		{"session start context", v("sessionStart", hooks.SessionStart, agents.Verdict{Context: []string{"hello"}}), `{"additionalContext":"hello"}`},
		{"a prompt is blocked", v("userPromptSubmitted", hooks.UserPromptSubmit, agents.Verdict{Decision: agents.Deny, Reason: "r"}), `{"decision":"block","reason":"r"}`},
		{"a prompt's context", v("userPromptSubmitted", hooks.UserPromptSubmit, agents.Verdict{Context: []string{"c"}}), `{"additionalContext":"c"}`},
		{"session end", v("sessionEnd", hooks.SessionEnd, agents.Verdict{Context: []string{"c"}}), ``},
		{"PascalCase is Claude's shape", v("PreToolUse", hooks.PreToolUse, agents.Verdict{Decision: agents.Deny, Reason: "r"}),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r"}}`},
	}
	for _, tt := range tests {
		got, err := host.Answer(&tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tt.name, got, err, tt.want)
		}
	}
}

// TestGateThroughCopilotInputs: Copilot's captured inputs through the real runner and sh hooks: a
// PreToolUse gate matched by Claude's tool name denies bash in Copilot's shape; the native hook
// gets Copilot's fields and the normalised ones; the session is the agent's.
func TestGateThroughCopilotInputs(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, hooktest.Config("PreToolUse", hooktest.Cmd("cat > pre.json"), hooktest.Cmd("echo 'no shell here' >&2; exit 2", `"tools": "Bash"`)))
	e.Event = "preToolUse"
	got := e.Answer(host, e.Input("copilot", "preToolUse.bash", nil), 0)
	if want := `{"permissionDecision":"deny","permissionDecisionReason":"no shell here"}`; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	var pre map[string]any
	if err := json.Unmarshal([]byte(e.Read("pre.json")), &pre); err != nil {
		t.Fatal(err)
	}
	const id = "22ccb369-4e2f-460b-822e-247d18eb2711"
	if pre["agent"] != "copilot" || pre["toolName"] != "bash" || pre["agentSessionId"] != id || pre["sessionId"] == id ||
		fmt.Sprint(pre["toolInput"]) != "map[command:echo hi > out.txt description:write hi to out.txt]" ||
		fmt.Sprint(pre["toolAliases"]) != "[Bash]" || pre["eventName"] != "PreToolUse" || pre["timestamp"] == nil {
		t.Errorf("payload %v", pre)
	}
	list := e.Sessions()
	if len(list) != 1 || list[0].Agent != "copilot" || list[0].AgentSessionID != id {
		t.Fatalf("sessions %+v", list)
	}
	trail := e.Trail(list[0].ID)
	if last := trail[len(trail)-1]; last.Decision != agents.Deny || last.Reason != "no shell here" {
		t.Errorf("trail %+v", trail)
	}

	// GitHub's documented shape: toolArgs a JSON string, no sessionId.
	got = e.Answer(host, e.Input("copilot", "preToolUse.bash.doc", map[string]any{"cwd": e.Workspace}), 0)
	if want := `{"permissionDecision":"deny","permissionDecisionReason":"no shell here"}`; got != want {
		t.Errorf("doc shape:\n got %s\nwant %s", got, want)
	}
	if err := json.Unmarshal([]byte(e.Read("pre.json")), &pre); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(pre["toolInput"]) != "map[command:rm -rf dist description:Clean build directory]" {
		t.Errorf("doc payload %v", pre)
	}

	// The PascalCase dialect: Claude's shape in and out.
	e.Event = ""
	got = e.Answer(host, e.Input("copilot", "PreToolUse.Bash.pascal", nil), 0)
	if want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no shell here"}}`; got != want {
		t.Errorf("pascal:\n got %s\nwant %s", got, want)
	}
}

// TestFailClosed: Copilot lets a tool run when its hook outlives timeoutSec, so agent-hooks
// denies before; a broken configuration denies; input that names no event is exit 2, which
// Copilot reads as a deny of preToolUse.
func TestFailClosed(t *testing.T) {
	t.Parallel()
	t.Run("broken config", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, "{\"hooks\": {\n  \"PreToolUs\": []}}")
		e.Event = "preToolUse"
		got := e.Answer(host, e.Input("copilot", "preToolUse.bash", nil), 0)
		want := `{"permissionDecision":"deny","permissionDecisionReason":"agent-hooks refused this PreToolUse: its hooks could not run: ` +
			e.Workspace + `/.autoagent/config.json:2:3: hooks: unknown event \"PreToolUs\"; did you mean \"PreToolUse\"?"}`
		if got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("hooks outlast timeoutSec", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, hooktest.Config("PreToolUse", hooktest.Cmd("sleep 30")))
		e.Event = "preToolUse"
		got := e.Answer(host, e.Input("copilot", "preToolUse.bash", nil), time.Second)
		want := `{"permissionDecision":"deny","permissionDecisionReason":"agent-hooks refused this PreToolUse: its hooks could not run: the hooks did not finish within 750ms, before copilot's own timeout of 1s (raise the hook's timeout, and --timeout with it)"}`
		if got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("no event", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, hooktest.Config("PreToolUse", hooktest.Cmd("true")))
		reply := e.Handle(host, e.Input("copilot", "preToolUse.bash", nil), 0)
		if reply.ExitCode != 2 || len(reply.Stdout) != 0 || !strings.Contains(reply.Stderr, "the input names no event: give it with --event") {
			t.Errorf("%+v", reply)
		}
	})
}

// TestEvents: every event Copilot fires, in both spellings, maps onto a canonical one; the
// install list is camelCase.
func TestEvents(t *testing.T) {
	t.Parallel()
	for _, ev := range copilot.Events {
		got, ok := host.Event(ev.Agent)
		if !ok || got != ev.Canonical {
			t.Errorf("%s -> %s, %v; want %s", ev.Agent, got, ok, ev.Canonical)
		}
	}
	for camel, pascal := range map[string]string{"agentStop": "Stop", "userPromptSubmitted": "UserPromptSubmit", "errorOccurred": "ErrorOccurred"} {
		a, _ := host.Event(camel)
		b, _ := host.Event(pascal)
		if a != b {
			t.Errorf("%s %s / %s %s", camel, a, pascal, b)
		}
	}
	if _, ok := host.Event("userPromptTransformed"); ok {
		t.Error("userPromptTransformed has no canonical event")
	}
	if got := host.EditedFiles(hooks.PostToolUse, "create", map[string]any{"path": "a.txt"}); !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("create: %v", got)
	}
	if got := host.EditedFiles(hooks.PreToolUse, "create", map[string]any{"path": "a.txt"}); got != nil {
		t.Errorf("create before the call: %v", got)
	}
	if host.Budget("preToolUse", 0, nil) != 30*time.Second || host.Budget("preToolUse", time.Minute, nil) != time.Minute {
		t.Error("budget")
	}
}

// TestNotificationIsCamelCase: Copilot's camelCase notification input also carries
// hook_event_name ("Notification"); with --event it is still the camelCase dialect: the session
// is sessionId's, and the answer flat.
func TestNotificationIsCamelCase(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, hooktest.Config("Notification", hooktest.Cmd(`echo '{"feedback":"seen"}'`)))
	e.Event = "notification"
	if got, want := e.Answer(host, e.Input("copilot", "notification", nil), 0), `{"additionalContext":"seen"}`; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if list := e.Sessions(); len(list) != 1 || list[0].AgentSessionID != "e0ca95eb-a247-4794-b019-45e7ecdb0b16" {
		t.Errorf("sessions %+v", list)
	}
}
