package hostfmt_test

import (
	"encoding/json"
	"errors"
	"github.com/autoagent/agent-hooks/agents/claude"
	"github.com/autoagent/agent-hooks/agents/codex"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

func newWorkspace(t *testing.T) *seedtest.Workspace {
	t.Helper()
	return seedtest.New(t, []hooks.Format{claude.Agent{}.Format(), codex.Agent{}.Format()})
}

// settings is a settings file with one group of command hooks on event.
func settings(event, matcher string, commands ...string) string {
	var hs []map[string]any
	for _, c := range commands {
		hs = append(hs, map[string]any{"type": "command", "command": c})
	}
	g := map[string]any{"hooks": hs}
	if matcher != "" {
		g["matcher"] = matcher
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{g}}})
	return string(b)
}

func TestLoadReadsEverySettingsFile(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".claude/settings.json", `{"model": "opus", "hooks": {
		"Stop": [{"hooks": [{"type": "command", "command": "./project.sh", "timeout": 5},
		                    {"type": "command", "command": "agent-hooks hook claude --timeout 600", "timeout": 600},
		                    {"type": "prompt", "prompt": "is it done?"}]}],
		"PostToolBatch": [{"hooks": [{"type": "command", "command": "./batch.sh"}]}]}}`, 0o644)
	w.Write(".claude/settings.local.json", settings("Stop", "", "./local.sh"), 0o644)
	w.Write("~/.claude/settings.json", settings("SessionEnd", "", "./user.sh"), 0o644)
	w.Write(".codex/hooks.json", settings("Stop", "", "./codex.sh", "agent-hooks hook codex --timeout 600"), 0o644)
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range []string{hooks.Stop, hooks.SessionEnd} {
		for _, h := range cfg.Hooks[ev] {
			got = append(got, ev+" "+h.Source.Format+"/"+h.Source.Scope+" "+h.Command+" "+h.Timeout.String())
			if !h.Parallel || h.Blocking || !h.Enabled || h.Dialect == nil {
				t.Errorf("%s: %+v", h.Command, h)
			}
		}
	}
	want := []string{
		"Stop claude/project ./project.sh 5s",
		"Stop claude/local ./local.sh 10m0s",
		"Stop codex/project ./codex.sh 10m0s",
		"SessionEnd claude/user ./user.sh 1m0s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hooks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0].Message, `command hooks only, not "prompt"`) {
		t.Errorf("warnings = %v", cfg.Warnings)
	}

	// As the host's hook runner, agent-hooks leaves the host's own files to the host.
	env := w.LoadEnv()
	env.Agent = "claude"
	cfg, err = hooks.Load(w.Registry(), env)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cfg.Hooks[hooks.Stop]); n != 1 || cfg.Hooks[hooks.Stop][0].Source.Format != "codex" {
		t.Errorf("with Agent claude, Stop has %d hooks: %+v", n, cfg.Hooks[hooks.Stop])
	}
}

func TestAFileTheHostIgnoresIsAnError(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".claude/settings.json", "{\"hooks\": {\"Stop\": [\n  {\"type\": \"command\", \"command\": \"./gate.sh\"}]}}", 0o644)
	_, err := w.Load()
	var ce *hooks.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("Load = %v, want a configuration error", err)
	}
	d := ce.Diagnostics[0]
	if d.File != filepath.Join(w.Dir, ".claude", "settings.json") || d.Line != 2 || d.Col != 3 ||
		!strings.Contains(d.Message, "Claude Code ignores every hook in this file") {
		t.Errorf("diagnostic = %+v", d)
	}
}

