package claude_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// config is a native config with the hooks of one event.
// TestMergedDecisions: the hooks of a PreToolUse answer in one JSON document: deny over ask over
// allow, reasons joined; feedback is additionalContext; a pass prints nothing.
func TestMergedDecisions(t *testing.T) {
	t.Parallel()
	approve := hooktest.Cmd(`echo '{"decision":"approve","reason":"ok by policy"}'`)
	tests := []struct {
		name  string
		hooks []string
		want  string
	}{
		{"no hooks", nil, ``},
		{"hooks that pass", []string{hooktest.Cmd("true"), hooktest.Cmd("echo some output")}, ``},
		{"a deny and an allow", []string{approve, hooktest.Cmd("echo 'no writes to a.txt' >&2; exit 2"), approve},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no writes to a.txt"}}`},
		{"two Claude-style denies: the first stops the others", []string{
			hooktest.Cmd(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"first"}}'`),
			hooktest.Cmd(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"second"}}'`)},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"first"}}`},
		{"asks joined", []string{hooktest.Cmd(`echo '{"decision":"ask","reason":"prod config"}'`), approve, hooktest.Cmd(`echo '{"decision":"ask","reason":"big file"}'`)},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"prod config\nbig file"}}`},
		{"an allow", []string{hooktest.Cmd("true"), approve},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok by policy"}}`},
		{"feedback is context, a failure a warning", []string{hooktest.Cmd(`echo '{"feedback":"prefer Edit over Write"}'`), hooktest.Cmd("echo flaky >&2; exit 1", `"name": "flaky"`)},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"prefer Edit over Write"},"systemMessage":"agent-hooks: hook flaky failed: exited with status 1: flaky"}`},
		{"tools selects", []string{hooktest.Cmd("exit 2", `"tools": "Bash|Edit"`), hooktest.Cmd("echo write >&2; exit 2", `"tools": "Write"`)},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"write"}}`},
		{"matcher on the normalised fields", []string{hooktest.Cmd("echo $AUTOAGENT_PAYLOAD >&2; exit 2", `"matcher": {"field": "toolInput.content", "regex": "^two"}`),
			hooktest.Cmd("echo one >&2; exit 2", `"matcher": {"field": "toolInput.content", "regex": "^one"}`)},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"one"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := hooktest.New(t, hooktest.Config("PreToolUse", tt.hooks...))
			if got := e.Answer(host, e.Input("claude", "PreToolUse.Write", nil), 0); got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestPayloadOfNativeHooks: a native hook gets Claude's fields unchanged, agent-hooks' own, and
// the normalised ones.
func TestPayloadOfNativeHooks(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, hooktest.Config("PreToolUse", hooktest.Cmd("cat > payload.json")))
	e.Answer(host, e.Input("claude", "PreToolUse.Bash", nil), 0)
	var p map[string]any
	if err := json.Unmarshal([]byte(e.Read("payload.json")), &p); err != nil {
		t.Fatal(err)
	}
	input := map[string]any{"command": "echo failing; exit 3", "description": "fail"}
	want := map[string]any{
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "toolu_fake_1795368400284341105",
		"session_id": "90d82a6c-7a0a-4af5-8c86-1cd1a2d41641", "cwd": e.Workspace, "permission_mode": "bypassPermissions",
		"eventName": "PreToolUse", "workspace": e.Workspace, "agent": "claude",
		"agentSessionId": "90d82a6c-7a0a-4af5-8c86-1cd1a2d41641", "toolName": "Bash", "toolUseId": "toolu_fake_1795368400284341105",
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %v, want %v", k, p[k], v)
		}
	}
	for _, k := range []string{"tool_input", "toolInput"} {
		if fmt.Sprint(p[k]) != fmt.Sprint(input) {
			t.Errorf("%s = %v", k, p[k])
		}
	}
	if p["transcriptPath"] != p["transcript_path"] || !strings.HasPrefix(fmt.Sprint(p["sessionId"]), "session-") || p["timestamp"] == nil {
		t.Errorf("payload %v", p)
	}
	wantCall := map[string]any{"tool": "Bash", "command": "echo failing; exit 3", "reason": "fail", "cwd": e.Workspace, "input": input,
		"kind": "shell", "commands": []any{map[string]any{"argv": []any{"echo", "failing"}}, map[string]any{"argv": []any{"exit", "3"}}}}
	if got, _ := json.Marshal(p["toolCall"]); string(got) != mustJSON(t, wantCall) {
		t.Errorf("toolCall = %s, want %s", got, mustJSON(t, wantCall))
	}
}

