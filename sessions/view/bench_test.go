package view

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/autoagent/agent-hooks/sessions"
)

// benchTrail is the trail of $AGENT_HOOKS_BENCH_TRAIL (bench/trail.sh makes them: trailgen …
// calls for an agent's), else one of 5,000 tool calls written here.
func benchTrail(b *testing.B) Trail {
	b.Helper()
	if path := os.Getenv("AGENT_HOOKS_BENCH_TRAIL"); path != "" {
		return Trail{Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
	}
	events := make([]sessions.Event, 0, 20000)
	for i := range 5000 {
		id := fmt.Sprintf("toolu_%d", i)
		events = append(events,
			hook(i*40, id, "PreToolUse", "lint", "ok", "", ""),
			hook(i*40+1, id, "PreToolUse", "writes", "skipped", "", `matcher: tools "Write" does not match Bash`),
			answer(i*40+2, id, "PreToolUse", "", "", bash("go", "test", "./internal/runner/...")),
			hook(i*40+30, id, "PostToolUse", "log", "ok", "", ""))
	}
	_, tr := newTrail(b, events...)
	return tr
}

func BenchmarkTable(b *testing.B) {
	tr := benchTrail(b)
	for b.Loop() {
		if err := Table(io.Discard, tr, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHTML(b *testing.B) {
	tr := benchTrail(b)
	sess, _ := newTrail(b)
	for b.Loop() {
		if err := HTML(io.Discard, sess, tr, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
