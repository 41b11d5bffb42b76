package pipelines_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/pipelines"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

// seedLoop is the seed document's per-loop configuration.
const seedLoop = `name: my-loop
description: Loop with hooks

hooks:
  on_session_start: "./scripts/notify.sh started ${SESSION}"
  on_iteration_complete: "./scripts/backup-progress.sh ${PROGRESS_FILE}"
  on_session_complete: "./scripts/notify.sh completed ${SESSION} ${ITERATION}"
  on_error: "./scripts/notify.sh failed ${SESSION} ${ERROR}"
`

// seedGlobal is the seed document's global hooks file; on_error's osascript notification (macOS
// only) writes to a file instead.
const seedGlobal = `#!/bin/bash
# Global hooks - run for all sessions

on_session_complete() {
  local session=$1
  local status=$2
  local iterations=$3

  # Send to Slack
  curl -s -X POST "$SLACK_WEBHOOK" \
    -H "Content-Type: application/json" \
    -d "{\"text\": \"Loop $session completed after $iterations iterations\"}"
}

on_error() {
  local session=$1
  local error=$2

  # Send error alert
  echo "Loop $session failed: $error" >> "$HOME/alerts.log"
}
`

func newWorkspace(t *testing.T, loop, global string) *seedtest.Workspace {
	t.Helper()
	w := seedtest.New(t, []hooks.Format{pipelines.New()})
	if loop != "" {
		w.Write("loop.yaml", loop, 0o644)
	}
	if global != "" {
		w.Write("~/.config/agent-pipelines/hooks.sh", global, 0o644)
	}
	w.Write("scripts/notify.sh", "#!/bin/sh\necho \"$@\" >> notifications.log\n", 0o755)
	w.Write("scripts/backup-progress.sh", "#!/bin/sh\ncp \"$1\" \"$1.bak\"\n", 0o755)
	return w
}

func TestSeedHooks(t *testing.T) {
	t.Parallel()
	posts := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		posts <- string(b)
	}))
	defer srv.Close()
	w := newWorkspace(t, seedLoop, seedGlobal)
	w.Env["SLACK_WEBHOOK"] = srv.URL
	w.Write("progress.md", "# progress\n", 0o644)

	w.Fire("on_session_start")
	w.Fire(hooks.PostIteration, "iteration", 1, "progressFile", filepath.Join(w.Dir, "progress.md"))
	res := w.Fire("on_session_complete", "status", "completed", "iteration", 5)
	if got, want := seedtest.Statuses(res), []string{"on_session_complete=ok", "global on_session_complete=ok"}; !slices.Equal(got, want) {
		t.Errorf("loop hook then global: got %v, want %v", got, want)
	}
	evil := "bad $(touch pwned) `touch pwned2`"
	w.Fire(hooks.Error, "error", evil)

	wantLog := "started " + w.Session + "\ncompleted " + w.Session + " 5\nfailed " + w.Session + " " + evil + "\n"
	if got := w.Read("notifications.log"); got != wantLog {
		t.Errorf("notifications.log:\n%s\nwant:\n%s", got, wantLog)
	}
	if got := w.Read("progress.md.bak"); got != "# progress\n" {
		t.Errorf("backup-progress.sh did not copy ${PROGRESS_FILE}: %q", got)
	}
	if got, want := <-posts, `{"text": "Loop `+w.Session+` completed after 5 iterations"}`; got != want {
		t.Errorf("slack got %s, want %s", got, want)
	}
	alerts, _ := os.ReadFile(filepath.Join(w.Home, "alerts.log"))
	if got, want := string(alerts), "Loop "+w.Session+" failed: "+evil+"\n"; got != want {
		t.Errorf("global on_error: %q, want %q", got, want)
	}
	for _, f := range []string{"pwned", "pwned2"} {
		if _, err := os.Stat(filepath.Join(w.Dir, f)); err == nil {
			t.Errorf("a payload value ran as shell: %s exists", f)
		}
	}
}

func TestLoopEnv(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "hooks:\n  on_iteration_start: env | grep ^LOOP_ | sort\n", "")
	res := w.Fire("on_iteration_start", "iteration", 2, "maxIterations", 5, "loopType", "work", "status", "running",
		"progressFile", "p.md", "stateFile", "state.json", "error", "none", "duration", 12500)
	want := strings.Join([]string{
		"LOOP_DURATION=12.5", "LOOP_ERROR=none", "LOOP_ITERATION=2", "LOOP_MAX_ITERATIONS=5", "LOOP_PROGRESS_FILE=p.md",
		"LOOP_SESSION=" + w.Session, "LOOP_STATE_FILE=state.json", "LOOP_STATUS=running", "LOOP_TYPE=work",
	}, "\n") + "\n"
	if got := res.Hooks[0].Stdout; got != want {
		t.Errorf("env:\n%s\nwant:\n%s", got, want)
	}
}

