package approval

import (
	"maps"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
)

// TestRequestIDOfAToolCall: attempts at one call are one request whatever ids the agent gives
// them; any difference in what the call does, where, in which session or at which event is
// another request.
func TestRequestIDOfAToolCall(t *testing.T) {
	t.Parallel()
	id := func(p hooks.Payload) string {
		t.Helper()
		s, err := RequestID("Run it?", p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := agentCall("rm -rf build", "1")
	with := func(change func(p hooks.Payload, tc map[string]any)) hooks.Payload {
		p := maps.Clone(base)
		tc := maps.Clone(base["toolCall"].(map[string]any))
		tc["input"] = maps.Clone(tc["input"].(map[string]any))
		p["toolCall"] = tc
		change(p, tc)
		return p
	}
	if a, b := id(base), id(agentCall("rm -rf build", "2")); a != b {
		t.Errorf("two attempts at one call: %s != %s", a, b)
	}
	if a, b := id(base), id(with(func(p hooks.Payload, _ map[string]any) { p["sessionId"], p["timestamp"] = "x", 1 })); a != b {
		t.Errorf("another firing of one call: %s != %s", a, b)
	}
	for name, p := range map[string]hooks.Payload{
		"another command":       agentCall("rm -rf /", "1"),
		"another input":         with(func(_ hooks.Payload, tc map[string]any) { tc["input"].(map[string]any)["run_in_background"] = true }),
		"another directory":     with(func(_ hooks.Payload, tc map[string]any) { tc["cwd"] = "/" }),
		"another agent session": with(func(p hooks.Payload, _ map[string]any) { p["agentSessionId"] = "sess-2" }),
		"another event":         with(func(p hooks.Payload, _ map[string]any) { p["eventName"] = hooks.PermissionRequest }),
	} {
		if id(p) == id(base) {
			t.Errorf("%s: same request id", name)
		}
	}
	if id(hooks.Payload{"issueNumber": 1}) == id(hooks.Payload{"issueNumber": 2}) {
		t.Error("payloads without a tool call: the whole subject no longer counts")
	}
}

// TestToolCallText: a call without a command shows its input; a large one is cut, saying so.
func TestToolCallText(t *testing.T) {
	t.Parallel()
	tc := ToolCallOf(hooks.Payload{"toolCall": map[string]any{"tool": "Write", "file": "/w/a.txt",
		"input": map[string]any{"file_path": "/w/a.txt", "content": "one\n"}}})
	want := "Tool: Write\nFile: /w/a.txt\nInput:\n    {\n      \"content\": \"one\\n\",\n      \"file_path\": \"/w/a.txt\"\n    }"
	if got := tc.Text(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	big := strings.Repeat("é", MaxShown)
	if got := Shown(big); len(got) > MaxShown+50 || !strings.HasSuffix(got, "more bytes not shown)") || !strings.HasPrefix(got, "éé") {
		t.Errorf("Shown of %d bytes: %d bytes ending %q", len(big), len(got), got[len(got)-40:])
	}
	if ToolCallOf(hooks.Payload{"toolCall": map[string]any{}}) != nil {
		t.Error("an empty toolCall is a tool call")
	}
}
