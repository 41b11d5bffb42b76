package hooks

import (
	"reflect"
	"testing"
)

func TestParseAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		ok      bool
		wantErr bool
		want    Answer
	}{
		{`{"decision":"block","reason":"lint failed","feedback":"run lint:fix"}`, true, false, Answer{Decision: "block", Reason: "lint failed", Feedback: "run lint:fix"}},
		{"  {\"decision\": \"approve\"}\n", true, false, Answer{Decision: "approve"}},
		{`{"decision":"Block"}`, true, false, Answer{Decision: "block"}},
		{`{"decision":"ask","reason":"touches prod"}`, true, false, Answer{Decision: "ask", Reason: "touches prod"}},
		{`{"feedback":"consider tests"}`, true, false, Answer{Feedback: "consider tests"}},
		// Claude Code's (and Codex's) shapes
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}`, true, false, Answer{Decision: "block", Reason: "no rm"}},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?","additionalContext":"ctx"}}`, true, false, Answer{Decision: "ask", Reason: "sure?", Feedback: "ctx"}},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, true, false, Answer{Decision: "approve"}},
		{`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not now"}}}`, true, false, Answer{Decision: "block", Reason: "not now"}},
		{`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 2 warnings"}}`, true, false, Answer{Feedback: "lint: 2 warnings"}},
		{`{"decision":"block","reason":"tests fail","hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"run go test"}}`, true, false, Answer{Decision: "block", Reason: "tests fail", Feedback: "run go test"}},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}`, false, false, Answer{}},
		{`{"decision":"blcok"}`, false, true, Answer{}},
		{`{"decision":7}`, false, true, Answer{}},
		{`{"status":"ok"}`, false, false, Answer{}},
		{`plain output`, false, false, Answer{}},
		{`{"decision":"block"} trailing`, false, false, Answer{}},
		{`[1,2]`, false, false, Answer{}},
		{``, false, false, Answer{}},
		// A rewritten tool input, native and in Claude Code's shape
		{`{"updatedInput":{"command":"ls -la"}}`, true, false, Answer{UpdatedInput: map[string]any{"command": "ls -la"}}},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`, true, false, Answer{Decision: "approve", UpdatedInput: map[string]any{"command": "ls"}}},
		{`{"updatedInput":"not an object"}`, false, false, Answer{}},
	}
	for _, tc := range tests {
		got, ok, err := ParseAnswer(tc.in)
		if ok != tc.ok || (err != nil) != tc.wantErr || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("ParseAnswer(%q) = %+v, %v, %v; want %+v, %v, err=%v", tc.in, got, ok, err, tc.want, tc.ok, tc.wantErr)
		}
	}
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{"decision":"block","reason":"r"}`, `{"decision":"approve"}`, `{}`, `{"decision":null}`, "{\"decision\":\"\\u0062lock\"}", `not json`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok, err := ParseAnswer(s)
		if ok && err != nil {
			t.Fatalf("ok with error")
		}
		if ok && a.Decision != DecisionBlock && a.Decision != DecisionApprove && a.Decision != DecisionSkip && a.Decision != DecisionAsk && (a.Decision != "" || a.Feedback == "") {
			t.Fatalf("ok with decision %q, feedback %q", a.Decision, a.Feedback)
		}
	})
}
