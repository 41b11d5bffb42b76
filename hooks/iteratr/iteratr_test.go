package iteratr_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/iteratr"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

func newWorkspace(t *testing.T, config string) *seedtest.Workspace {
	t.Helper()
	w := seedtest.New(t, []hooks.Format{iteratr.New()})
	w.Write(iteratr.FileName, config, 0o644)
	return w
}

func TestLoadSeedExample(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "seed.iteratr.hooks.yml"))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t, string(b))
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		event, command string
		timeout        time.Duration
		line           int
	}
	want := []row{
		{hooks.SessionStart, "go build ./...", 60 * time.Second, 5},
		{hooks.PreIteration, "golangci-lint run ./...", 30 * time.Second, 10},
		{hooks.PreIteration, "git status --short", 5 * time.Second, 13},
		{hooks.PostIteration, "go test ./... -short", 120 * time.Second, 18},
		{hooks.PostExecutionEnd, "./scripts/validate.sh {{task_id}}", 30 * time.Second, 28},
		{hooks.SessionEnd, "git push origin HEAD", 30 * time.Second, 23},
		{hooks.Error, "git diff HEAD", 10 * time.Second, 33},
	}
	var got []row
	for _, ev := range hooks.CanonicalEvents() {
		for _, h := range cfg.Hooks[ev] {
			if h.Source.Format != "iteratr" || h.Source.File != filepath.Join(w.Dir, ".iteratr.hooks.yml") || h.Blocking {
				t.Errorf("%s: source %+v blocking %v", h.Command, h.Source, h.Blocking)
			}
			got = append(got, row{h.Event, h.Command, h.Timeout, h.Source.Line})
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %v", cfg.Warnings)
	}
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, config string
		want         string // the first error, as printed
	}{
		{"typo in hook type", "hooks:\n  pre_iteraton:\n    - command: make lint\n",
			`2:3: error: unknown iteratr hook point "pre_iteraton"; did you mean "pre_iteration"?`},
		{"bad timeout", "hooks:\n  on_error:\n    - command: git diff\n      timeout: soon\n",
			"4:16: error: on_error: timeout: cannot unmarshal !!str `soon` into int"},
		{"bad YAML", "hooks:\n  session_start:\n    - command: \"unterminated\n",
			"3:1: error: invalid YAML: found unexpected end of stream"},
		{"not a list", "hooks:\n  session_start:\n    command: make\n",
			"3:5: error: session_start: expected a list of hooks"},
		{"duplicate hook point", "hooks:\n  pre_iteration:\n    - command: a\n  pre_iteration:\n    - command: b\n",
			`4:3: error: duplicate key "pre_iteration" (first at 2:3)`},
		{"duplicate field", "hooks:\n  pre_iteration:\n    - command: a\n      command: b\n",
			`4:7: error: duplicate key "command" (first at 3:7)`},
		{"template run as code", "hooks:\n  on_task_complete:\n    - command: sh -c 'notify {{task_content}}'\n",
			"3:16: error: on_task_complete: command: {{task_content}} is in the command string of sh -c, which that shell runs as code; pass the value as an argument after it instead: sh -c '… \"$1\" …' sh {{task_content}} (line 1, column 15 of the command)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, tt.config)
			_, err := w.Load()
			var cerr *hooks.ConfigError
			if !errorsAs(err, &cerr) {
				t.Fatalf("got %v, want a configuration error", err)
			}
			if got := cerr.Diagnostics[0].String(); !strings.HasSuffix(got, tt.want) || !strings.HasPrefix(got, filepath.Join(w.Dir, ".iteratr.hooks.yml")) {
				t.Errorf("got  %s\nwant <file>:%s", got, tt.want)
			}
		})
	}
}

func errorsAs(err error, target **hooks.ConfigError) bool {
	ce, ok := err.(*hooks.ConfigError)
	if ok {
		*target = ce
	}
	return ok
}

func TestTemplateVariables(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, `
hooks:
  on_task_complete:
    - command: "printf '%s|%s|%s|%s\n' {{session}} {{task_id}} {{task_content}} '{{iteration}}'"
  on_error:
    - command: "echo \"error in iteration {{iteration}}: {{error}}\""
`)
	evil := "$(touch pwned); `touch pwned2` 'quoted' \"dq\""
	res := w.Fire("on_task_complete", "taskId", "TAS-7", "taskContent", evil, "iteration", 4)
	if got, want := res.Hooks[0].Stdout, w.Session+"|TAS-7|"+evil+"|\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	res = w.Fire("on_error", "iteration", 3, "error", "boom; touch pwned3")
	if got, want := res.Hooks[0].Stdout, "error in iteration 3: boom; touch pwned3\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	for _, f := range []string{"pwned", "pwned2", "pwned3"} {
		if _, err := os.Stat(filepath.Join(w.Dir, f)); err == nil {
			t.Errorf("a payload value ran as shell: %s exists", f)
		}
	}
}

func TestFailuresBecomeOutput(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, `
hooks:
  pre_iteration:
    - command: "echo lint failed >&2; exit 2"
      pipe_output: true
    - command: "sleep 20"
      timeout: 1
      pipe_output: true
    - command: "echo still runs"
      pipe_output: true
`)
	res := w.Fire(hooks.PreIteration, "iteration", 1)
	if res.Blocked || res.Decision != hooks.DecisionApprove {
		t.Fatalf("decision %s blocked %v: iteratr hooks never stop the session", res.Decision, res.Blocked)
	}
	if got, want := seedtest.Statuses(res), []string{"echo lint failed >&2; exit 2=error", "sleep 20=timeout", "echo still runs=ok"}; !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	want := "[Hook command failed: exit status 2]\n\n[stderr]\nlint failed\n\n[Hook timed out after 1s]\nPartial output:\n\nstill runs\n"
	if got := res.Extra[iteratr.ExtraAgentOutput]; got != want {
		t.Errorf("agentOutput %q, want %q", got, want)
	}
}

