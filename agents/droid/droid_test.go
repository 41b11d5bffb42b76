package droid_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/droid"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
	"github.com/autoagent/agent-hooks/hooks"
)

var host = droid.Agent{}

// TestAnswers: Claude Code's answers, for Droid's events only.
func TestAnswers(t *testing.T) {
	t.Parallel()
	v := func(event string, v agents.Verdict) agents.Verdict {
		v.HostEvent, v.Event = event, event
		return v
	}
	tests := []struct {
		name string
		v    agents.Verdict
		want string
	}{
		{"deny", v(hooks.PreToolUse, agents.Verdict{Decision: agents.Deny, Reason: "no"}),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{"ask", v(hooks.PreToolUse, agents.Verdict{Decision: agents.Ask, Reason: "sure?"}),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`},
		{"pass says nothing", v(hooks.PreToolUse, agents.Verdict{}), ``},
		{"stop blocked", v(hooks.Stop, agents.Verdict{Decision: agents.Deny, Reason: "tests fail", Context: []string{"c"}}), `{"decision":"block","reason":"tests fail"}`},
		{"post tool use", v(hooks.PostToolUse, agents.Verdict{Block: "lint", Context: []string{"c"}}),
			`{"decision":"block","reason":"lint","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c"}}`},
		{"session start context", v(hooks.SessionStart, agents.Verdict{Context: []string{"read TODO"}}),
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"read TODO"}}`},
		{"session end", v(hooks.SessionEnd, agents.Verdict{Context: []string{"c"}}), ``},
	}
	for _, tt := range tests {
		got, err := host.Answer(&tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tt.name, got, err, tt.want)
		}
	}
}

// TestGateThroughDroidInputs: Droid's captured inputs through the real runner and sh hooks: a
// gate on Claude's tool name refuses Execute with the reason; a git commit in the command fires
// PreGitCommit; a Create's file is recorded after it.
func TestGateThroughDroidInputs(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {
		"PreToolUse": [{"command": "cat > pre.json"}, {"command": "echo 'no shell here' >&2; exit 2", "tools": "Bash", "matcher": {"field": "toolInput.command", "regex": "out.txt"}}],
		"PreGitCommit": [{"command": "echo nope >&2; exit 2"}]}}`)
	got := e.Answer(host, e.Input("droid", "PreToolUse.Execute", nil), 0)
	if want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no shell here"}}`; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	var pre map[string]any
	if err := json.Unmarshal([]byte(e.Read("pre.json")), &pre); err != nil {
		t.Fatal(err)
	}
	const id = "99a8c277-2341-49a8-a5b1-e2d573dd201f"
	if pre["agent"] != "droid" || pre["toolName"] != "Execute" || pre["agentSessionId"] != id || fmt.Sprint(pre["toolAliases"]) != "[Bash]" {
		t.Errorf("payload %v", pre)
	}
	commit := map[string]any{"tool_input": map[string]any{"command": "git commit -qm x", "summary": "Commit the work now"}}
	if got := e.Answer(host, e.Input("droid", "PreToolUse.Execute", commit), 0); !strings.Contains(got, `"permissionDecisionReason":"PreGitCommit: nope"`) {
		t.Errorf("git commit: %s", got)
	}
	e.Answer(host, e.Input("droid", "PostToolUse.Create", nil), 0)
	list := e.Sessions()
	if len(list) != 1 || list[0].Agent != "droid" || list[0].AgentSessionID != id || !strings.Contains(fmt.Sprint(list[0].FilesModified), "c.txt") {
		t.Fatalf("sessions %+v", list)
	}
	for _, name := range []string{"SessionStart", "Stop", "SessionEnd", "PostToolUse.Execute", "PreToolUse.Create"} {
		if got := e.Answer(host, e.Input("droid", name, nil), 0); got != "" {
			t.Errorf("%s: %s", name, got)
		}
	}
}

// TestHooksJSON: an event of the scope's hooks.json replaces settings.json's, as Droid merges
// them: doctor says agent-hooks' entry there never runs, and the format runs hooks.json's hooks
// for it and settings.json's for the others.
func TestHooksJSON(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	dir := filepath.Join(ws, ".factory")
	spec := host.Settings()
	if _, err := spec.Install(filepath.Join(dir, "settings.json"), 600); err != nil {
		t.Fatal(err)
	}
	settingsJSON, err := os.ReadFile(filepath.Join(dir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]map[string]any
	if err := json.Unmarshal(settingsJSON, &s); err != nil || len(s["hooks"]) != 9 {
		t.Fatalf("settings.json %s (%v)", settingsJSON, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hooks.json"), []byte(`{"PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command", "command": "echo from-hooks-json"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := hostsettings.Env{Workspace: ws, Home: t.TempDir()}
	rep, err := spec.Doctor(t.Context(), env, hostsettings.DoctorOptions{})
	if err != nil || len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Problem, "defines PreToolUse, which replaces this file's PreToolUse hooks") ||
		rep.Findings[0].Effect != hostsettings.NeverRuns || rep.Findings[0].Line == 0 {
		t.Errorf("doctor: %v %+v", err, rep.Findings)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"hooks": {
		"PreToolUse": [{"hooks": [{"type": "command", "command": "echo hidden"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "echo from-settings"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := host.Format().Load(hooks.LoadEnv{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range loaded.Hooks {
		got = append(got, h.Event+":"+h.Command+"@"+filepath.Base(h.Source.File))
	}
	if want := "[PreToolUse:echo from-hooks-json@hooks.json Stop:echo from-settings@settings.json]"; fmt.Sprint(got) != want {
		t.Errorf("hooks %v, want %s (diagnostics %v)", got, want, loaded.Diagnostics)
	}
}