func TestHooksRunAsTheHostRunsThem(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".claude/settings.json", settings("Stop", "",
		`cat > "$CLAUDE_PROJECT_DIR/stdin.json"`,
		`echo '{"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "ran the linter"}}'`), 0o644)
	res := w.Fire(hooks.Stop, "agentSessionId", "claude-session-1", "toolName", "Bash", "stop_hook_active", false)
	if res.Blocked || res.Feedback != "ran the linter" {
		t.Errorf("result: %+v", res)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(w.Read("stdin.json")), &in); err != nil {
		t.Fatalf("stdin: %v", err)
	}
	for k, v := range map[string]any{"session_id": "claude-session-1", "cwd": w.Dir, "hook_event_name": "Stop",
		"tool_name": "Bash", "stop_hook_active": false, "eventName": "Stop", "transcript_path": ""} {
		if in[k] != v {
			t.Errorf("stdin %s = %v, want %v", k, in[k], v)
		}
	}
}

func TestDecisions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, host, command string
		blocked             bool
		status              hooks.Status
		reason              string
	}{
		{"exit 2", "claude", `echo "tests fail" >&2; exit 2`, true, hooks.StatusBlocked, "tests fail"},
		{"exit 2 codex", "codex", `exit 2`, true, hooks.StatusBlocked, "exited 2 without a reason"},
		{"decision block", "codex", `echo '{"decision": "block", "reason": "keep going"}'`, true, hooks.StatusBlocked, "keep going"},
		{"deny", "claude", `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}'`, true, hooks.StatusBlocked, "no"},
		{"ask", "claude", `echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}'`, true, hooks.StatusBlocked, "no one to ask: sure?"},
		{"continue false", "claude", `echo '{"continue": false, "stopReason": "enough"}'`, true, hooks.StatusBlocked, "enough"},
		// Claude reads the JSON whatever the exit code; Codex on exit 0 only.
		{"deny exit 1 claude", "claude", `echo '{"decision": "block", "reason": "r"}'; exit 1`, true, hooks.StatusBlocked, "r"},
		{"deny exit 1 codex", "codex", `echo '{"decision": "block", "reason": "r"}'; exit 1`, false, hooks.StatusError, "exit code 1"},
		{"exit 1", "claude", `echo oops >&2; exit 1`, false, hooks.StatusError, "oops"},
		{"plain", "claude", `echo hello`, false, hooks.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t)
			path := ".claude/settings.json"
			if tc.host == "codex" {
				path = ".codex/hooks.json"
			}
			w.Write(path, settings("Stop", "", tc.command), 0o644)
			res := w.Fire(hooks.Stop)
			if len(res.Hooks) != 1 {
				t.Fatalf("hooks: %+v", res.Hooks)
			}
			h := res.Hooks[0]
			if res.Blocked != tc.blocked || h.Status != tc.status || !strings.Contains(h.Reason, tc.reason) {
				t.Errorf("blocked %v status %s reason %q; want %v %s %q", res.Blocked, h.Status, h.Reason, tc.blocked, tc.status, tc.reason)
			}
		})
	}
}

func TestMatchers(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".claude/settings.json", `{"hooks": {"SessionStart": [
		{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "echo list"}]},
		{"matcher": "^comp", "hooks": [{"type": "command", "command": "echo regex"}]},
		{"matcher": "*", "hooks": [{"type": "command", "command": "echo all"}]},
		{"matcher": "(", "hooks": [{"type": "command", "command": "echo never"}]}]}}`, 0o644)
	for source, want := range map[string]string{
		"startup": "echo list=ok echo regex=skipped echo all=ok",
		"compact": "echo list=skipped echo regex=ok echo all=ok",
		"start":   "echo list=skipped echo regex=skipped echo all=ok",
	} {
		res := w.Fire(hooks.SessionStart, "source", source)
		if got := strings.Join(seedtest.Statuses(res), " "); got != want {
			t.Errorf("source %s: %s, want %s", source, got, want)
		}
	}
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0].Message, `matcher "(" is not a regular expression`) {
		t.Errorf("warnings = %v", cfg.Warnings)
	}
}

func TestTimeoutIsSeconds(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".codex/hooks.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": 2}]}]}}`, 0o644)
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Hooks[hooks.Stop][0].Timeout; got != 2*time.Second {
		t.Errorf("timeout = %s, want 2s", got)
	}
}
