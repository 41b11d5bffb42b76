package pipelines_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/pipelines"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

// childEngine stands in for agent-pipelines' engine as the plan's spawn.sh calls it
// (engine.sh --session-dir DIR --pipeline NAME --inputs FILE), the engine that implements that
// call not being published: it runs the child pipeline's one stage, a command of
// scripts/pipelines/NAME.sh, in the child's directory with the inputs in its environment, keeps
// the child's own state and progress there and writes what the stage printed as output.json.
const childEngine = `#!/bin/bash
set -euo pipefail
while [ $# -gt 0 ]; do
  case "$1" in
    --session-dir) dir=$2; shift 2 ;;
    --pipeline) pipeline=$2; shift 2 ;;
    --inputs) inputs=$2; shift 2 ;;
    *) echo "engine: unknown argument $1" >&2; exit 64 ;;
  esac
done
echo "$pipeline $dir $inputs parent=$LOOP_SESSION iteration=$LOOP_ITERATION" >> engine.log
echo '{"status": "running"}' > "$dir/state.json"
stage="$PWD/scripts/pipelines/$pipeline.sh"
[ -x "$stage" ] || { echo "Error: Pipeline not found: $pipeline" >&2; exit 1; }
(cd "$dir" && FILES=$(jq -r .files_changed "$inputs") "$stage" > output.json.tmp)
mv "$dir/output.json.tmp" "$dir/output.json"
echo "- ran $pipeline" >> "$dir/progress.md"
echo '{"status": "complete"}' > "$dir/state.json"
`

// spawnWorkspace is a stage that spawns code-review every 2 iterations, with the engine above
// and its code-review stage, and an on_checkpoint hook that reads the child's output.
func spawnWorkspace(t *testing.T, review string) *seedtest.Workspace {
	t.Helper()
	w := newWorkspace(t, `name: work-with-review
checkpoints:
  every: 2
  spawn:
    pipeline: code-review
    inputs:
      files_changed: "${CHANGED_FILES}"
      session: "${SESSION}"
    on_complete: merge
hooks:
  on_checkpoint: "echo \"checkpoint ${ITERATION}: $CHILD_OUTPUT\""
`, "")
	w.Write("scripts/engine.sh", childEngine, 0o755)
	w.Write("scripts/pipelines/code-review.sh", review, 0o755)
	w.Env["CHANGED_FILES"] = "auth.go"
	return w
}

func TestSpawnRunsTheChildPipeline(t *testing.T) {
	t.Parallel()
	if !hasJQ() {
		t.Skip("the stand-in engine needs jq")
	}
	w := spawnWorkspace(t, "#!/bin/sh\necho \"{\\\"issues\\\": 2, \\\"files\\\": \\\"$FILES\\\"}\"\n")
	run := filepath.Join(".claude", "pipeline-runs", "auth")
	w.Write(filepath.Join(run, "state.json"), `{"session": "auth", "status": "running", "iteration": 4}`, 0o644)
	w.Write(filepath.Join(run, "children", "checkpoint-4", "output.json"), `{"stale": true}`, 0o644)

	res := w.Fire(hooks.PostIteration, "sessionName", "auth", "iteration", 4)
	cp, _ := res.Extra[pipelines.ExtraCheckpoint].(*hooks.Result)
	if cp == nil || cp.Blocked {
		t.Fatalf("checkpoint %+v", cp)
	}
	if got := seedtest.Statuses(cp); !slices.Equal(got, []string{"on_checkpoint (spawn code-review)=ok", "on_checkpoint=ok"}) {
		t.Fatalf("ran %v", got)
	}
	child := filepath.Join(w.Dir, run, "children", "checkpoint-4")
	if got, want := cp.Hooks[1].Stdout, "checkpoint 4: {\"issues\": 2, \"files\": \"auth.go\"}\n"; got != want {
		t.Errorf("on_checkpoint saw %q, want %q", got, want)
	}
	if got, want := w.Read("engine.log"), "code-review "+child+" "+filepath.Join(child, "inputs.json")+" parent=auth iteration=4\n"; got != want {
		t.Errorf("engine ran as %q, want %q", got, want)
	}
	var inputs map[string]string
	if err := json.Unmarshal([]byte(w.Read(filepath.Join(run, "children", "checkpoint-4", "inputs.json"))), &inputs); err != nil ||
		inputs["files_changed"] != "auth.go" || inputs["session"] != "auth" {
		t.Errorf("inputs %v (%v)", inputs, err)
	}
	if got := w.Read(filepath.Join(run, "children", "checkpoint-4", "progress.md")); got != "- ran code-review\n" {
		t.Errorf("the child's progress %q", got)
	}
	var state map[string]any
	if err := json.Unmarshal([]byte(w.Read(filepath.Join(run, "state.json"))), &state); err != nil {
		t.Fatal(err)
	}
	if state["status"] != "running" || state["paused_at"] != float64(4) || state["child_completed"] != float64(4) ||
		state["child_session"] != child || state["iteration"] != float64(4) {
		t.Errorf("parent state %v", state)
	}
	d := cp.Hooks[0].Details
	if out, _ := d["output"].(map[string]any); out["issues"] != float64(2) || d["childDir"] != child {
		t.Errorf("details %v", d)
	}
	if vars, _ := cp.Set[hooks.KeyVars].(map[string]any); vars[pipelines.ChildOutputVar] != `{"issues": 2, "files": "auth.go"}` {
		t.Errorf("outputs %v", cp.Set)
	}
	// Not every iteration is a checkpoint.
	if res := w.Fire(hooks.PostIteration, "sessionName", "auth", "iteration", 5); res.Extra[pipelines.ExtraCheckpoint] != nil {
		t.Error("iteration 5 spawned")
	}
}

