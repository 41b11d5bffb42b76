package hooks

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/autoagent/agent-hooks/hooks/process"
)

// fakeStarter starts no process: it answers each one from a table by its command (the script of
// sh -c, else its argv joined by spaces), writes the answer's output to the live writers as a
// process would, and records what it was asked to start. Tests of what the engine decides use it:
// they need no fork, and a hook that must not run shows in started.
type fakeStarter struct {
	results map[string]process.Result

	mu      sync.Mutex
	started []string
}

func (f *fakeStarter) Run(_ context.Context, p process.Process, liveOut, liveErr io.Writer) (*process.Result, error) {
	cmd := strings.Join(p.Argv, " ")
	if len(p.Argv) == 3 && p.Argv[0] == "sh" && p.Argv[1] == "-c" {
		cmd = p.Argv[2]
	}
	f.mu.Lock()
	f.started = append(f.started, cmd)
	f.mu.Unlock()
	r, ok := f.results[cmd]
	if !ok {
		return &process.Result{StartErr: fmt.Errorf("fake starter: no answer for %q", cmd), ExitCode: 127}, nil
	}
	if liveOut != nil {
		_, _ = io.WriteString(liveOut, r.Stdout)
	}
	if liveErr != nil {
		_, _ = io.WriteString(liveErr, r.Stderr)
	}
	return &r, nil
}

// Started is the commands started so far, in order.
func (f *fakeStarter) Started() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.started, " ")
}

// fakeEngine is engineFor with a fakeStarter answering from results.
func fakeEngine(t *testing.T, config string, reg *Registry, env map[string]string, results map[string]process.Result) (*Engine, *fakeStarter) {
	t.Helper()
	e, _ := engineFor(t, config, reg, env)
	f := &fakeStarter{results: results}
	e.Starter = f
	return e, f
}

// The answers of the fake processes: each is named by the command a test's hook runs.
var fakeAnswers = map[string]process.Result{
	"ok":         {},
	"ask-prod":   {Stdout: `{"decision":"ask","reason":"touches prod"}`},
	"claude-ask": {Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`},
	"nope":       {ExitCode: 2, Stderr: "nope\n"},
	"stop":       {ExitCode: 2, Stderr: "stop\n"},
	"no-tests":   {ExitCode: 2, Stderr: "no tests\n"},
}
