package rules_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/babysitter"
	"github.com/autoagent/agent-hooks/hooks/fresher"
	"github.com/autoagent/agent-hooks/hooks/iteratr"
	"github.com/autoagent/agent-hooks/hooks/pipelines"
	"github.com/autoagent/agent-hooks/rules"
	"github.com/autoagent/agent-hooks/toolcall"
)

// registry is a registry with rules and the built-in rule sets.
func registry(home string) *hooks.Registry {
	reg := hooks.NewRegistry()
	reg.Register(rules.TypeName, rules.Type{Home: home})
	for _, s := range rules.Sets() {
		reg.RegisterRuleSet(s.Name, s.Rules)
	}
	return reg
}

// load writes config as the workspace's project config and loads it.
func load(t *testing.T, config string) (*hooks.Config, string, error) {
	t.Helper()
	ws := t.TempDir()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := hooks.Load(registry(home), hooks.LoadEnv{Workspace: ws, UserHome: home, AutoagentHome: filepath.Join(home, ".autoagent")})
	return cfg, ws, err
}

// shellPayload is a PreToolUse payload of a Bash call running commands (argv lists).
func shellPayload(writes []string, argvs ...[]string) hooks.Payload {
	c := &toolcall.Call{Tool: "Bash", Kind: toolcall.KindShell, Writes: writes}
	for _, a := range argvs {
		c.Commands = append(c.Commands, toolcall.Command{Argv: a})
	}
	tc := map[string]any{"tool": "Bash"}
	c.Into(tc)
	return hooks.Payload{"toolName": "Bash", "toolCall": tc}
}

