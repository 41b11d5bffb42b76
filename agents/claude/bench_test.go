package claude_test

import (
	"testing"

	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
)

// BenchmarkHandle is the work of one `agent-hooks hook claude` inside the process (reading the
// input, loading the configuration, the session of Claude's session id, the hooks, the audit
// trail, the answer), without the process start: what agent-hooks adds to every tool call beyond
// its binary starting. bench/agent.sh measures the whole command against Claude Code's own way.
func BenchmarkHandle(b *testing.B) {
	for _, bc := range []struct{ name, config string }{
		{"no hooks", `{"hooks": {}}`},
		{"1 hook", hooktest.Config("PreToolUse", hooktest.Cmd("true"))},
		{"10 hooks", hooktest.Config("PreToolUse", hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"), hooktest.Cmd("true"))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := hooktest.New(b, bc.config)
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
