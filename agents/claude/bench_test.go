package claude_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/rules"
)

// fortyRules is a configuration of 40 rules none of which decides the benchmark's Bash call:
// 20 command patterns, 10 globs over the files a call writes, 10 expressions.
func fortyRules() string {
	var rs []string
	for i := range 20 {
		rs = append(rs, fmt.Sprintf(`{"name": "cmd%d", "command": "prog%d -rf --force", "decision": "deny"}`, i, i))
	}
	for i := range 10 {
		rs = append(rs, fmt.Sprintf(`{"name": "w%d", "writes": ["dir%d/**", "*.secret%d"], "decision": "deny"}`, i, i, i))
	}
	for i := range 10 {
		rs = append(rs, fmt.Sprintf(`{"name": "when%d", "tools": "Bash", "when": "toolInput.command contains 'never%d'", "decision": "ask"}`, i, i))
	}
	return `{"rules": [` + strings.Join(rs, ",\n") + `]}`
}

// BenchmarkHandle is the work of one `agent-hooks hook claude` inside the process (reading the
// input, loading the configuration, the session of Claude's session id, the hooks, the audit
// trail, the answer), without the process start: what agent-hooks adds to every tool call beyond
// its binary starting. bench/agent.sh measures the whole command against Claude Code's own way.
func BenchmarkHandle(b *testing.B) {
	for _, bc := range []struct{ name, config string }{
		{"no hooks", `{"hooks": {}}`},
		{"1 hook", hooktest.Config("PreToolUse", hooktest.Cmd("true"))},
		{"10 hooks", hooktest.Config("PreToolUse", hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"))},
		{"no hooks, rules on", `{"hooks": {}}`},
		{"40 rules", fortyRules()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := hooktest.New(b, bc.config)
			if strings.Contains(bc.name, "rules") {
				e.Registry = func(reg *hooks.Registry) { reg.Register(rules.TypeName, rules.Type{}) }
			}
			in := e.Input("claude", "PreToolUse.Bash", nil)
			e.Handle(host, in, 0) // the session exists from the first event on
			b.ResetTimer()
			for range b.N {
				if r := e.Handle(host, in, 0); r.ExitCode != 0 || len(r.Stdout) != 0 {
					b.Fatalf("%d %s", r.ExitCode, r.Stdout)
				}
			}
		})
	}
}
