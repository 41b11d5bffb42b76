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

// upstream reads a file of hwells4/agent-pipelines (testdata/upstream): the real stage files of
// e995254, the loop.yaml files of 7f8c688, and the hooks plan's own examples.
func upstream(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "upstream", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUpstreamStageFiles: the engine's real stage.yaml files (and the older loop.yaml ones) load
// with no hooks and no diagnostics: every key of theirs belongs to the engine.
func TestUpstreamStageFiles(t *testing.T) {
	t.Parallel()
	for _, rel := range []string{
		"current/scripts/stages/ralph/stage.yaml",
		"current/scripts/stages/improve-plan/stage.yaml",
		"current/scripts/stages/elegance/stage.yaml",
		"legacy-loop-yaml/scripts/loops/work/loop.yaml",
		"legacy-loop-yaml/scripts/loops/improve-plan/loop.yaml",
	} {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			w := seedtest.New(t, []hooks.Format{pipelines.New()})
			w.Write(filepath.Base(rel), upstream(t, rel), 0o644)
			cfg, err := w.Load()
			if err != nil {
				t.Fatal(err)
			}
			if n := countHooks(cfg); n != 0 || len(cfg.Warnings) != 0 {
				t.Errorf("%d hooks, warnings %v", n, cfg.Warnings)
			}
		})
	}
}

// planWorkspace is a workspace with the plan's example stage hooks (plan-examples/
// stage-with-hooks.yaml) as file, and scripts/notify.sh logging its arguments.
func planWorkspace(t *testing.T, file string) *seedtest.Workspace {
	t.Helper()
	w := seedtest.New(t, []hooks.Format{pipelines.New()})
	w.Write(file, upstream(t, "plan-examples/stage-with-hooks.yaml"), 0o644)
	w.Write("scripts/notify.sh", "#!/bin/sh\necho \"$@\" >> notifications.log\n", 0o755)
	w.Write("scripts/backup-progress.sh", "#!/bin/sh\necho \"backup $1\" >> notifications.log\n", 0o755)
	return w
}