// TestToolCallOfEachEvent: the tool call an approval shows and is for (its command, input, cwd) is
// in the payload of the events that ask about one (PreToolUse, PermissionRequest), never of those
// after the call; the normalized call (kind, files, commands) is in every tool event's.
func TestToolCallOfEachEvent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ event, input, want string }{
		{hooks.PermissionRequest, "PermissionRequest.Write", `{"cwd":"$W","file":"$W/w.txt","input":{"content":"x","file_path":"$W/w.txt"},"kind":"write","tool":"Write","writes":["w.txt"]}`},
		{hooks.PreToolUse, "PreToolUse.Edit", `"tool":"Edit"`},
		{hooks.PostToolUse, "PostToolUse.Write", `{"kind":"write","tool":"Write","writes":["a.txt"]}`},
	} {
		t.Run(tt.input, func(t *testing.T) {
			t.Parallel()
			e := hooktest.New(t, hooktest.Config(tt.event, hooktest.Cmd("cat > payload.json")))
			e.Answer(host, e.Input("claude", tt.input, nil), 0)
			var p map[string]any
			if err := json.Unmarshal([]byte(e.Read("payload.json")), &p); err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(p["toolCall"])
			if want := strings.ReplaceAll(tt.want, "$W", e.Workspace); !strings.Contains(string(got), want) {
				t.Errorf("toolCall = %s, want %s", got, want)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFailClosed: on a blockable event, whatever keeps the hooks from deciding is a deny that
// says why, answered with exit 0, within the budget; on an event that cannot block, a warning.
func TestFailClosed(t *testing.T) {
	t.Parallel()
	t.Run("broken config", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, "{\"hooks\": {\n  \"PreToolUs\": []}}")
		got := e.Answer(host, e.Input("claude", "PreToolUse.Bash", nil), 0)
		want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"agent-hooks refused this PreToolUse: its hooks could not run: ` +
			e.Workspace + `/.autoagent/config.json:2:3: hooks: unknown event \"PreToolUs\"; did you mean \"PreToolUse\"?"}}`
		if got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
		// An event that cannot be blocked proceeds, and the user is told.
		got = e.Answer(host, e.Input("claude", "PostToolUse.Write", nil), 0)
		if !strings.HasPrefix(got, `{"systemMessage":"agent-hooks: agent-hooks could not run the PostToolUse hooks: `) {
			t.Errorf("PostToolUse: %s", got)
		}
		// The refusal is in the session's audit trail, with the tool call.
		s := e.Sessions()
		if len(s) != 1 {
			t.Fatalf("%d sessions", len(s))
		}
		trail := e.Trail(s[0].ID)
		if len(trail) != 1 || trail[0].Status != "refused" || trail[0].ToolUseID != "toolu_fake_1795368400284341105" || !strings.Contains(trail[0].Reason, "config.json:2:3") {
			t.Errorf("trail %+v", trail)
		}
	})
	t.Run("blocking hook times out", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, hooktest.Config("PreToolUse", hooktest.Cmd("sleep 30", `"name": "slow"`, `"blocking": true`, `"timeout": 200`)))
		got := e.Answer(host, e.Input("claude", "PreToolUse.Bash", nil), 0)
		want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"blocking hook slow failed: timed out after 200ms"}}`
		if got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("hooks outlast the budget", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, hooktest.Config("PreToolUse", hooktest.Cmd("sleep 30")))
		got := e.Answer(host, e.Input("claude", "PreToolUse.Bash", nil), time.Second)
		want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"agent-hooks refused this PreToolUse: its hooks could not run: the hooks did not finish within 750ms, before claude's own timeout of 1s (raise the hook's timeout, and --timeout with it)"}}`
		if got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("internal error", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, hooktest.Config("Stop", hooktest.Cmd("true")))
		e.Registry = func(reg *hooks.Registry) { reg.RegisterFormat(panicking{}) }
		got := e.Answer(host, e.Input("claude", "Stop", nil), 0)
		if want := `{"decision":"block","reason":"agent-hooks refused this Stop: its hooks could not run: internal error: extension broke"}`; got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
		if !strings.Contains(e.Messages.String(), "agent-hooks: internal error: extension broke\ngoroutine ") {
			t.Errorf("no stack on stderr: %q", e.Messages.String())
		}
	})
	t.Run("a refused Stop is let through after stopBlockLimit", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, `{"hooks": {"Stop": [{"command": 1}]}}`)
		var got []string
		for range 9 {
			got = append(got, e.Answer(host, e.Input("claude", "Stop", nil), 0)[:22])
		}
		if want := append(slices.Repeat([]string{`{"decision":"block","r`}, 8), `{"systemMessage":"agen`); !slices.Equal(got, want) {
			t.Errorf("answers %q", got)
		}
	})
	t.Run("unreadable input", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, `{}`)
		cut := `{"hook_event_name": "PreToolUse", "tool_input": {"command": "ls"`
		reply := e.Handle(host, []byte(cut), 0)
		// The input ends in an object: said where it stops, its last byte.
		want := fmt.Sprintf(`"permissionDecision":"deny","permissionDecisionReason":"agent-hooks could not read the agent's hook input: the input is not a JSON object: 1:%d: unexpected end of JSON input in an object"`, len(cut))
		if reply.ExitCode != 0 || !strings.Contains(string(reply.Stdout), want) {
			t.Errorf("cut short: %d %s %s", reply.ExitCode, reply.Stdout, reply.Stderr)
		}
		reply = e.Handle(host, []byte(`not json`), 0)
		if reply.ExitCode != 2 || len(reply.Stdout) != 0 || !strings.HasPrefix(reply.Stderr, "agent-hooks could not read the agent's hook input: ") {
			t.Errorf("garbage: %d %s %q", reply.ExitCode, reply.Stdout, reply.Stderr)
		}
		reply = e.Handle(host, []byte(`{"hook_event_name": "PostToolUse", "tool_response": "`+strings.Repeat("x", 100)), 0)
		if reply.ExitCode != 0 || !strings.HasPrefix(string(reply.Stdout), `{"systemMessage":"agent-hooks: agent-hooks could not read`) {
			t.Errorf("PostToolUse cut short: %d %s %q", reply.ExitCode, reply.Stdout, reply.Stderr)
		}
	})
}