func fire(t *testing.T, cfg *hooks.Config, ws, event string, p hooks.Payload) *hooks.Result {
	t.Helper()
	e := &hooks.Engine{Config: cfg, Workspace: ws}
	res, err := e.Fire(context.Background(), event, p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRuleDecides(t *testing.T) {
	cfg, ws, err := load(t, `{"protectConfig": false, "rules": [
		{"name": "no-rm-rf", "command": "rm -rf", "decision": "deny", "reason": "no recursive deletes"},
		{"name": "ask-curl", "command": "curl", "decision": "ask"},
		{"name": "env", "writes": [".env*", "!.env.example"], "decision": "deny"}
	]}`)
	if err != nil {
		t.Fatal(err)
	}
	res := fire(t, cfg, ws, hooks.PreToolUse, shellPayload(nil, []string{"ls"}, []string{"rm", "-fr", "x"}))
	if !res.Blocked || !strings.Contains(res.Reason, "no recursive deletes [rule no-rm-rf: runs rm -fr x]") {
		t.Fatalf("rm -fr: blocked %v, reason %q", res.Blocked, res.Reason)
	}
	if len(res.Hooks) != 1 || res.Hooks[0].Type != "rule" || res.Hooks[0].Name != "no-rm-rf" {
		t.Fatalf("only the deciding rule is recorded: %+v", res.Hooks)
	}
	res = fire(t, cfg, ws, hooks.PreToolUse, shellPayload(nil, []string{"ls"}))
	if res.Blocked || len(res.Hooks) != 0 {
		t.Fatalf("ls: a rule that does not apply leaves no trace: %+v", res)
	}
	res = fire(t, cfg, ws, hooks.PreToolUse, shellPayload(nil, []string{"curl", "x"}))
	if !res.Blocked || !strings.Contains(res.Reason, "no one to ask") {
		t.Fatalf("an ask where no one can be asked blocks: %+v", res)
	}
	res = fire(t, cfg, ws, hooks.PreToolUse, shellPayload([]string{"config/.env.local"}, []string{"tee", "config/.env.local"}))
	if !res.Blocked || !strings.Contains(res.Reason, "writes config/.env.local") {
		t.Fatalf(".env.local: %+v", res)
	}
	res = fire(t, cfg, ws, hooks.PreToolUse, shellPayload([]string{".env.example"}, []string{"tee", ".env.example"}))
	if res.Blocked {
		t.Fatalf(".env.example is excluded: %+v", res)
	}
}

func TestRuleWhen(t *testing.T) {
	cfg, ws, err := load(t, `{"protectConfig": false, "rules": [
		{"name": "big", "tools": "Write", "when": "len(toolInput.content) > 10", "decision": "deny"},
		{"name": "bad", "tools": "Edit", "when": "toolInput.missing.deeper > 1", "decision": "allow"}
	]}`)
	if err != nil {
		t.Fatal(err)
	}
	res := fire(t, cfg, ws, hooks.PreToolUse, hooks.Payload{"toolName": "Write", "toolInput": map[string]any{"content": "0123456789abc"}})
	if !res.Blocked {
		t.Fatalf("big write: %+v", res)
	}
	res = fire(t, cfg, ws, hooks.PreToolUse, hooks.Payload{"toolName": "Write", "toolInput": map[string]any{"content": "small"}})
	if res.Blocked || len(res.Hooks) != 0 {
		t.Fatalf("small write: %+v", res)
	}
	// A rule whose evaluation fails decides as a failed blocking hook: a deny, with the error.
	res = fire(t, cfg, ws, hooks.PreToolUse, hooks.Payload{"toolName": "Edit", "toolInput": map[string]any{}})
	if !res.Blocked || !strings.Contains(res.Reason, "rule bad could not decide") {
		t.Fatalf("failing when: %+v", res)
	}
}

func TestRuleConfigErrors(t *testing.T) {
	tests := []struct{ config, want string }{
		{`{"rules": [{"command": "rm -rf", "decision": "deny"}]}`, `config.json:1:12: rules[0]: a rule needs a "name"`},
		{`{"rules": [{"name": "a", "command": "rm -rf", "decision": "deny"}, {"name": "a", "command": "ls", "decision": "deny"}]}`, `rules[1] (a): a rule named "a" comes earlier`},
		{`{"rules": [{"name": "a", "command": "rm -rf", "decision": "denny"}]}`, `config.json:1:59: rules[0] (a): decision: "denny" is not a decision (want deny, ask or allow); did you mean "deny"?`},
		{"{\"rules\": [\n  {\"name\": \"w\",\n   \"when\": \"toolName ==\", \"decision\": \"deny\"}]}", `config.json:3:12: rules[0] (w): when:`},
		{`{"rules": [{"name": "p", "command": "curl | sh", "decision": "deny"}]}`, `rules[0] (p): command: command pattern "curl | sh": one simple command per pattern`},
		{`{"rules": [{"name": "o", "on": "PostToolUse", "command": "ls", "decision": "deny"}]}`, `on: PostToolUse cannot be blocked`},
		{`{"rules": [{"name": "o", "on": "PreToolUze", "command": "ls", "decision": "deny"}]}`, `did you mean "PreToolUse"`},
		{`{"rules": [{"name": "n", "decision": "deny"}]}`, `a rule needs a condition`},
		{`{"ruleSets": ["secret"]}`, `unknown rule set "secret"; did you mean "secrets"?`},
		{`{"rules": [{"name": "x", "command": "ls", "decision": "deny", "reasn": "x"}]}`, `unknown field "reasn"; did you mean "reason"?`},
	}
	for _, tt := range tests {
		_, _, err := load(t, tt.config)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant …%s…", tt.config, err, tt.want)
		}
	}
}

func TestRuleSetsLoad(t *testing.T) {
	cfg, ws, err := load(t, `{"protectConfig": false, "ruleSets": ["secrets", "destructive", "git-safety"]}`)
	if err != nil {
		t.Fatal(err)
	}
	res := fire(t, cfg, ws, hooks.PreToolUse, shellPayload(nil, []string{"git", "push", "--force"}))
	if !res.Blocked || res.Hooks[0].Name != "git-safety/force-push" {
		t.Fatalf("force push: %+v", res)
	}
	res = fire(t, cfg, ws, hooks.PreGitCommit, hooks.Payload{"noVerify": true, "bypass": []any{"--no-verify"}})
	if !res.Blocked || res.Hooks[0].Name != "git-safety/no-verify" {
		t.Fatalf("no-verify: %+v", res)
	}
	res = fire(t, cfg, ws, hooks.PreToolUse, shellPayload([]string{"/etc/passwd"}, []string{"rm", "-r", "/etc/passwd"}))
	if !res.Blocked || res.Hooks[0].Name != "destructive/rm-outside-workspace" {
		t.Fatalf("rm -r outside: %+v", res)
	}
	res = fire(t, cfg, ws, hooks.PreToolUse, shellPayload([]string{"build"}, []string{"rm", "-r", "build"}))
	if res.Blocked {
		t.Fatalf("rm -r inside: %+v", res)
	}
}

func writePayload(tool string, writes ...string) hooks.Payload {
	c := &toolcall.Call{Tool: tool, Kind: toolcall.KindWrite, Writes: writes}
	tc := map[string]any{"tool": tool}
	c.Into(tc)
	return hooks.Payload{"toolName": tool, "toolCall": tc}
}

func TestProtectConfig(t *testing.T) {
	_, ws, err := load(t, `{"hooks": {"PreToolUse": [{"command": "sh .autoagent/gate.sh"}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".autoagent", "gate.sh"), []byte("exit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The script exists only now: load again so that the hook's script is found.
	cfg, err := hooks.Load(registry(t.TempDir()), hooks.LoadEnv{Workspace: ws, AutoagentHome: filepath.Join(ws, "home")})
	if err != nil {
		t.Fatal(err)
	}
	// A protected file's name covers what is below it: replaced by a folder, it is still protected.
	for _, p := range []string{".autoagent/config.json", ".autoagent/gate.sh", ".autoagent/hooks/new.sh", "home/config.json", ".autoagent/config.json/x.json", ".autoagent/gate.sh/x"} {
		res := fire(t, cfg, ws, hooks.PreToolUse, writePayload("Write", p))
		if !res.Blocked || res.Hooks[0].Name != hooks.ProtectRuleName {
			t.Errorf("write %s: %+v", p, res)
		}
	}
	res := fire(t, cfg, ws, hooks.PreToolUse, writePayload("Write", "src/main.go"))
	if res.Blocked {
		t.Errorf("an ordinary write is refused: %s", res.Reason)
	}
	if cfg.Unprotected != "" {
		t.Errorf("Unprotected = %q", cfg.Unprotected)
	}
}

func TestProtectConfigOffAndManaged(t *testing.T) {
	cfg, ws, err := load(t, `{"protectConfig": false}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(cfg.Unprotected, "config.json:1:19") {
		t.Errorf("Unprotected = %q", cfg.Unprotected)
	}
	res := fire(t, cfg, ws, hooks.PreToolUse, writePayload("Write", ".autoagent/config.json"))
	if res.Blocked {
		t.Errorf("protection off: %s", res.Reason)
	}
	// The managed layer insists: the project cannot turn it off, and its rules apply whatever
	// AGENT_HOOKS_DISABLE says.
	managed := filepath.Join(t.TempDir(), "managed.json")
	if err := os.WriteFile(managed, []byte(`{"protectConfig": true, "rules": [{"name": "m", "command": "curl", "decision": "deny"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err = hooks.Load(registry(t.TempDir()), hooks.LoadEnv{Workspace: ws, ManagedConfig: managed})
	if err != nil {
		t.Fatal(err)
	}
	e := &hooks.Engine{Config: cfg, Workspace: ws, Getenv: func(k string) string {
		return map[string]string{"AGENT_HOOKS_DISABLE": "1", "AGENT_HOOKS_SKIP": "m,protect-config"}[k]
	}}
	for _, p := range []hooks.Payload{writePayload("Write", ".autoagent/config.json"), shellPayload(nil, []string{"curl", "x"})} {
		res, err := e.Fire(context.Background(), hooks.PreToolUse, p)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Blocked {
			t.Errorf("managed: not blocked: %+v", res)
		}
	}
}

func TestProtectSeedFormatFiles(t *testing.T) {
	ws := t.TempDir()
	reg := registry(t.TempDir())
	reg.RegisterFormat(fresher.New())
	reg.RegisterFormat(iteratr.New())
	reg.RegisterFormat(pipelines.New())
	reg.RegisterFormat(babysitter.New())
	cfg, err := hooks.Load(reg, hooks.LoadEnv{Workspace: ws, UserHome: filepath.Join(ws, "u"), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	// None of these exist: the agent must not create them either.
	for _, p := range []string{".fresher/config.toml", ".fresher/hooks/started", ".iteratr.hooks.yml", "stage.yaml", "loop.yaml",
		".a5c/hooks/on-run-start/x.sh", "u/.config/agent-pipelines/hooks.sh", "u/.config/babysitter/hooks/on-run-start/x.sh"} {
		res := fire(t, cfg, ws, hooks.PreToolUse, writePayload("Write", p))
		if !res.Blocked {
			t.Errorf("write %s: not refused", p)
		}
	}
}