// TestSessionName: ${SESSION}, LOOP_SESSION and PIPELINE_SESSION are the loop's session name
// (agent-pipelines' `run.sh <stage> <session>`), given as sessionName; the id without one.
func TestSessionName(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"stage.yaml", "loop.yaml"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			w := planWorkspace(t, file)
			w.Fire("on_session_start", "sessionName", "auth")
			w.Fire("on_iteration_complete", "sessionName", "auth", "progressFile", "progress-auth.md")
			w.Fire("on_session_complete", "sessionName", "auth", "iteration", 5)
			w.Fire("on_error", "sessionName", "auth", "error", "disk full")
			w.Fire("on_session_start")
			want := "started auth\nbackup progress-auth.md\ncompleted auth 5\nfailed auth disk full\nstarted " + w.Session + "\n"
			if got := w.Read("notifications.log"); got != want {
				t.Errorf("notifications\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestPipelineEnv(t *testing.T) {
	t.Parallel()
	w := seedtest.New(t, []hooks.Format{pipelines.New()})
	w.Write("stage.yaml", "hooks:\n  on_iteration_start: env | grep -E '^(PIPELINE_|LOOP_SESSION|SESSION|SESSION_NAME|CLAUDE_PIPELINE_)' | sort\n", 0o644)
	res := w.Fire("on_iteration_start", "sessionName", "auth", "iteration", 2, "maxIterations", 5, "loopType", "work", "status", "running",
		"progressFile", "p.md", "stateFile", "state.json", "error", "none", "duration", 12500)
	want := strings.Join([]string{
		"CLAUDE_PIPELINE_SESSION=auth", "CLAUDE_PIPELINE_TYPE=work",
		"LOOP_SESSION=auth",
		"PIPELINE_DURATION=12.5", "PIPELINE_ERROR=none", "PIPELINE_ITERATION=2", "PIPELINE_MAX_ITERATIONS=5", "PIPELINE_PROGRESS_FILE=p.md",
		"PIPELINE_SESSION=auth", "PIPELINE_STATE_FILE=state.json", "PIPELINE_STATUS=running", "PIPELINE_TYPE=work",
		"SESSION=auth", "SESSION_NAME=auth",
	}, "\n") + "\n"
	if len(res.Hooks) != 1 {
		t.Fatalf("hooks %v", seedtest.Statuses(res))
	}
	if got := res.Hooks[0].Stdout; got != want {
		t.Errorf("env:\n%s\nwant:\n%s", got, want)
	}
}

// TestStageAndLoopYAML: stage.yaml is the current name; with both, stage.yaml is read and
// loop.yaml is reported as ignored.
func TestStageAndLoopYAML(t *testing.T) {
	t.Parallel()
	w := planWorkspace(t, "stage.yaml")
	w.Write("loop.yaml", "hooks:\n  on_session_start: echo old\n", 0o644)
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	if n := countHooks(cfg); n != 4 {
		t.Errorf("%d hooks, want stage.yaml's 4", n)
	}
	if len(cfg.Warnings) != 1 || cfg.Warnings[0].File != filepath.Join(w.Dir, "loop.yaml") || !strings.Contains(cfg.Warnings[0].Message, "stage.yaml") {
		t.Errorf("warnings %v", cfg.Warnings)
	}
	if got := w.Fire("on_session_start", "sessionName", "s").Hooks[0].Stdout; got != "" || w.Read("notifications.log") != "started s\n" {
		t.Errorf("ran loop.yaml's hook: %q", got)
	}
}

// TestPlanGlobalHooks runs the plan's global hooks.sh example: on_session_complete posts to
// Slack with curl (a local server here), on_error calls osascript (a stand-in on PATH here).
func TestPlanGlobalHooks(t *testing.T) {
	t.Parallel()
	posted := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		posted <- string(b)
	}))
	defer srv.Close()
	w := planWorkspace(t, "stage.yaml")
	xdg := filepath.Join(w.Home, "xdg")
	w.Env["XDG_CONFIG_HOME"] = xdg
	w.Write("~/xdg/agent-pipelines/hooks.sh", upstream(t, "plan-examples/global-hooks.sh"), 0o644)
	bin := filepath.Dir(w.Write("~/bin/osascript", "#!/bin/sh\necho \"$@\" >> \"$HOME/osascript.log\"\n", 0o755))
	w.Env["SLACK_WEBHOOK"] = srv.URL
	w.Env["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")

	res := w.Fire(hooks.SessionEnd, "sessionName", "auth", "status", "completed", "iteration", 7)
	if got, want := seedtest.Statuses(res), []string{"on_session_complete=ok", "global on_session_complete=ok"}; !slices.Equal(got, want) {
		t.Fatalf("ran %v", got)
	}
	if got := <-posted; got != `{"text": "Loop auth completed after 7 iterations"}` {
		t.Errorf("slack got %q", got)
	}
	w.Fire(hooks.Error, "sessionName", "auth", "error", "tests failed")
	b, err := os.ReadFile(filepath.Join(w.Home, "osascript.log"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "-e display notification \"Loop auth failed: tests failed\" with title \"Loop Error\"\n" {
		t.Errorf("osascript got %q", got)
	}
}

// TestDisableGlobalValues: hooks.disable_global as agent-pipelines' reader (yaml_to_json, then
// jq's `// empty` = "true") decides it: PyYAML's booleans and the quoted text "true".
func TestDisableGlobalValues(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		value    string
		disabled bool
	}{
		{"true", true}, {`"true"`, true}, {"True", true}, {"yes", true},
		{"false", false}, {`"false"`, false}, {"", false}, {"~", false},
	} {
		w := seedtest.New(t, []hooks.Format{pipelines.New()})
		w.Write("stage.yaml", "hooks:\n  disable_global: "+tt.value+"\n", 0o644)
		w.Write("~/.config/agent-pipelines/hooks.sh", "on_session_start() { :; }\n", 0o644)
		cfg, err := w.Load()
		if err != nil {
			t.Errorf("disable_global: %s: %v", tt.value, err)
			continue
		}
		if got := len(cfg.Hooks[hooks.SessionStart]) == 0; got != tt.disabled {
			t.Errorf("disable_global: %s: disabled %v, want %v", tt.value, got, tt.disabled)
		}
	}
}

// TestFalseHookIsNoHook: `on_error: false` reads as no hook in agent-pipelines (jq's `//` drops
// false), and so does null.
func TestFalseHookIsNoHook(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"false", "~", "null"} {
		w := seedtest.New(t, []hooks.Format{pipelines.New()})
		w.Write("stage.yaml", "hooks:\n  on_error: "+v+"\n", 0o644)
		cfg, err := w.Load()
		if err != nil {
			t.Fatal(err)
		}
		if n := countHooks(cfg); n != 0 {
			t.Errorf("on_error: %s: %d hooks", v, n)
		}
	}
}

func countHooks(cfg *hooks.Config) int {
	n := 0
	for _, hs := range cfg.Hooks {
		n += len(hs)
	}
	return n
}