func TestFailuresWarnAndContinue(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "hooks:\n  on_iteration_start: \"echo checking; exit 2\"\n",
		"on_iteration_start() { echo \"global $1 $2\"; }\n")
	res := w.Fire(hooks.PreIteration, "iteration", 4)
	if res.Blocked {
		t.Fatalf("a failing agent-pipelines hook blocked the event: %s", res.Reason)
	}
	if got, want := seedtest.Statuses(res), []string{"on_iteration_start=error", "global on_iteration_start=ok"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, want := res.Hooks[1].Stdout, "global "+w.Session+" 4\n"; got != want {
		t.Errorf("global hook arguments: %q, want %q", got, want)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "loop hook on_iteration_start failed (exit 2): checking") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

func TestDisableGlobal(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "hooks:\n  disable_global: true\n  on_session_start: echo loop\n", "on_session_start() { echo global; }\n")
	if got, want := seedtest.Statuses(w.Fire(hooks.SessionStart)), []string{"on_session_start=ok"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// Without a loop.yaml the global hooks still run.
	w = newWorkspace(t, "", "on_session_start() { echo global; }\n")
	if got, want := seedtest.Statuses(w.Fire(hooks.SessionStart)), []string{"global on_session_start=ok"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestXDGConfigHome(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "", "")
	w.Env["XDG_CONFIG_HOME"] = filepath.Join(w.Home, "xdg")
	w.Write("~/xdg/agent-pipelines/hooks.sh", "on_error() { echo \"xdg $2\"; }\n", 0o644)
	res := w.Fire(hooks.Error, "error", "oops")
	if len(res.Hooks) != 1 || res.Hooks[0].Stdout != "xdg oops\n" {
		t.Errorf("got %+v", res.Hooks)
	}
}

func TestLoopFile(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "hooks:\n  on_session_start: echo workspace loop\n", "")
	w.Write("scripts/loops/work/loop.yaml", "hooks:\n  on_session_start: echo named loop\n", 0o644)
	w.LoopFile = "scripts/loops/work/loop.yaml"
	if got := w.Fire(hooks.SessionStart).Hooks[0].Stdout; got != "named loop\n" {
		t.Errorf("--loop: got %q", got)
	}
	w.LoopFile = "missing.yaml"
	if _, err := w.Load(); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("a missing --loop file: got %v", err)
	}
}

func TestCheckpoints(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, `name: supervised-work
checkpoints:
  every: 2
hooks:
  on_checkpoint: "echo checkpoint ${ITERATION} >> checkpoints.log"
`, "")
	for i := 1; i <= 5; i++ {
		res := w.Fire(hooks.PostIteration, "iteration", i)
		cp, fired := res.Extra[pipelines.ExtraCheckpoint].(*hooks.Result)
		if fired != (i%2 == 0) {
			t.Errorf("iteration %d: checkpoint fired = %v", i, fired)
		}
		if fired && (cp.Event != hooks.Checkpoint || len(cp.Hooks) != 1) {
			t.Errorf("iteration %d: checkpoint result %+v", i, cp)
		}
	}
	if got := w.Read("checkpoints.log"); got != "checkpoint 2\ncheckpoint 4\n" {
		t.Errorf("checkpoints.log %q", got)
	}

	// Without an iteration in the payload the session's PostIterations are counted.
	w.Session = "session-2-count0"
	for range 4 {
		w.Fire(hooks.PostIteration)
	}
	if got := w.Read("checkpoints.log"); got != "checkpoint 2\ncheckpoint 4\ncheckpoint 2\ncheckpoint 4\n" {
		t.Errorf("checkpoints.log %q", got)
	}
}

