package agenttest

import (
	"bytes"
	"strings"
	"testing"
)

// nopCloser is a buffer taking the host's writes to Claude's stdin.
type nopCloser struct{ bytes.Buffer }

func (*nopCloser) Close() error { return nil }

// TestPromptHostAnswersOnlyWhatTheHooksLeaveOpen feeds the host lines of Claude's stream-json
// output, as Claude 2.1.197 prints them, and checks what it answers: nothing while a
// PermissionRequest hook runs or after one decided (Claude withdraws its prompt itself), the
// person's answer once every hook answered without deciding.
func TestPromptHostAnswersOnlyWhatTheHooksLeaveOpen(t *testing.T) {
	const (
		ask      = `{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"echo hi > out.txt"}}}`
		started  = `{"type":"system","subtype":"hook_started","hook_id":"h1","hook_event":"PermissionRequest"}`
		started2 = `{"type":"system","subtype":"hook_started","hook_id":"h2","hook_event":"PermissionRequest"}`
		passed   = `{"type":"system","subtype":"hook_response","hook_id":"h1","hook_event":"PermissionRequest","stdout":"","exit_code":0}`
		passed2  = `{"type":"system","subtype":"hook_response","hook_id":"h2","hook_event":"PermissionRequest","stdout":"","exit_code":0}`
		denied   = `{"type":"system","subtype":"hook_response","hook_id":"h1","hook_event":"PermissionRequest","stdout":"{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"deny\",\"message\":\"no\"}}}\n","exit_code":0}`
		exit2    = `{"type":"system","subtype":"hook_response","hook_id":"h1","hook_event":"PermissionRequest","stdout":"","exit_code":2}`
		cancel   = `{"type":"control_cancel_request","request_id":"r1"}`
		pre      = `{"type":"system","subtype":"hook_response","hook_id":"h0","hook_event":"PreToolUse","stdout":"","exit_code":0}`
		result   = `{"type":"result","subtype":"success"}`
	)
	for _, tc := range []struct {
		name    string
		person  PermissionPrompt
		lines   []string
		want    string // what the host wrote to Claude's stdin ("" for nothing)
		answers string // the prompts' ends, "tool:by" joined by spaces
	}{
		{"a hook passes: the person allows with the input asked about", PromptAllow, []string{ask, started, passed},
			`"behavior":"allow","updatedInput":{"command":"echo hi \u003e out.txt"}`, "Bash:allow"},
		{"a hook passes: the person denies", PromptDeny, []string{ask, started, passed},
			`"behavior":"deny","message":"` + PromptDenied + `"`, "Bash:deny"},
		{"a hook still runs: nobody answers yet", PromptAllow, []string{ask, started}, "", ""},
		{"no hook started yet: nobody answers", PromptAllow, []string{ask, pre}, "", ""},
		{"one of two hooks still runs", PromptAllow, []string{ask, started, started2, passed}, "", ""},
		{"both hooks pass", PromptAllow, []string{ask, started, started2, passed2, passed}, `"behavior":"allow"`, "Bash:allow"},
		{"a hook denies: Claude withdraws the prompt", PromptAllow, []string{ask, started, denied, cancel}, "", "Bash:hook"},
		{"a hook exits 2: Claude leaves the prompt open, the person answers", PromptDeny, []string{ask, started, exit2}, `"behavior":"deny"`, "Bash:deny"},
		{"hooks of other events do not count", PromptAllow, []string{pre, ask, started, passed}, `"behavior":"allow"`, "Bash:allow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &nopCloser{}
			h := &promptHost{person: tc.person, in: in}
			for _, l := range tc.lines {
				if done, err := h.line([]byte(l)); err != nil || done {
					t.Fatalf("line %s: done %v, err %v", l, done, err)
				}
			}
			got := in.String()
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("host wrote %q, want %q", got, tc.want)
			}
			if got != "" && !strings.Contains(got, `"request_id":"r1"`) {
				t.Errorf("host wrote %q: not an answer to r1", got)
			}
			var ends []string
			for _, a := range h.answers {
				ends = append(ends, a.Tool+":"+a.By)
			}
			if g := strings.Join(ends, " "); g != tc.answers {
				t.Errorf("prompts ended %q, want %q", g, tc.answers)
			}
			if done, err := h.line([]byte(result)); !done || err != nil {
				t.Errorf("result: done %v, err %v", done, err)
			}
		})
	}
}

// TestPromptHostAnswersAPromptNoHookLooksAt: without any PermissionRequest hook, the person
// answers once its patience ran out.
func TestPromptHostAnswersAPromptNoHookLooksAt(t *testing.T) {
	in := &nopCloser{}
	h := &promptHost{person: PromptDeny, in: in}
	if _, err := h.line([]byte(`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Write","input":{}}}`)); err != nil {
		t.Fatal(err)
	}
	if in.Len() != 0 {
		t.Fatalf("answered at once: %s", in.String())
	}
	if err := h.answerIfUndecided(true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(in.String(), `"behavior":"deny"`) {
		t.Errorf("host wrote %q, want a deny", in.String())
	}
}

// TestPromptHostRefusesOtherControlRequests: a control request the harness never asked for gets
// an error, not silence Claude would wait on.
func TestPromptHostRefusesOtherControlRequests(t *testing.T) {
	in := &nopCloser{}
	h := &promptHost{person: PromptAllow, in: in}
	if _, err := h.line([]byte(`{"type":"control_request","request_id":"r9","request":{"subtype":"mcp_message"}}`)); err != nil {
		t.Fatal(err)
	}
	if got := in.String(); !strings.Contains(got, `"subtype":"error"`) || !strings.Contains(got, `"request_id":"r9"`) {
		t.Errorf("host wrote %q, want an error response to r9", got)
	}
}
