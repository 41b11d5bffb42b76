package claude_test

import (
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/rules"
)

// TestWhatTheWalkerCannotReadGetsTheRulesDecision: a part of a Bash command agent-hooks cannot
// read at all — a line that does not parse (bash runs the lines before it), scripts nested past
// the walker's bounds, more commands than it reads, a script from an expansion — could be any
// command: a command rule's decision applies to it, and past the parser or the bounds so does
// protect-config's (the part could write any file). Each of these let the call through, so that
// the agent could run what a deny rule names, or overwrite the configuration that gates it.
func TestWhatTheWalkerCannotReadGetsTheRulesDecision(t *testing.T) {
	t.Parallel()
	env := func(config string) func(command string) string {
		e := hooktest.New(t, config)
		e.Registry = func(reg *hooks.Registry) { reg.Register(rules.TypeName, rules.Type{}) }
		return func(command string) string {
			return e.Answer(host, e.Input("claude", "PreToolUse.Bash", map[string]any{"tool_input": map[string]any{"command": command}}), 0)
		}
	}
	// protect-config, on by default, comes first and spares no-rm when it denies: the commands
	// that write nothing are tried where a person turned it off, so that no-rm decides them.
	protected := env(`{"rules": [{"name": "no-rm", "command": "rm -rf", "decision": "deny"}]}`)
	unprotected := env(`{"protectConfig": false, "rules": [{"name": "no-rm", "command": "rm -rf", "decision": "deny"}]}`)
	nest := func(command string, n int) string {
		for range n {
			command = "sh -c '" + strings.ReplaceAll(command, "'", `'\''`) + "'"
		}
		return command
	}
	const rm, write = "rm -rf build", "echo {} > .autoagent/config.json"
	for _, tc := range []struct{ name, command, rule string }{
		{"a line that does not parse", rm + "\nif then fi (", "no-rm"},
		{"a line that does not parse, writing", write + "\nif then fi (", "protect-config"},
		{"sh -c nested too deep", nest(rm, 12), "no-rm"},
		{"sh -c nested too deep, writing", nest(write, 12), "protect-config"},
		{"too many commands", strings.Repeat("true; ", 5000) + rm, "no-rm"},
		{"too many commands, writing", strings.Repeat("true; ", 5000) + write, "protect-config"},
		{"substitutions nested too deep", "echo " + strings.Repeat("$(", 40) + rm + strings.Repeat(")", 40), "no-rm"},
		{"a script from an expansion", `X="` + rm + `"; sh -c "$X"`, "no-rm"},
		{"eval of an expansion", `eval "$CMD"`, "no-rm"},
		{"a program named at run time names its arguments", `$EDITOR .autoagent/config.json`, "protect-config"},
	} {
		bash := protected
		if tc.rule == "no-rm" {
			bash = unprotected
		}
		got := bash(tc.command)
		if !strings.Contains(got, `"permissionDecision":"deny"`) || !strings.Contains(got, "[rule "+tc.rule+":") {
			t.Errorf("%s: %.300s", tc.name, got)
		}
	}
	// What the walker reads, and what it knows it does not follow (a program's own code), are as
	// they were.
	for _, command := range []string{"ls -la && git status", `python3 -c "print(1)"`, "bash ./build.sh", "echo $(date)"} {
		if got := protected(command); got != "" {
			t.Errorf("%s: %s", command, got)
		}
	}
}