func TestCheckpointBlocked(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "checkpoints:\n  every: 1\n", "")
	// A blocking Checkpoint hook from another source: a native config.
	w.Write(".autoagent/config.json", `{"hooks": {"Checkpoint": [{"command": "echo quality gate failed >&2; exit 2"}]}}`, 0o644)
	res := w.Fire(hooks.PostIteration, "iteration", 3)
	cp, _ := res.Extra[pipelines.ExtraCheckpoint].(*hooks.Result)
	if cp == nil || !cp.Blocked || cp.Reason != "quality gate failed" {
		t.Fatalf("checkpoint %+v", cp)
	}
	if res.Blocked || len(res.Warnings) != 1 || res.Warnings[0] != "checkpoint at iteration 3 blocked: quality gate failed" {
		t.Errorf("PostIteration blocked=%v warnings %q", res.Blocked, res.Warnings)
	}
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, loop, global string
		wantErr            string
		wantWarn           string
	}{
		{name: "unknown hook point", loop: "hooks:\n  on_sesion_start: echo hi\n",
			wantErr: `loop.yaml:2:3: error: unknown agent-pipelines hook point "on_sesion_start"; did you mean "on_session_start"?`},
		{name: "duplicate hook point", loop: "hooks:\n  on_error: echo a\n  on_error: echo b\n",
			wantErr: `loop.yaml:3:3: error: duplicate key "on_error" (first at 2:3)`},
		{name: "bad YAML", loop: "hooks:\n  on_error: [unclosed\n",
			wantErr: "loop.yaml:2:1: error: invalid YAML: did not find expected ',' or ']'"},
		{name: "disable_global", loop: "hooks:\n  disable_global: maybe\n",
			wantErr: "loop.yaml:2:19: error: hooks.disable_global: expected true or false"},
		{name: "checkpoints.every", loop: "checkpoints:\n  every: 0\n",
			wantErr: `loop.yaml:2:10: error: checkpoints.every: expected a positive number of iterations, got "0"`},
		{name: "global syntax", global: "on_error() {\n  echo (\n}\n",
			wantErr: "hooks.sh:2:3: error: invalid shell: `foo(` must be followed by `)`"},
		{name: "await_poll without a condition", loop: "hooks:\n  on_approval_required:\n    type: await_poll\n    poll:\n      url: x\n",
			wantErr: "loop.yaml:3:5: error: hooks.on_approval_required: await_poll needs poll.success_when or poll.abort_when"},
		{name: "await_webhook without a URL", loop: "hooks:\n  on_approval_required:\n    type: await_webhook\n    receive:\n      port: 8765\n",
			wantErr: "loop.yaml:3:5: error: hooks.on_approval_required: await_webhook needs send.url"},
		{name: "await_webhook timeout_action", loop: "hooks:\n  on_approval_required:\n    type: await_webhook\n    send: {url: x}\n    receive: {timeout_action: wait}\n",
			wantErr: `loop.yaml:3:5: error: hooks.on_approval_required: await_webhook receive.timeout_action "wait" is not continue or abort`},
		{name: "await_webhook port", loop: "hooks:\n  on_approval_required:\n    type: await_webhook\n    send: {url: x}\n    receive: {port: 70000}\n",
			wantErr: "loop.yaml:3:5: error: hooks.on_approval_required: await_webhook receive.port 70000 is not a port"},
		{name: "await type typo", loop: "hooks:\n  on_approval_required:\n    type: await_webhok\n",
			wantErr: `loop.yaml:3:5: error: hooks.on_approval_required: unknown hook type "await_webhok"; did you mean "await_webhook"?`},
		{name: "await without a type", loop: "hooks:\n  on_approval_required:\n    send: {url: x}\n",
			wantErr: "loop.yaml:3:5: error: hooks.on_approval_required: a structured hook needs a type"},
		{name: "spawn keyword without checkpoints.spawn", loop: "hooks:\n  on_checkpoint: spawn\n",
			wantErr: "loop.yaml:2:18: error: hooks.on_checkpoint: spawn needs checkpoints.spawn (the pipeline to run)"},
		{name: "spawn without a pipeline", loop: "checkpoints:\n  every: 2\n  spawn:\n    inputs: {a: b}\n",
			wantErr: "loop.yaml:4:5: error: checkpoints.spawn: pipeline is required"},
		{name: "spawn on_complete", loop: "checkpoints:\n  spawn:\n    pipeline: review\n    on_complete: keep\n",
			wantErr: `loop.yaml:3:5: error: checkpoints.spawn.on_complete: "keep" is not merge, replace or ignore`},
		{name: "spawn unknown key", loop: "checkpoints:\n  spawn:\n    pipeline: review\n    input: {a: b}\n",
			wantWarn: `loop.yaml:4:5: warning: checkpoints.spawn: unknown key "input"; did you mean "inputs"?`},
		{name: "await unknown key", loop: "hooks:\n  on_approval_required:\n    type: await_input\n    file: a\n    prompt: b\n    timeout_actoin: continue\n",
			wantWarn: `loop.yaml:6:5: warning: hooks.on_approval_required: unknown key "timeout_actoin"; did you mean "timeout_action"?`},
		{name: "await unknown nested key", loop: "hooks:\n  on_approval_required:\n    type: await_webhook\n    send: {url: https://x.test, bdy: {}}\n",
			wantWarn: `loop.yaml:4:33: warning: hooks.on_approval_required.send: unknown key "bdy"; did you mean "body"?`},
		{name: "unknown global function", global: "helper() { :; }\n\non_iteration_end() { :; }\n",
			wantWarn: `hooks.sh:3:1: warning: function on_iteration_end is not called: unknown agent-pipelines hook point "on_iteration_end"; did you mean "on_iteration_start"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, tt.loop, tt.global)
			w.Types = approvalTypes(t)
			cfg, err := w.Load()
			var got string
			if ce, ok := err.(*hooks.ConfigError); ok {
				got = ce.Diagnostics[0].String()
			} else if err != nil {
				t.Fatal(err)
			} else if len(cfg.Warnings) > 0 {
				got = cfg.Warnings[0].String()
			}
			want := tt.wantErr + tt.wantWarn
			if (err != nil) != (tt.wantErr != "") || !strings.Contains(got, string(filepath.Separator)+want) {
				t.Errorf("got %q (error %v), want …/%s", got, err, want)
			}
		})
	}
}

// TestExampleWorkspace keeps the README's example (testdata/agent-pipelines-example) working.
func TestExampleWorkspace(t *testing.T) {
	t.Parallel()
	w := seedtest.New(t, []hooks.Format{pipelines.New()})
	w.UseExample("agent-pipelines-example")
	b, err := os.ReadFile(filepath.Join(w.Dir, "global", "hooks.sh")) // installed as ~/.config/agent-pipelines/hooks.sh
	if err != nil {
		t.Fatal(err)
	}
	w.Write("~/.config/agent-pipelines/hooks.sh", string(b), 0o644)
	cfg, err := w.Load()
	if err != nil || len(cfg.Warnings) != 0 {
		t.Fatalf("load: %v %v", err, cfg.Warnings)
	}
	res := w.Fire("on_iteration_complete", "iteration", 2, "maxIterations", 4)
	cp, _ := res.Extra[pipelines.ExtraCheckpoint].(*hooks.Result)
	if cp == nil || len(cp.Hooks) != 1 || cp.Hooks[0].Stdout != "["+w.Session+"] checkpoint "+w.Session+" 2 (iteration 2 of 4)\n" {
		t.Errorf("checkpoint %+v", cp)
	}
	res = w.Fire("on_session_complete", "status", "completed", "iteration", 4)
	if got, want := seedtest.Statuses(res), []string{"on_session_complete=ok", "global on_session_complete=ok"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func BenchmarkLoad(b *testing.B) {
	w := seedtest.New(b, []hooks.Format{pipelines.New()})
	w.Write("~/.config/agent-pipelines/hooks.sh", seedGlobal, 0o644)
	w.Write("loop.yaml", seedLoop, 0o644)
	seedtest.BenchLoad(b, w)
}

// TestCheckpointsComeWithTheLoop: the extension that fires checkpoints is bound to the loop Load
// read (here one named with --loop, read once), and a workspace whose loop sets no checkpoints
// has none.
func TestCheckpointsComeWithTheLoop(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, "checkpoints:\n  every: 5\n", "")
	w.Write("loops/review.yaml", "checkpoints:\n  every: 3\n", 0o644)
	w.Write(".autoagent/config.json", `{"hooks": {"Checkpoint": [{"command": "echo checkpoint $AUTOAGENT_PAYLOAD"}]}}`, 0o644)
	w.LoopFile = "loops/review.yaml"
	if l, err := pipelines.New().Load(w.LoadEnv()); err != nil || l.Extension == nil {
		t.Fatalf("a loop with checkpoints: extension %v, error %v", l.Extension, err)
	}
	for i, want := range map[int]bool{3: true, 5: false, 6: true} {
		res := w.Fire(hooks.PostIteration, "iteration", i)
		if _, fired := res.Extra[pipelines.ExtraCheckpoint].(*hooks.Result); fired != want {
			t.Errorf("iteration %d: checkpoint fired = %v, want %v (every 3, from the named loop)", i, fired, want)
		}
	}
	w.LoopFile = ""
	w.Write("loop.yaml", "hooks:\n  on_checkpoint: echo cp\n", 0o644)
	if l, err := pipelines.New().Load(w.LoadEnv()); err != nil || l.Extension != nil || len(l.Hooks) != 1 {
		t.Errorf("a loop without checkpoints: extension %v, %d hooks, error %v", l.Extension, len(l.Hooks), err)
	}
}
