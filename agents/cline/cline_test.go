package cline_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/cline"
	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
	"github.com/autoagent/agent-hooks/hooks"
)

var host = cline.Agent{}

// TestAnswers: Cline's only refusal is a cancel; context goes to tool hooks only; Cline reads
// no answer of the events it does not wait for.
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
		{"deny cancels", v("tool_call", hooks.PreToolUse, agents.Verdict{Decision: agents.Deny, Reason: "no <rm>"}),
			`{"cancel":true,"errorMessage":"no <rm>"}`},
		{"ask cancels: no one to ask", v("tool_call", hooks.PreToolUse, agents.Verdict{Decision: agents.Ask, Reason: "sure?"}),
			`{"cancel":true,"errorMessage":"sure?"}`},
		{"allow says nothing", v("tool_call", hooks.PreToolUse, agents.Verdict{Decision: agents.Allow, Warnings: []string{"w"}}), ``},
		{"context", v("tool_call", hooks.PreToolUse, agents.Verdict{Context: []string{"c1", "c2"}}), `{"contextModification":"c1\n\nc2"}`},
		{"post tool use block is context", v("tool_result", hooks.PostToolUse, agents.Verdict{Block: "lint", Context: []string{"c"}}),
			`{"contextModification":"lint\n\nc"}`},
		{"a stop cannot be blocked", v("agent_end", hooks.Stop, agents.Verdict{Decision: agents.Deny, Reason: "r"}), ``},
		{"task start", v("agent_start", hooks.SessionStart, agents.Verdict{Context: []string{"c"}}), ``},
	}
	for _, tt := range tests {
		got, err := host.Answer(&tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tt.name, got, err, tt.want)
		}
	}
	if got := string(host.Refusal("")); got != `{"cancel":true,"errorMessage":"blocked by agent-hooks"}` {
		t.Errorf("refusal %s", got)
	}
}

// TestGateThroughClineInputs: Cline's captured inputs through the real runner and sh hooks: a
// PreToolUse gate matched by Claude's tool name cancels run_commands with the reason; the native
// hook gets Cline's fields and the normalised ones; the session is the task's; a git commit in
// one of the commands fires PreGitCommit.
func TestGateThroughClineInputs(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {
		"PreToolUse": [{"command": "cat > pre.json"}, {"command": "echo 'no shell here' >&2; exit 2", "tools": "Bash", "matcher": {"field": "toolInput.commands", "regex": "out.txt"}}],
		"PreGitCommit": [{"command": "echo \"commit by $AUTOAGENT_EVENT\" >&2; exit 2"}],
		"Stop": [{"command": "cat > stop.json"}]}}`)
	got := e.Answer(host, e.Input("cline", "PreToolUse.run_commands", nil), 0)
	if want := `{"cancel":true,"errorMessage":"no shell here"}`; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	var pre map[string]any
	if err := json.Unmarshal([]byte(e.Read("pre.json")), &pre); err != nil {
		t.Fatal(err)
	}
	const id = "conv_1795368339323_fbfg0x4"
	if pre["agent"] != "cline" || pre["toolName"] != "run_commands" || pre["agentSessionId"] != id || pre["toolUseId"] != "call_06c4f18c70" ||
		fmt.Sprint(pre["toolInput"]) != "map[commands:[echo hi > out.txt]]" || pre["hookName"] != "tool_call" ||
		fmt.Sprint(pre["toolAliases"]) != "[Bash]" || pre["eventName"] != "PreToolUse" || pre["workspace"] != e.Workspace {
		t.Errorf("payload %v", pre)
	}
	list := e.Sessions()
	if len(list) != 1 || list[0].Agent != "cline" || list[0].AgentSessionID != id {
		t.Fatalf("sessions %+v", list)
	}
	trail := e.Trail(list[0].ID)
	if last := trail[len(trail)-1]; last.Decision != agents.Deny || last.ToolUseID != "call_06c4f18c70" {
		t.Errorf("trail %+v", trail)
	}

	// Several commands in one call: a git commit in the second fires the repository's gate.
	two := map[string]any{"tool_call": map[string]any{"id": "c2", "name": "run_commands", "input": map[string]any{"commands": []any{"ls", "git commit -qm x"}}}}
	got = e.Answer(host, e.Input("cline", "PreToolUse.run_commands", two), 0)
	if want := `{"cancel":true,"errorMessage":"PreGitCommit: commit by PreGitCommit"}`; got != want {
		t.Errorf("git commit:\n got %s\nwant %s", got, want)
	}

	// TaskComplete is Stop; Cline does not wait for it, and reads no answer.
	if got := e.Answer(host, e.Input("cline", "TaskComplete", nil), 0); got != `` {
		t.Errorf("TaskComplete: %s", got)
	}
	if !strings.Contains(e.Read("stop.json"), `"agent_end"`) {
		t.Errorf("stop payload %s", e.Read("stop.json"))
	}
}

// TestStartAndResume: a task's start and its resume are both SessionStart, told apart by source
// as Claude's are: a hook matched on source "resume" (as Cline's TaskResume hook files are, read
// natively) runs on a resume only.
func TestStartAndResume(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {"SessionStart": [
		{"command": "echo start >> started.txt", "matcher": {"field": "source", "regex": "^startup$"}},
		{"command": "echo resume >> started.txt", "matcher": {"field": "source", "regex": "^resume$"}}]}}`)
	e.Answer(host, e.Input("cline", "TaskStart", nil), 0)
	e.Answer(host, e.Input("cline", "TaskStart", map[string]any{"hookName": "agent_resume", "taskStart": nil, "taskResume": map[string]any{}}), 0)
	if got := e.Read("started.txt"); got != "start\nresume\n" {
		t.Errorf("hooks ran: %q, want start then resume", got)
	}
}

