package hooks

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkSpawnBaseline is what one `sh -c true` costs from Go, for comparison with
// BenchmarkFireTrue (one hook of `true`; bench/core.sh prints the ratio). Both also report the
// processor time an operation takes, the hook's included (cpu-ns/op), which the load of a shared
// machine disturbs less than the wall clock.
func BenchmarkSpawnBaseline(b *testing.B) {
	defer reportCPU(b)()
	for b.Loop() {
		if err := exec.Command("sh", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFireTrue(b *testing.B) {
	e := benchEngine(b, cmdHook("t", "true", ""))
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := e.Fire(context.Background(), PreExecutionEnd, Payload{"issueNumber": 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFireScriptAnswer(b *testing.B) {
	e := benchEngine(b, cmdHook("t", "cat >/dev/null; echo '{}'", ""))
	for b.Loop() {
		if _, err := e.Fire(context.Background(), PreExecutionEnd, Payload{"issueNumber": 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoad50(b *testing.B) {
	hooks := strings.Repeat(cmdHook("t", "true", `"timeout": 1000`)+",", 49) + cmdHook("t", "true", "")
	env := writeConfig(b, hooksJSON(PreExecutionEnd, hooks), "")
	reg := NewRegistry()
	for b.Loop() {
		if _, err := Load(reg, env); err != nil {
			b.Fatal(err)
		}
	}
}

func benchEngine(b *testing.B, hook string) *Engine {
	b.Helper()
	env := writeConfig(b, hooksJSON(PreExecutionEnd, hook), "")
	cfg, err := Load(NewRegistry(), env)
	if err != nil {
		b.Fatal(err)
	}
	return &Engine{Config: cfg, Workspace: env.Workspace, SessionID: "s", Environ: os.Environ(), Getenv: os.Getenv}
}

// BenchmarkParallel10Sleep: 10 parallel hooks of `sleep 0.2` (issue 7: under 0.5 s).
func BenchmarkParallel10Sleep(b *testing.B) {
	hooks := strings.TrimSuffix(strings.Repeat(cmdHook("s", "sleep 0.2", `"parallel": true`)+",", 10), ",")
	e := benchEngine(b, hooks)
	for b.Loop() {
		res, err := e.Fire(context.Background(), PreExecutionEnd, nil)
		if err != nil || len(res.Hooks) != 10 {
			b.Fatal(err)
		}
	}
}