// TestSpawnHoldsTheCheckpoint: a child that fails, cannot run, or returns what is not JSON holds
// the checkpoint, with the reason; later hooks of the checkpoint do not run.
func TestSpawnHoldsTheCheckpoint(t *testing.T) {
	t.Parallel()
	if !hasJQ() {
		t.Skip("the stand-in engine needs jq")
	}
	for _, tt := range []struct {
		name, review string
		noEngine     bool
		data         []any
		want         string
	}{
		{name: "the child fails", review: "#!/bin/sh\necho 'review found 3 blockers' >&2\nexit 3\n",
			want: "child pipeline code-review failed (exit 3): review found 3 blockers"},
		{name: "output is not JSON", review: "#!/bin/sh\necho 'all good'\n", want: "child pipeline code-review: output.json is not JSON"},
		{name: "no engine", noEngine: true, want: "agent-pipelines' engine"},
		{name: "no iteration", review: "#!/bin/sh\necho '{}'\n", data: []any{"sessionName", "auth"}, want: "the checkpoint has no iteration"},
		{name: "a session that is a path", review: "#!/bin/sh\necho '{}'\n", data: []any{"sessionName", "../x", "iteration", 2},
			want: `the session name "../x" cannot name the session's directory`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := spawnWorkspace(t, tt.review)
			if tt.noEngine {
				w.Write("scripts/engine.sh", "", 0o644)
			}
			data := tt.data
			if data == nil {
				data = []any{"sessionName", "auth", "iteration", 2}
			}
			res := w.Fire(hooks.Checkpoint, data...)
			if !res.Blocked || !strings.Contains(res.Reason, tt.want) {
				t.Errorf("blocked %v, reason %q, want %q", res.Blocked, res.Reason, tt.want)
			}
			if got := seedtest.Statuses(res); len(got) != 1 {
				t.Errorf("ran %v after the spawn held the checkpoint", got)
			}
		})
	}
}

// TestSpawnIgnore: on_complete: ignore keeps the output in the child's directory and hands
// nothing on; checkpoints.spawn alone spawns (the production example has no hooks.on_checkpoint).
func TestSpawnIgnore(t *testing.T) {
	t.Parallel()
	if !hasJQ() {
		t.Skip("the stand-in engine needs jq")
	}
	w := spawnWorkspace(t, "#!/bin/sh\necho '{\"ok\": true}'\n")
	w.Write("loop.yaml", "checkpoints:\n  every: 2\n  spawn:\n    pipeline: code-review\n    on_complete: ignore\n", 0o644)
	res := w.Fire(hooks.Checkpoint, "sessionName", "auth", "iteration", 2)
	if res.Blocked || len(res.Hooks) != 1 || res.Set != nil {
		t.Errorf("result %+v", res)
	}
	if got := w.Read(".claude/pipeline-runs/auth/children/checkpoint-2/output.json"); got != "{\"ok\": true}\n" {
		t.Errorf("output.json %q", got)
	}
}

func hasJQ() bool {
	_, err := exec.LookPath("jq")
	return err == nil
}