// panicking is a format whose extension panics, as a broken built-in would, outside the hooks
// the engine recovers.
type panicking struct{}

func (panicking) Name() string { return "panicking" }
func (p panicking) Load(hooks.LoadEnv) (hooks.Loaded, error) {
	return hooks.Loaded{Extension: p}, nil
}

func (panicking) BeforeEvent(context.Context, *hooks.EventInfo) error { panic("extension broke") }
func (panicking) AfterEvent(context.Context, *hooks.EventInfo, *hooks.Result) error {
	return nil
}

// TestGitTheAgentRuns: a Bash call that commits or pushes fires PreGitCommit and PreGitPush with
// what the command does (bypasses included) before the tool runs; a gate's block denies the call.
func TestGitTheAgentRuns(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {
		"PreGitCommit": [{"command": "p=$(cat); echo \"$p\" >> commit.jsonl; case $p in *'\"noVerify\":true'*) echo 'commits must run the hooks' >&2; exit 2;; esac"}],
		"PreGitPush": [{"command": "cat >> push.jsonl; echo >> push.jsonl; echo 'no pushes from the agent' >&2; exit 2"}]}}`)
	bash := func(command string) string {
		return e.Answer(host, e.Input("claude", "PreToolUse.Bash", map[string]any{"tool_input": map[string]any{"command": command}}), 0)
	}
	if got := bash("git status && ls"); got != `` {
		t.Errorf("no git: %s", got)
	}
	if got := bash("git -C sub commit -m x"); got != `` {
		t.Errorf("a plain commit: %s", got)
	}
	if got, want := bash("git add -A && git commit -n -m wip"), `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"PreGitCommit: commits must run the hooks"}}`; got != want {
		t.Errorf("--no-verify:\n got %s\nwant %s", got, want)
	}
	if got, want := bash("git push origin HEAD"), `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"PreGitPush: no pushes from the agent"}}`; got != want {
		t.Errorf("push:\n got %s\nwant %s", got, want)
	}
	var commits []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(e.Read("commit.jsonl")), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			var p map[string]any
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatal(err)
			}
			commits = append(commits, p)
		}
	}
	if len(commits) != 2 {
		t.Fatalf("%d PreGitCommit payloads", len(commits))
	}
	first, second := commits[0], commits[1]
	if first["gitCommand"] != "commit" || first["gitDir"] != e.Workspace+"/sub" || first["noVerify"] != false || fmt.Sprint(first["bypass"]) != "[]" ||
		first["firedBy"] != "PreToolUse" || first["toolName"] != "Bash" || first["shellCommand"] != "git -C sub commit -m x" || fmt.Sprint(first["gitArgs"]) != "[-m x]" {
		t.Errorf("first payload %v", first)
	}
	if second["noVerify"] != true || fmt.Sprint(second["bypass"]) != "[--no-verify]" {
		t.Errorf("second payload %v", second)
	}
	if e.Read("push.jsonl") == "" {
		t.Error("PreGitPush did not fire")
	}
	// A command that cannot be read fires both gates.
	if got := bash(`$GIT commit -m x`); !strings.Contains(got, `"permissionDecisionReason":"PreGitPush: no pushes from the agent"`) {
		t.Errorf("unknown: %s", got)
	}
}

// TestFilesModifiedReachStop: Write and Edit calls accumulate filesModified (relative to the
// workspace) in the session of Claude's session id, which the Stop payload carries; the session
// records the agent; every decision is an audit line with its tool call.
func TestFilesModifiedReachStop(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {
		"Stop": [{"command": "cat > stop.json"}],
		"PreToolUse": [{"command": "echo 'not now' >&2; exit 2", "tools": "Bash"}]}}`)
	e.Answer(host, e.Input("claude", "SessionStart", nil), 0)
	e.Answer(host, e.Input("claude", "PostToolUse.Write", nil), 0)
	e.Answer(host, e.Input("claude", "PostToolUse.Edit", nil), 0)
	e.Answer(host, e.Input("claude", "PostToolUse.Write", map[string]any{"tool_input": map[string]any{"file_path": "/tmp/elsewhere.txt"}}), 0)
	e.Answer(host, e.Input("claude", "PostToolUseFailure.Bash", nil), 0)
	e.Answer(host, e.Input("claude", "PreToolUse.Bash", nil), 0)
	e.Answer(host, e.Input("claude", "Stop", nil), 0)
	var stop map[string]any
	if err := json.Unmarshal([]byte(e.Read("stop.json")), &stop); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(stop["filesModified"]) != "[a.txt]" || stop["stopHookActive"] != false || stop["stop_hook_active"] != false {
		t.Errorf("Stop payload: filesModified %v, stopHookActive %v", stop["filesModified"], stop["stopHookActive"])
	}
	list := e.Sessions()
	if len(list) != 1 {
		t.Fatalf("%d sessions, want 1", len(list))
	}
	s := list[0]
	if s.Agent != "claude" || s.AgentSessionID != "90d82a6c-7a0a-4af5-8c86-1cd1a2d41641" || !slices.Equal(s.FilesModified, []string{"a.txt"}) {
		t.Errorf("session %+v", s)
	}
	var lines []string
	for _, ev := range e.Trail(s.ID) {
		lines = append(lines, fmt.Sprintf("%s %s %s %s %s", ev.Event, ev.Type, ev.Status, ev.Decision, ev.ToolUseID))
	}
	want := []string{
		"PreToolUse command blocked block toolu_fake_1795368400284341105",
		"PreToolUse agent answered deny toolu_fake_1795368400284341105",
		"Stop command ok  ",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("trail:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// SessionEnd ends the session; Claude resuming it makes it active again.
	e.Answer(host, e.Input("claude", "SessionEnd", nil), 0)
	if s := e.Sessions()[0]; s.Status != sessions.StatusCompleted {
		t.Errorf("after SessionEnd: %s", s.Status)
	}
	e.Answer(host, e.Input("claude", "SessionStart", map[string]any{"source": "resume"}), 0)
	if s := e.Sessions(); len(s) != 1 || s[0].Status != sessions.StatusActive {
		t.Errorf("after a resume: %d sessions, %s", len(s), s[0].Status)
	}
}

// TestEventsAnswer: the other events answer in their own shapes.
func TestEventsAnswer(t *testing.T) {
	t.Parallel()
	block := func(reason string) string { return hooktest.Cmd("echo '" + reason + "' >&2; exit 2") }
	tests := []struct {
		name, config, input string
		set                 map[string]any
		want                string
	}{
		{"prompt blocked", hooktest.Config("UserPromptSubmit", block("no secrets in prompts")), "UserPromptSubmit", nil,
			`{"decision":"block","reason":"no secrets in prompts"}`},
		{"stop blocked", hooktest.Config("Stop", block("tests fail")), "Stop", nil, `{"decision":"block","reason":"tests fail"}`},
		{"subagent stop blocked", hooktest.Config("SubagentStop", block("not done")), "SubagentStop", nil, `{"decision":"block","reason":"not done"}`},
		{"post tool use fed back", hooktest.Config("PostToolUse", block("lint: a.txt:1 trailing space")), "PostToolUse.Write", nil,
			`{"decision":"block","reason":"lint: a.txt:1 trailing space"}`},
		{"session start context from plain output", hooktest.Config("SessionStart", hooktest.Cmd("echo 'Read TODO.md first.'")), "SessionStart", nil,
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Read TODO.md first."}}`},
		{"session start blocked", hooktest.Config("SessionStart", block("wrong branch")), "SessionStart", nil, `{"continue":false,"stopReason":"wrong branch"}`},
		{"permission denied", hooktest.Config("PermissionRequest", block("ask a human")), "PermissionRequest.Write", nil,
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"ask a human"}}}`},
		{"permission granted", hooktest.Config("PermissionRequest", hooktest.Cmd(`echo '{"decision":"approve"}'`)), "PermissionRequest.Write", nil,
			`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{"permission left to Claude", hooktest.Config("PermissionRequest", hooktest.Cmd(`echo '{"decision":"ask"}'`)), "PermissionRequest.Write", nil, ``},
		{"an event of Claude's own, not declared", hooktest.Config("Stop", block("x")), "PostToolBatch", nil, ``},
		{"an event of Claude's own, declared", `{"customEvents": ["PostToolBatch"], "hooks": {"PostToolBatch": [{"command": "touch batch"}]}}`, "PostToolBatch", nil, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := hooktest.New(t, tt.config)
			if got := e.Answer(host, e.Input("claude", tt.input, tt.set), 0); got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