// TestFailClosed: Cline proceeds on every exit code, so every failure is a cancel on stdout:
// a broken configuration, hooks that outlast the budget, input that cannot be read.
func TestFailClosed(t *testing.T) {
	t.Parallel()
	t.Run("broken config", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, "{\"hooks\": {\n  \"PreToolUs\": []}}")
		got := e.Answer(host, e.Input("cline", "PreToolUse.run_commands", nil), 0)
		want := `{"cancel":true,"errorMessage":"agent-hooks refused this PreToolUse: its hooks could not run: ` +
			e.Workspace + `/.autoagent/config.json:2:3: hooks: unknown event \"PreToolUs\"; did you mean \"PreToolUse\"?"}`
		if got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("hooks outlast the budget", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, hooktest.Config("PreToolUse", hooktest.Cmd("sleep 30")))
		got := e.Answer(host, e.Input("cline", "PreToolUse.run_commands", nil), time.Second)
		if want := `{"cancel":true,"errorMessage":"agent-hooks refused this PreToolUse: its hooks could not run: the hooks did not finish within 750ms, before cline's own timeout of 1s (raise the hook's timeout, and --timeout with it)"}`; got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("unreadable input", func(t *testing.T) {
		t.Parallel()
		e := hooktest.New(t, hooktest.Config("PreToolUse", hooktest.Cmd("true")))
		reply := e.Handle(host, []byte(`{"hookName": "tool_call", "taskId": `), 0)
		if reply.ExitCode != 0 || !strings.HasPrefix(string(reply.Stdout), `{"cancel":true,"errorMessage":"agent-hooks could not read the agent's hook input: `) {
			t.Errorf("%+v", reply)
		}
	})
}

// TestDecode: the SDK's hookName wins over the file name; a failed tool_result is
// PostToolUseFailure; the legacy extension's shape is read too.
func TestDecode(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{}`)
	for _, tc := range []struct {
		name, event string
		set         map[string]any
		wantEvent   string
	}{
		{"PostToolUse.run_commands", "PostToolUse", nil, "tool_result"},
		{"PostToolUse.run_commands", "", map[string]any{"postToolUse": map[string]any{"toolName": "run_commands", "success": false}}, cline.FailureEvent},
		{"TaskStart", "TaskStart", map[string]any{"hookName": nil}, "TaskStart"},
	} {
		var in agents.Input
		if err := json.Unmarshal(e.Input("cline", tc.name, tc.set), &in.Fields); err != nil {
			t.Fatal(err)
		}
		if err := host.Decode(&in, tc.event); err != nil || in.HostEvent != tc.wantEvent || in.Dir != e.Workspace {
			t.Errorf("%s %v: %q %q %v", tc.name, tc.set, in.HostEvent, in.Dir, err)
		}
	}
	legacy := agents.Input{Fields: map[string]any{"hookName": "PreToolUse", "taskId": "t", "workspaceRoots": []any{"/w"},
		"preToolUse": map[string]any{"toolName": "execute_command", "parameters": map[string]any{"command": "git push"}}}}
	if err := host.Decode(&legacy, ""); err != nil || legacy.ToolName != "execute_command" || host.ShellCommand(legacy.ToolName, legacy.Args) != "git push" {
		t.Errorf("legacy %+v %v", legacy, err)
	}
	if err := host.Decode(&agents.Input{Fields: map[string]any{"taskId": "t"}}, ""); err == nil || !strings.Contains(err.Error(), "give it with --event") {
		t.Errorf("no event: %v", err)
	}
	if got := host.ShellCommand("run_commands", map[string]any{"commands": `["a","b"]`}); got != "a\nb" {
		t.Errorf("string commands: %q", got)
	}
	if got := host.EditedFiles(hooks.PostToolUse, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: n.txt\n+x\n*** End Patch"}); !slices.Equal(got, []string{"n.txt"}) {
		t.Errorf("apply_patch %v", got)
	}
}