func TestPendingBuffer(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, `
hooks:
  session_start:
    - command: "echo setup done"
      pipe_output: true
    - command: "echo not for the agent"
  pre_iteration:
    - command: "echo lint {{iteration}}"
      pipe_output: true
  post_iteration:
    - command: "echo tests after {{iteration}}"
      pipe_output: true
  on_task_complete:
    - command: "echo validated {{task_id}}"
      pipe_output: true
  on_error:
    - command: "echo diff for {{error}}"
      pipe_output: true
  session_end:
    - command: "echo bye"
`)
	agent := func(res *hooks.Result) string {
		s, _ := res.Extra[iteratr.ExtraAgentOutput].(string)
		return s
	}
	steps := []struct {
		event string
		data  []any
		want  string
	}{
		{"session_start", nil, ""}, // to the pending buffer only: the first iteration shows it
		{"pre_iteration", []any{"iteration", 1}, "setup done\n\nlint 1\n"},
		{"pre_iteration", []any{"iteration", 2}, "lint 2\n"},                         // drained: once only
		{"post_iteration", []any{"iteration", 2}, postFrame("2", "tests after 2\n")}, // at once, framed
		{"on_task_complete", []any{"taskId", "T1"}, ""},                              // buffered
		{"on_task_complete", []any{"taskId", "T2"}, ""},
		{"on_error", []any{"iteration", 3, "error", "crash"}, errorFrame("3", "crash", "diff for crash\n")},
		{"pre_iteration", []any{"iteration", 3}, "validated T1\n\nvalidated T2\n\nlint 3\n"},
		{"on_task_complete", []any{"taskId", "T3"}, ""},
		{"session_end", nil, "validated T3\n"}, // final delivery of what is pending
		{"pre_iteration", []any{"iteration", 4}, "lint 4\n"},
	}
	for i, s := range steps {
		if got := agent(w.Fire(s.event, s.data...)); got != s.want {
			t.Errorf("step %d %s: agentOutput %q, want %q", i, s.event, got, s.want)
		}
	}

	// Another session has its own buffer.
	w.Fire("on_task_complete", "taskId", "T9")
	w.Session = "session-2-other0"
	if got := agent(w.Fire("pre_iteration", "iteration", 1)); got != "lint 1\n" {
		t.Errorf("other session: agentOutput %q, want only its own output", got)
	}
}

func postFrame(iteration, output string) string {
	return "[POST-ITERATION HOOKS - iteration #" + iteration + "]\n" +
		"The following output is from post-iteration hooks (linting, vetting, etc.).\n" +
		"If there are errors or issues, fix them now. Do NOT pick a new task.\n" +
		"When done fixing (or if no issues), STOP immediately.\n\n" + output
}

func errorFrame(iteration, err, output string) string {
	return "[ON-ERROR HOOKS - iteration #" + iteration + "]\n" +
		"The iteration encountered an error: " + err + "\n\n" +
		"Diagnostic output from error hooks:\n" + output + "\n\n" +
		"Fix the issue and continue completing your current task."
}

func TestPendingBufferConcurrent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "hooks:\n  on_task_complete:\n    - command: echo done {{task_id}}\n      pipe_output: true\n")
	const n = 12
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			eng := w.Engine()
			if _, err := eng.Fire(context.Background(), "on_task_complete", hooks.Payload{"taskId": fmt.Sprint(i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, _ := w.Fire(hooks.PreIteration).Extra[iteratr.ExtraAgentOutput].(string)
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(got), "\n\n", "\n"), "\n")
	slices.Sort(lines)
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("done %d", i))
	}
	slices.Sort(want)
	if !slices.Equal(lines, want) {
		t.Errorf("pending after %d concurrent events: %q", n, lines)
	}
}

func TestSessionEndIgnoresPipeOutput(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "hooks:\n  session_end:\n    - command: echo bye\n      pipe_output: true\n")
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 0 { // as in iteratr, whose own example sets it there
		t.Errorf("warnings %v", cfg.Warnings)
	}
	if res := w.Fire(hooks.SessionEnd); res.Extra[iteratr.ExtraAgentOutput] != nil {
		t.Errorf("session_end output reached the agent: %v", res.Extra)
	}
}

// TestExampleWorkspace keeps the README's example (testdata/iteratr-example) working.
func TestExampleWorkspace(t *testing.T) {
	t.Parallel()
	w := seedtest.New(t, []hooks.Format{iteratr.New()})
	w.UseExample("iteratr-example")
	cfg, err := w.Load()
	if err != nil || len(cfg.Warnings) != 0 {
		t.Fatalf("load: %v %v", err, cfg.Warnings)
	}
	w.Fire("on_task_complete", "taskId", "T1", "taskContent", "Write the parser")
	out, _ := w.Fire(hooks.PreIteration, "iteration", 1).Extra[iteratr.ExtraAgentOutput].(string)
	for _, want := range []string{"validated task T1: Write the parser\n", "TODO: the agent should notice this line", "[Hook command failed: exit status 1]\n", "README.md\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("agentOutput %q lacks %q", out, want)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	w := seedtest.New(b, []hooks.Format{iteratr.New()})
	w.UseExample("iteratr-example")
	seedtest.BenchLoad(b, w)
}
