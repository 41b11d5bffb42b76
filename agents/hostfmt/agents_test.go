package hostfmt_test

import (
	"encoding/json"
	"github.com/autoagent/agent-hooks/agents/claude"
	"github.com/autoagent/agent-hooks/agents/cursor"
	"github.com/autoagent/agent-hooks/agents/gemini"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

func agentsWorkspace(t *testing.T) *seedtest.Workspace {
	t.Helper()
	return seedtest.New(t, []hooks.Format{claude.Agent{}.Format(), gemini.Agent{}.Format(), cursor.Agent{}.Format()})
}

// Gemini's settings: its event names map onto the canonical ones, its timeouts are milliseconds,
// its tool matchers unanchored regular expressions, and agent-hooks' own entry is not run.
func TestGeminiSettings(t *testing.T) {
	t.Parallel()
	w := agentsWorkspace(t)
	w.Write(".gemini/settings.json", `{"hooks": {
		"BeforeTool": [{"matcher": "shell", "hooks": [
			{"type": "command", "command": "cat > \"$GEMINI_PROJECT_DIR/stdin.json\"; echo '{\"decision\": \"deny\", \"reason\": \"no shell\"}'", "timeout": 5000},
			{"type": "command", "command": "agent-hooks hook gemini --timeout 60", "timeout": 60000}]}],
		"AfterAgent": [{"hooks": [{"type": "command", "command": "true"}]}],
		"BeforeModel": [{"hooks": [{"type": "command", "command": "true"}]}]}}`, 0o644)
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	pre, stop := cfg.Hooks[hooks.PreToolUse], cfg.Hooks[hooks.Stop]
	if len(pre) != 1 || pre[0].Timeout != 5*time.Second || pre[0].Source.Format != "gemini" || len(stop) != 1 || stop[0].Timeout != time.Minute {
		t.Fatalf("PreToolUse %+v, Stop %+v", pre, stop)
	}
	res := w.Fire(hooks.PreToolUse, "tool_name", "run_shell_command", "tool_input", map[string]any{"command": "ls"}, "agentSessionId", "g-1")
	if !res.Blocked || res.Reason != "no shell" {
		t.Fatalf("result %+v", res)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(w.Read("stdin.json")), &in); err != nil {
		t.Fatalf("stdin: %v", err)
	}
	if in["hook_event_name"] != "BeforeTool" || in["session_id"] != "g-1" || in["cwd"] != w.Dir {
		t.Errorf("stdin %v", in)
	}
	if ts, _ := in["timestamp"].(string); !strings.HasSuffix(ts, "Z") {
		t.Errorf("timestamp %v, want Gemini's ISO 8601", in["timestamp"])
	}
	if res := w.Fire(hooks.PreToolUse, "tool_name", "read_file"); res.Blocked {
		t.Errorf("the matcher let read_file through: %+v", res)
	}
}

// How a Gemini hook's output reads, with the exit code: as Gemini reads it, except that a hook
// that exits 2 or more without a word blocks (Gemini lets the tool run).
func TestGeminiOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		command string
		blocked bool
		status  hooks.Status
		reason  string
	}{
		{`echo '{"decision": "block", "reason": "r"}'; exit 1`, true, hooks.StatusBlocked, "r"},
		{`echo 'not allowed' >&2; exit 3`, true, hooks.StatusBlocked, "not allowed"},
		{`exit 2`, true, hooks.StatusBlocked, "exited 2 without a reason"},
		{`echo 'oops' >&2; exit 1`, false, hooks.StatusError, "exit code 1"},
		{`echo 'just text'`, false, hooks.StatusOK, ""},
		{`echo '{"continue": false, "stopReason": "halt"}'`, true, hooks.StatusBlocked, "halt"},
	} {
		w := agentsWorkspace(t)
		w.Write(".gemini/settings.json", `{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": `+mustQuote(tc.command)+`}]}]}}`, 0o644)
		res := w.Fire(hooks.PreToolUse, "tool_name", "run_shell_command")
		if res.Blocked != tc.blocked || len(res.Hooks) != 1 || res.Hooks[0].Status != tc.status || !strings.Contains(res.Hooks[0].Reason, tc.reason) {
			t.Errorf("%s: %+v", tc.command, res)
		}
	}
}

func mustQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Cursor's hooks.json: flat entries, seconds, failClosed a blocking hook, the shell events about
// shell calls only (whichever agent's) with their matcher on the command; and under `hook
// cursor` neither Cursor's nor Claude Code's files run (Cursor runs both itself).
func TestCursorHooks(t *testing.T) {
	t.Parallel()
	w := agentsWorkspace(t)
	w.Write(".cursor/hooks.json", `{"version": 1, "hooks": {
		"beforeShellExecution": [{"command": "cat > stdin.json; echo '{\"permission\": \"deny\", \"user_message\": \"u\", \"agent_message\": \"no curl\"}'", "matcher": "curl|wget", "timeout": 5, "failClosed": true}],
		"preToolUse": [{"command": "agent-hooks hook cursor --timeout 30", "timeout": 30, "failClosed": true}],
		"stop": [{"command": "echo '{\"followup_message\": \"run the tests\"}'"}]}}`, 0o644)
	w.Write(".claude/settings.json", settings("Stop", "", "true"), 0o644)
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	pre := cfg.Hooks[hooks.PreToolUse]
	if len(pre) != 1 || !pre[0].Blocking || pre[0].Timeout != 5*time.Second || pre[0].Tools.String() != "Shell|Bash" {
		t.Fatalf("PreToolUse %+v", pre)
	}
	if res := w.Fire(hooks.PreToolUse, "toolName", "Bash", "toolInput", map[string]any{"command": "ls"}); res.Blocked {
		t.Errorf("ls: %+v", res)
	}
	if res := w.Fire(hooks.PreToolUse, "toolName", "Read", "toolInput", map[string]any{"command": "curl x"}); res.Blocked {
		t.Errorf("a Read: %+v", res)
	}
	res := w.Fire(hooks.PreToolUse, "toolName", "Bash", "toolInput", map[string]any{"command": "curl -s example.com"}, "agentSessionId", "c-1")
	if !res.Blocked || res.Reason != "no curl" {
		t.Fatalf("curl: %+v", res)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(w.Read("stdin.json")), &in); err != nil {
		t.Fatalf("stdin: %v", err)
	}
	if in["hook_event_name"] != "beforeShellExecution" || in["command"] != "curl -s example.com" || in["conversation_id"] != "c-1" {
		t.Errorf("stdin %v", in)
	}
	if res := w.Fire(hooks.Stop); !res.Blocked || res.Reason != "run the tests" {
		t.Errorf("stop: %+v", res)
	}

	env := w.LoadEnv()
	env.Agent, env.AgentRuns = "cursor", cursor.Agent{}.Settings().Runs()
	cfg, err = hooks.Load(w.Registry(), env)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cfg.Hooks[hooks.Stop]) + len(cfg.Hooks[hooks.PreToolUse]); n != 0 {
		t.Errorf("under hook cursor, %d hooks of Cursor's and Claude's files load", n)
	}
}

// A Cursor hook that fails (a crash, output that is not JSON) blocks only when its entry fails
// closed, as in Cursor.
func TestCursorFailClosed(t *testing.T) {
	t.Parallel()
	for _, closed := range []bool{false, true} {
		w := agentsWorkspace(t)
		fc := "false"
		if closed {
			fc = "true"
		}
		w.Write(".cursor/hooks.json", `{"version": 1, "hooks": {"preToolUse": [{"command": "echo garbage", "failClosed": `+fc+`}]}}`, 0o644)
		res := w.Fire(hooks.PreToolUse, "toolName", "Shell")
		if res.Blocked != closed {
			t.Errorf("failClosed %v: %+v", closed, res)
		}
	}
}

// Gemini's switches and hook fields: hooksConfig.disabled names a hook that does not run,
// hooksConfig.enabled false turns every hook off, a sequential group runs in order, a hook's
// env and name are its own.
func TestGeminiSwitches(t *testing.T) {
	t.Parallel()
	w := agentsWorkspace(t)
	w.Write(".gemini/settings.json", `{
		"hooksConfig": {"disabled": ["noisy"]},
		"hooks": {"notifications": true, "AfterAgent": [{"sequential": true, "hooks": [
			{"type": "command", "name": "noisy", "command": "touch noisy"},
			{"type": "command", "name": "linter", "command": "echo \"$LINT_LEVEL\" > level.txt", "env": {"LINT_LEVEL": "strict"}}]}]}}`, 0o644)
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	stop := cfg.Hooks[hooks.Stop]
	if len(stop) != 1 || stop[0].Name != "linter" || stop[0].Parallel {
		t.Fatalf("Stop %+v", stop)
	}
	w.Fire(hooks.Stop)
	if got := strings.TrimSpace(w.Read("level.txt")); got != "strict" {
		t.Errorf("env: %q", got)
	}
	w.Write(".gemini/settings.json", `{"hooksConfig": {"enabled": false}, "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "true"}]}]}}`, 0o644)
	cfg, err = w.Load()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cfg.Hooks[hooks.Stop]); n != 0 {
		t.Errorf("hooksConfig.enabled false: %d hooks", n)
	}
}
