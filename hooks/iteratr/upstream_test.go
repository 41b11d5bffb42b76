package iteratr_test

// Tests ported from iteratr's own (mark3labs/iteratr v0.16.0, internal/hooks/hooks_test.go) and
// derived from its orchestrator (internal/orchestrator/orchestrator.go), run against real sh
// through the engine.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/iteratr"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

func agentOutput(res *hooks.Result) string {
	s, _ := res.Extra[iteratr.ExtraAgentOutput].(string)
	return s
}

// TestExecuteAllPiped is iteratr's TestExecuteAllPiped: only pipe_output hooks reach the agent,
// their outputs joined with "\n" (a blank line between outputs that end in a newline). Run as
// pre_iteration hooks, whose output is sent as it is.
func TestExecuteAllPiped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		hooks string
		want  string
	}{
		{"no hooks", "  pre_iteration: []\n", ""},
		{"single piped", "  pre_iteration:\n    - command: \"echo 'piped'\"\n      timeout: 5\n      pipe_output: true\n", "piped\n"},
		{"single not piped", "  pre_iteration:\n    - command: \"echo 'not piped'\"\n      timeout: 5\n      pipe_output: false\n", ""},
		{"mixed", "  pre_iteration:\n" +
			"    - command: \"echo 'first piped'\"\n      timeout: 5\n      pipe_output: true\n" +
			"    - command: \"echo 'not piped'\"\n      timeout: 5\n      pipe_output: false\n" +
			"    - command: \"echo 'second piped'\"\n      timeout: 5\n      pipe_output: true\n",
			"first piped\n\nsecond piped\n"},
		{"all false", "  pre_iteration:\n" +
			"    - command: \"echo 'first'\"\n      timeout: 5\n" +
			"    - command: \"echo 'second'\"\n      timeout: 5\n", ""},
		{"all true", "  pre_iteration:\n" +
			"    - command: \"echo 'first'\"\n      timeout: 5\n      pipe_output: true\n" +
			"    - command: \"echo 'second'\"\n      timeout: 5\n      pipe_output: true\n",
			"first\n\nsecond\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, "version: 1\nhooks:\n"+tt.hooks)
			if got := agentOutput(w.Fire(hooks.PreIteration, "iteration", 1)); got != tt.want {
				t.Errorf("agentOutput %q, want %q", got, tt.want)
			}
		})
	}
}

