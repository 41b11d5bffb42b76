package agenttest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// events posts body to the server's path and returns the SSE events of the answer, in order.
func events(t *testing.T, srv *Server, path, body string) []map[string]any {
	t.Helper()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s: %s %s: %s", path, resp.Status, resp.Header.Get("Content-Type"), b)
	}
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var ev map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev); err != nil {
				t.Fatal(err)
			}
			if ev["type"] != name {
				t.Errorf("event %q carries type %v", name, ev["type"])
			}
			out = append(out, ev)
		}
	}
	return out
}

func types(evs []map[string]any) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e["type"].(string))
	}
	return out
}

func newServer(t *testing.T, steps ...Step) *Server {
	t.Helper()
	srv, err := NewServer("/proj", steps...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

const (
	claudeTurn0 = `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"do it"}]}`
	claudeTurn1 = `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"do it"},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_agenttest_0","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_agenttest_0","content":"denied: no writes","is_error":true},
			{"type":"text","text":"<system-reminder>ctx</system-reminder>"}]}]}`
	codexTurn0 = `{"model":"gpt-5.5","stream":true,"tools":[{"type":"function","name":"exec_command"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"do it"}]}]}`
	codexTurn1 = `{"model":"gpt-5.5","stream":true,"tools":[{"type":"function","name":"exec_command"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"do it"}]},
		{"type":"function_call","call_id":"call_agenttest_0","name":"exec_command","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_agenttest_0","output":"Command blocked by PreToolUse hook: no writes. Command: x"}]}`
)

func TestAnthropicStreamsTheScriptedToolCallThenDone(t *testing.T) {
	srv := newServer(t, Shell("echo hi > out.txt"))
	evs := events(t, srv, "/v1/messages?beta=true", claudeTurn0)
	want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if got := types(evs); !reflect.DeepEqual(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	block := evs[1]["content_block"].(map[string]any)
	if block["type"] != "tool_use" || block["name"] != "Bash" {
		t.Errorf("content block = %v", block)
	}
	var input map[string]any
	if err := json.Unmarshal([]byte(evs[2]["delta"].(map[string]any)["partial_json"].(string)), &input); err != nil {
		t.Fatal(err)
	}
	if input["command"] != "echo hi > out.txt" {
		t.Errorf("tool input = %v", input)
	}
	if stop := evs[4]["delta"].(map[string]any)["stop_reason"]; stop != "tool_use" {
		t.Errorf("stop_reason = %v", stop)
	}

	// A retry of the first request gets the same call; the request after the result gets "done".
	if again := events(t, srv, "/v1/messages", claudeTurn0); !reflect.DeepEqual(again, evs) {
		t.Errorf("a retried request got a different answer:\n%v\n%v", again, evs)
	}
	evs = events(t, srv, "/v1/messages", claudeTurn1)
	if d := evs[2]["delta"].(map[string]any); d["text"] != Done {
		t.Errorf("after the result: %v", d)
	}
	if stop := evs[4]["delta"].(map[string]any)["stop_reason"]; stop != "end_turn" {
		t.Errorf("stop_reason = %v", stop)
	}
	got := srv.ToolResults()
	if want := []ToolResult{{CallID: "toolu_agenttest_0", Content: "denied: no writes", IsError: true}}; !reflect.DeepEqual(got, want) {
		t.Errorf("tool results = %+v, want %+v", got, want)
	}
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
}

func TestAnthropicWriteIsAbsoluteAndSideRequestsGetText(t *testing.T) {
	srv := newServer(t, Write("sub/f.txt", "hello\n"))
	evs := events(t, srv, "/v1/messages", claudeTurn0)
	var input map[string]any
	if err := json.Unmarshal([]byte(evs[2]["delta"].(map[string]any)["partial_json"].(string)), &input); err != nil {
		t.Fatal(err)
	}
	if input["file_path"] != "/proj/sub/f.txt" || input["content"] != "hello\n" {
		t.Errorf("Write input = %v", input)
	}
	noTools := `{"model":"m","stream":true,"messages":[{"role":"user","content":"title?"}]}`
	evs = events(t, srv, "/v1/messages", noTools)
	if d := evs[2]["delta"].(map[string]any); d["text"] != Done {
		t.Errorf("side request answered %v", d)
	}
}

func TestOpenAIStreamsTheScriptedCallsThenDone(t *testing.T) {
	srv := newServer(t, Shell("echo hi > out.txt"), Write("/proj/p.txt", "a\nb"))
	evs := events(t, srv, "/v1/responses", codexTurn0)
	want := []string{"response.created", "response.output_item.added", "response.output_item.done", "response.completed"}
	if got := types(evs); !reflect.DeepEqual(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	for i, e := range evs {
		if e["sequence_number"] != float64(i) {
			t.Errorf("event %d: sequence_number %v", i, e["sequence_number"])
		}
	}
	item := evs[2]["item"].(map[string]any)
	if item["type"] != "function_call" || item["name"] != "exec_command" || item["arguments"] != `{"cmd":"echo hi \u003e out.txt"}` {
		t.Errorf("item = %v", item)
	}
	evs = events(t, srv, "/v1/responses", codexTurn1)
	item = evs[2]["item"].(map[string]any)
	wantPatch := "*** Begin Patch\n*** Add File: p.txt\n+a\n+b\n*** End Patch\n"
	if item["type"] != "custom_tool_call" || item["name"] != "apply_patch" || item["input"] != wantPatch {
		t.Errorf("item = %v", item)
	}
	got := srv.ToolResults()
	if want := []ToolResult{{CallID: "call_agenttest_0", Content: "Command blocked by PreToolUse hook: no writes. Command: x"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("tool results = %+v, want %+v", got, want)
	}
}

func TestUnknownRequestsAreRefusedAndReported(t *testing.T) {
	srv := newServer(t)
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400 (a 5xx is retried)", resp.StatusCode)
	}
	if err := srv.Err(); err == nil || !strings.Contains(err.Error(), "/v1/chat/completions") {
		t.Errorf("Err() = %v", err)
	}
}

func TestRequestsAreRecordedWithoutTheKey(t *testing.T) {
	srv := newServer(t)
	req, _ := http.NewRequest("POST", srv.URL+"/v1/messages", strings.NewReader(claudeTurn0))
	req.Header.Set("X-Api-Key", "sk-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Turn != 0 || reqs[0].Header.Get("X-Api-Key") != "<redacted>" {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestParseSteps(t *testing.T) {
	got, err := parseSteps([]string{"shell", "ls", "write", "f", "c", "tool", "Read", `{"file_path":"/x"}`, "text", "bye"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{Shell("ls"), Write("f", "c"), {Tool: "Read", Input: json.RawMessage(`{"file_path":"/x"}`)}, Text("bye")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, bad := range [][]string{{"shell"}, {"run", "x"}, {"tool", "X", "{"}} {
		if _, err := parseSteps(bad); err == nil {
			t.Errorf("parseSteps(%q) accepted", bad)
		}
	}
}

func TestPlatformBinaries(t *testing.T) {
	got := platformBinaries(Codex, "/nm", "linux", "arm64")
	if want := []string{"/nm/@openai/codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex"}; !reflect.DeepEqual(got, want) {
		t.Errorf("codex linux/arm64 = %v", got)
	}
	got = platformBinaries(Claude, "/nm", "darwin", "amd64")
	if got[0] != "/nm/@anthropic-ai/claude-code-darwin-x64/claude" {
		t.Errorf("claude darwin/amd64 = %v", got)
	}
}

func TestLocateRefusesClaudesStub(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/claude", []byte("#!/bin/sh\necho 'Error: claude native binary not installed.' >&2; exit 1\n"))
	if err := chmodX(dir + "/claude"); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": dir}
	_, err := Locate(Claude, func(k string) string { return env[k] }, "")
	if _, ok := err.(*NotFoundError); !ok {
		t.Errorf("Locate found the stub: %v", err)
	}
	env[Claude.EnvVar()] = dir + "/claude"
	if _, err := Locate(Claude, func(k string) string { return env[k] }, ""); err == nil || !strings.Contains(err.Error(), "stub") {
		t.Errorf("Locate with %s = the stub: %v", Claude.EnvVar(), err)
	}
}

// chatChunks posts body to the chat/completions fake and returns its data chunks, [DONE] last.
func chatChunks(t *testing.T, srv *Server, body string) []string {
	t.Helper()
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestChatStreamsTheScriptedCallsThenDone(t *testing.T) {
	srv := newServer(t, Shell("echo hi > out.txt"))
	turn0 := `{"model":"gpt-4o","stream":true,"tools":[{"type":"function","function":{"name":"run_commands"}}],"messages":[{"role":"user","content":"do it"}]}`
	got := chatChunks(t, srv, turn0)
	if len(got) != 4 || got[3] != "[DONE]" {
		t.Fatalf("chunks = %q", got)
	}
	for _, want := range []string{`"tool_calls":[{"function":{"arguments":"{\"commands\":[\"echo hi \\u003e out.txt\"]}","name":"run_commands"},"id":"call_agenttest_0","index":0,"type":"function"}]`, `"finish_reason":"tool_calls"`, `"usage":{`} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("no %s in %q", want, got)
		}
	}
	turn1 := `{"model":"gpt-4o","stream":true,"tools":[{"type":"function","function":{"name":"run_commands"}}],"messages":[{"role":"user","content":"do it"},
		{"role":"assistant","tool_calls":[{"id":"call_agenttest_0","type":"function","function":{"name":"run_commands","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_agenttest_0","content":[{"type":"text","text":"hi"}]}]}`
	got = chatChunks(t, srv, turn1)
	if !strings.Contains(got[0], `"content":"done"`) || !strings.Contains(got[1], `"finish_reason":"stop"`) {
		t.Errorf("after the result: %q", got)
	}
	if want := []ToolResult{{CallID: "call_agenttest_0", Content: "hi"}}; !reflect.DeepEqual(srv.ToolResults(), want) {
		t.Errorf("tool results = %+v", srv.ToolResults())
	}
}

func TestPlatformBinariesOfCopilotAndCline(t *testing.T) {
	if got := platformBinaries(Copilot, "/nm", "linux", "amd64"); !reflect.DeepEqual(got, []string{"/nm/@github/copilot-linux-x64/copilot"}) {
		t.Errorf("copilot = %v", got)
	}
	if got := platformBinaries(Cline, "/nm", "darwin", "arm64"); !reflect.DeepEqual(got, []string{"/nm/@cline/cli-darwin-arm64/bin/cline"}) {
		t.Errorf("cline = %v", got)
	}
}