// TestExpandVariables is iteratr's TestExpandVariables: the words each program receives are those
// of iteratr's pasted text (the command text differs: values stay data here). An empty variable
// gives no word; variables iteratr does not set for the hook type are empty whatever the payload
// holds.
func TestExpandVariables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event, command string
		data                 []any
		want                 string
	}{
		{"session and iteration", hooks.PreIteration, "echo {{session}} iteration {{iteration}}",
			[]any{"session", "test-session", "iteration", 5}, "test-session iteration 5\n"},
		{"task", hooks.PostExecutionEnd, "printf '[%s]' {{task_id}} '{{task_content}}'",
			[]any{"taskId", "TAS-123", "taskContent", "Fix the bug"}, "[TAS-123][Fix the bug]"},
		{"error", hooks.Error, "echo 'Error occurred: {{error}}'",
			[]any{"error", "connection timeout"}, "Error occurred: connection timeout\n"},
		{"all five, on_error", hooks.Error, "echo {{session}}/{{iteration}}/{{task_id}}/{{task_content}}/{{error}}",
			[]any{"session", "s", "iteration", 1, "taskId", "t", "taskContent", "c", "error", "e"}, "s/1///e\n"},
		{"all five, on_task_complete", hooks.PostExecutionEnd, "echo {{session}}/{{iteration}}/{{task_id}}/{{task_content}}/{{error}}",
			[]any{"session", "s", "iteration", 1, "taskId", "t", "taskContent", "c", "error", "e"}, "s//t/c/\n"},
		{"no variables", hooks.PreIteration, "echo 'hello world'", nil, "hello world\n"},
		{"all empty: echo gets no argument", hooks.PreIteration,
			"printf '%s|' {{session}} {{iteration}} {{task_id}} {{task_content}} {{error}}; echo",
			[]any{"session", ""}, "session-1-test00|\n"},
		{"empty values are no words", hooks.SessionStart,
			"printf '[%s]' {{session}} {{iteration}} {{task_id}} {{task_content}} {{error}}; echo",
			[]any{"session", "", "iteration", 3}, "[session-1-test00]\n"},
		{"same variable thrice", hooks.SessionEnd, "echo {{session}}-{{session}}-{{session}}",
			[]any{"session", "test"}, "test-test-test\n"},
		{"iteration is not set at session_end", hooks.SessionEnd, "echo [{{session}}] [{{iteration}}] {{task_id}} end",
			[]any{"session", "auth", "iteration", 3}, "[auth] [] end\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			point := map[string]string{hooks.PreIteration: "pre_iteration", hooks.PostExecutionEnd: "on_task_complete",
				hooks.Error: "on_error", hooks.SessionStart: "session_start", hooks.SessionEnd: "session_end"}[tt.event]
			w := newWorkspace(t, "hooks:\n  "+point+":\n    - command: \""+strings.ReplaceAll(tt.command, `"`, `\"`)+"\"\n")
			res := w.Fire(tt.event, tt.data...)
			if got := res.Hooks[0].Stdout; got != tt.want {
				t.Errorf("stdout %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSessionName: {{session}} is the session's name, as iteratr's is: --data session=…, else the
// name the session was started with (the payload's sessionName), else the session id.
func TestSessionName(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "hooks:\n  pre_iteration:\n    - command: echo {{session}}\n")
	for _, tc := range []struct {
		data []any
		want string
	}{
		{[]any{"session", "given", hooks.KeySessionName, "started-as"}, "given\n"},
		{[]any{hooks.KeySessionName, "started-as"}, "started-as\n"},
		{nil, w.Session + "\n"},
	} {
		if got := w.Fire(hooks.PreIteration, tc.data...).Hooks[0].Stdout; got != tc.want {
			t.Errorf("%v: stdout %q, want %q", tc.data, got, tc.want)
		}
	}
}

// TestHookOutputText: what iteratr's Execute returns for a hook is what reaches the agent.
func TestHookOutputText(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, `
hooks:
  pre_iteration:
    - command: "echo out; echo err >&2; exit 3"
      pipe_output: true
    - command: "echo out; echo err >&2"
      pipe_output: true
    - command: "echo partial; echo e >&2; sleep 5"
      timeout: 1
      pipe_output: true
`)
	res := w.Fire(hooks.PreIteration, "iteration", 1)
	want := "[Hook command failed: exit status 3]\nout\n\n[stderr]\nerr\n" + "\n" +
		"out\n\n[stderr]\nerr\n" + "\n" +
		"[Hook timed out after 1s]\nPartial output:\npartial\n"
	if got := agentOutput(res); got != want {
		t.Errorf("agentOutput %q\nwant        %q", got, want)
	}
	if res.Blocked {
		t.Errorf("blocked: %s", res.Reason)
	}
}

// TestLenientLikeIteratr: iteratr ignores unknown hook fields, skips hooks without a command and
// null list items, and takes a negative timeout as the default. agent-hooks does the same and
// warns (file:line:column) where iteratr is silent about something that looks like a mistake.
func TestLenientLikeIteratr(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, `version: 1
hooks:
  post_iteration:
    - command: "true"
      pipe_ouput: true
      name: tests
    - timeout: 5
    - command: ""
    -
    - command: "echo negative"
      timeout: -4
    - command: "  "
`)
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range cfg.Warnings {
		got = append(got, strings.TrimPrefix(d.String(), filepath.Join(w.Dir, iteratr.FileName)+":"))
	}
	want := []string{
		`5:7: warning: post_iteration: unknown hook field "pipe_ouput"; did you mean "pipe_output"? (ignored, as iteratr does)`,
		`6:7: warning: post_iteration: unknown hook field "name" (ignored, as iteratr does)`,
		`7:7: warning: post_iteration: hook has no command, skipped (as iteratr does)`,
		`8:7: warning: post_iteration: hook has no command, skipped (as iteratr does)`,
		`9:6: warning: post_iteration: empty list item, skipped (as iteratr does)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var timeouts []time.Duration
	for _, h := range cfg.Hooks[hooks.PostIteration] {
		timeouts = append(timeouts, h.Timeout)
	}
	if !slices.Equal(timeouts, []time.Duration{iteratr.DefaultTimeout, iteratr.DefaultTimeout, iteratr.DefaultTimeout}) {
		t.Errorf("hooks' timeouts %v, want three hooks with the default", timeouts)
	}
	// a blank command runs, as `sh -c "  "` does in iteratr: successfully
	if got := seedtest.Statuses(w.Fire(hooks.PostIteration, "iteration", 1)); !slices.Equal(got, []string{"true=ok", "echo negative=ok", "  =ok"}) {
		t.Errorf("statuses %v", got)
	}
}

// TestConfigParsing is iteratr's TestConfigParsing, TestConfigParsing_EmptyHooks and
// TestConfigFromFile, on its own files: the same hooks, and no diagnostics.
func TestConfigParsing(t *testing.T) {
	t.Parallel()
	type hook struct {
		event, command string
		timeout        time.Duration
		pipe           bool
	}
	tests := []struct {
		file string
		want []hook
	}{
		{"test-config-parsing.yml", []hook{
			{hooks.SessionStart, "git pull", 30 * time.Second, true},
			{hooks.PreIteration, "golangci-lint run", 30 * time.Second, false},
			{hooks.PostIteration, "go test ./...", 120 * time.Second, true},
			{hooks.PostExecutionEnd, "./validate.sh", 30 * time.Second, true},
			{hooks.SessionEnd, "git push", 30 * time.Second, false},
			{hooks.Error, "git diff HEAD", 10 * time.Second, true},
		}},
		{"test-config-from-file.yml", []hook{
			{hooks.SessionStart, "echo start", 10 * time.Second, false},
			{hooks.SessionEnd, "echo end", 10 * time.Second, false},
		}},
		{"iteratr.hooks.repo.yml", []hook{
			{hooks.PostIteration, "golangci-lint run ./...", 5 * time.Second, true},
			{hooks.PostIteration, "go vet ./...", 5 * time.Second, true},
		}},
		{"iteratr.hooks.example.yml", nil}, // 16 hooks; checked for diagnostics only
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", "upstream", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := newWorkspace(t, string(b)).Load()
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Warnings) != 0 {
				t.Errorf("warnings: %v", cfg.Warnings)
			}
			if tt.want == nil {
				return
			}
			var got []hook
			for _, ev := range hooks.CanonicalEvents() {
				for _, h := range cfg.Hooks[ev] {
					got = append(got, hook{h.Event, h.Command, h.Timeout, h.Dialect.(iteratr.Dialect).PipeOutput})
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
	cfg, err := newWorkspace(t, "version: 1\nhooks: {}\n").Load()
	if err != nil || len(cfg.Warnings) != 0 || len(cfg.Hooks) != 0 {
		t.Errorf("empty hooks: %v %v %v", err, cfg.Warnings, cfg.Hooks)
	}
}
