package fresher_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/fresher"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

// newWorkspace is a workspace with fresher's own hook templates (testdata/, from the seed
// document) installed executable.
func newWorkspace(t *testing.T) *seedtest.Workspace {
	t.Helper()
	w := seedtest.New(t, []hooks.Format{fresher.New()})
	for _, name := range []string{"started", "next_iteration", "finished"} {
		w.Write(".fresher/hooks/"+name, seedFile(t, name), 0o755)
	}
	w.Write(".fresher/hooks/custom/notify-slack", seedFile(t, "notify-slack"), 0o755)
	return w
}

func seedFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLoadSeedHooks(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	for event, name := range map[string]string{hooks.SessionStart: "started", hooks.PreIteration: "next_iteration", hooks.SessionEnd: "finished"} {
		hs := cfg.Hooks[event]
		if len(hs) != 1 {
			t.Fatalf("%s: got %d hooks, want 1", event, len(hs))
		}
		h := hs[0]
		if h.Name != name || h.Source.Format != "fresher" || h.Source.Scope != "project" || h.Timeout != 30*time.Second || h.Blocking || !h.Enabled {
			t.Errorf("%s: got %+v", event, h)
		}
		if want := filepath.Join(w.Dir, ".fresher", "hooks", name); h.Source.File != want {
			t.Errorf("%s: source %s, want %s", event, h.Source.File, want)
		}
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %v", cfg.Warnings)
	}
}

func TestStartedTemplate(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)

	w.Env["FRESHER_MODE"] = "planning" // mode from the environment
	res := w.Fire("started", "maxIterations", 5)
	if res.Blocked || len(res.Hooks) != 1 {
		t.Fatalf("planning: got %+v", res)
	}
	out := res.Hooks[0].Stdout
	for _, want := range []string{"Starting Fresher loop in planning mode", "Project: " + w.Dir, "Max iterations: 5"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout %q lacks %q", out, want)
		}
	}

	// building without a plan: the template aborts (exit 2), a block ending the loop as manual.
	res = w.Fire(hooks.SessionStart, "mode", "building")
	if !res.Blocked || res.Decision != hooks.DecisionBlock {
		t.Fatalf("building: got decision %q blocked %v", res.Decision, res.Blocked)
	}
	if !strings.Contains(res.Reason, "No IMPLEMENTATION_PLAN.md found") || res.Hooks[0].ExitCode != 2 {
		t.Errorf("reason %q, exit %d", res.Reason, res.Hooks[0].ExitCode)
	}
	if got := res.Set["finishType"]; got != fresher.FinishAbort {
		t.Errorf("finishType = %v, want manual", got)
	}

	// The finished hook of the same session is told the loop was stopped (fresher v2: manual).
	res = w.Fire("finished")
	if out := res.Hooks[0].Stdout; !strings.Contains(out, "Finish type: manual") {
		t.Errorf("finished stdout %q lacks the finish type", out)
	}
}

func TestNextIterationSkips(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Env["FRESHER_MODE"] = "building"

	// No plan, so no pending task (the template's grep finds none): exit 1, which on
	// next_iteration is a skip.
	res := w.Fire("next_iteration", "iteration", 2, "lastExitCode", 0, "lastDuration", 41, "commitsMade", 3)
	if res.Decision != hooks.DecisionSkip || res.Blocked {
		t.Fatalf("got decision %q blocked %v, want skip", res.Decision, res.Blocked)
	}
	out := res.Hooks[0].Stdout
	for _, want := range []string{"Starting iteration 2", "Previous iteration: exit=0, duration=41s", "Commits so far: 3", "No pending tasks"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout %q lacks %q", out, want)
		}
	}

	w.Write("IMPLEMENTATION_PLAN.md", "- [ ] to do\n", 0o644)
	if res := w.Fire(hooks.PreIteration, "iteration", 3); res.Decision != hooks.DecisionApprove {
		t.Errorf("pending task: decision %q, want approve", res.Decision)
	}
}

func TestFinishedCallsCustomHook(t *testing.T) {
	t.Parallel()
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r.Header.Get("Content-Type") + " " + string(b)
	}))
	defer srv.Close()

	w := newWorkspace(t)
	w.Env["FRESHER_SLACK_WEBHOOK"] = srv.URL
	res := w.Fire(hooks.SessionEnd, "finishType", "complete", "iteration", 7, "commitsMade", 4, "duration", 120000)
	if res.Hooks[0].Status != hooks.StatusOK {
		t.Fatalf("finished: %+v", res.Hooks[0])
	}
	out := res.Hooks[0].Stdout
	for _, want := range []string{"Finish type: complete", "Total iterations: 7", "Total commits: 4", "Duration: 120s", "All tasks completed successfully!"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout %q lacks %q", out, want)
		}
	}
	select {
	case body := <-got:
		if want := `application/json {"text": "Build completed: 4 commits"}`; body != want {
			t.Errorf("webhook got %q, want %q", body, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("custom/notify-slack did not post")
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event, hook string
		exit        string
		status      hooks.Status
		decision    string
	}{
		{hooks.SessionStart, "started", "exit 0", hooks.StatusOK, hooks.DecisionApprove},
		{hooks.SessionStart, "started", "exit 1", hooks.StatusOK, hooks.DecisionApprove}, // only next_iteration skips
		{hooks.PreIteration, "next_iteration", "exit 1", hooks.StatusOK, hooks.DecisionSkip},
		{hooks.PreIteration, "next_iteration", "exit 2", hooks.StatusBlocked, hooks.DecisionBlock},
		{hooks.SessionStart, "started", "exit 3", hooks.StatusError, hooks.DecisionApprove},
		{hooks.SessionStart, "started", "exit 124", hooks.StatusError, hooks.DecisionApprove}, // no meaning in fresher v2
		{hooks.SessionEnd, "finished", "exit 2", hooks.StatusOK, hooks.DecisionApprove},       // finished ignores an abort
	}
	for _, tt := range tests {
		t.Run(tt.hook+"/"+tt.exit, func(t *testing.T) {
			t.Parallel()
			w := seedtest.New(t, []hooks.Format{fresher.New()})
			w.Write(".fresher/hooks/"+tt.hook, "#!/bin/sh\necho out\n"+tt.exit+"\n", 0o755)
			res := w.Fire(tt.event)
			if got := res.Hooks[0].Status; got != tt.status {
				t.Errorf("status %s, want %s", got, tt.status)
			}
			if res.Decision != tt.decision {
				t.Errorf("decision %s, want %s", res.Decision, tt.decision)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	w := seedtest.New(t, []hooks.Format{fresher.New()})
	w.Write(".fresher/hooks/started", "#!/bin/sh\nsleep 30\n", 0o755)
	w.Env["FRESHER_HOOK_TIMEOUT"] = "1"
	res := w.Fire(hooks.SessionStart)
	if h := res.Hooks[0]; h.Status != hooks.StatusTimeout || !strings.Contains(h.Reason, "timed out after 1s") {
		t.Errorf("got %s %q, want a timeout after 1s", h.Status, h.Reason)
	}
	if res.Blocked {
		t.Error("a timeout blocked the event; fresher logs it and continues")
	}
}

func TestEnableSwitches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env     map[string]string
		skipped []string
	}{
		{nil, nil},
		{map[string]string{"FRESHER_HOOKS_ENABLED": "false"}, []string{"started", "next_iteration", "finished"}},
		{map[string]string{"FRESHER_HOOK_NEXT_ITERATION_ENABLED": "false"}, []string{"next_iteration"}},
		{map[string]string{"FRESHER_HOOK_FINISHED_ENABLED": "false", "FRESHER_HOOK_STARTED_ENABLED": "true"}, []string{"finished"}},
	}
	for _, tt := range tests {
		w := seedtest.New(t, []hooks.Format{fresher.New()})
		for _, name := range []string{"started", "next_iteration", "finished"} {
			w.Write(".fresher/hooks/"+name, "#!/bin/sh\ntouch ran-"+name+"\n", 0o755)
		}
		w.Env = tt.env
		var skipped []string
		for _, ev := range []string{"started", "next_iteration", "finished"} {
			res := w.Fire(ev)
			h := res.Hooks[0]
			if h.Status == hooks.StatusSkipped {
				skipped = append(skipped, h.Name)
			}
			if ran := fileExists(filepath.Join(w.Dir, "ran-"+h.Name)); ran == (h.Status == hooks.StatusSkipped) {
				t.Errorf("%v: %s status %s but ran=%v", tt.env, h.Name, h.Status, ran)
			}
		}
		if !slices.Equal(skipped, tt.skipped) {
			t.Errorf("%v: skipped %v, want %v", tt.env, skipped, tt.skipped)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	w := seedtest.New(t, []hooks.Format{fresher.New()})
	w.Write(".fresher/hooks/started", "#!/bin/sh\necho hi\n", 0o644)        // not executable
	w.Write(".fresher/hooks/next-iteration", "#!/bin/sh\necho hi\n", 0o755) // typo
	w.Write(".fresher/hooks/README.md", "hooks live here\n", 0o644)         // left alone
	w.Write(".fresher/hooks/custom/notify", "#!/bin/sh\n", 0o644)           // custom, not executable
	w.Write(".fresher/hooks/finished", "#!/bin/sh\necho bye\n", 0o755)
	cfg, err := w.Load()
	if err != nil {
		t.Fatalf("a warning must not fail loading: %v", err)
	}
	if n := len(cfg.Hooks[hooks.SessionStart]); n != 0 {
		t.Errorf("non-executable started was loaded (%d hooks)", n)
	}
	if n := len(cfg.Hooks[hooks.SessionEnd]); n != 1 {
		t.Errorf("finished: %d hooks, want 1", n)
	}
	var got []string
	for _, d := range cfg.Warnings {
		got = append(got, filepath.Base(d.File)+": "+d.Message)
	}
	want := []string{
		"started: hook started exists but is not executable",
		`next-iteration: unknown fresher hook point "next-iteration"; did you mean "next_iteration"?`,
		"notify: custom hook notify is not executable",
	}
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %d", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %d: %q, want prefix %q", i, got[i], want[i])
		}
	}
	// Running the non-executable hook's event runs nothing and is not an error.
	if res := w.Fire("started"); len(res.Hooks) != 0 || res.Blocked {
		t.Errorf("started: %+v", res)
	}
}

func TestFresherEnv(t *testing.T) {
	t.Parallel()
	w := seedtest.New(t, []hooks.Format{fresher.New()})
	w.Write(".fresher/hooks/started", "#!/bin/sh\nenv | grep ^FRESHER_ | sort\n", 0o755)
	w.Write(".fresher/hooks/next_iteration", "#!/bin/sh\nenv | grep ^FRESHER_ | sort\n", 0o755)
	w.Env["FRESHER_MODE"] = "building"
	start := w.Fire(hooks.SessionStart, "maxIterations", 10).Hooks[0].Stdout
	next := w.Fire(hooks.PreIteration, "iteration", 2, "maxIterations", 10, "mode", "planning").Hooks[0].Stdout

	for _, want := range []string{"FRESHER_MODE=building", "FRESHER_MAX_ITERATIONS=10", "FRESHER_PROJECT_DIR=" + w.Dir,
		"FRESHER_LOG_DIR=" + filepath.Join(w.Dir, ".fresher", "logs"), "FRESHER_HOOK_TIMEOUT=30", "FRESHER_STARTED_AT=20"} {
		if !strings.Contains(start, want) {
			t.Errorf("started env lacks %s:\n%s", want, start)
		}
	}
	// The payload's mode wins over the environment; the start time carries over.
	startedAt := line(start, "FRESHER_STARTED_AT=")
	for _, want := range []string{"FRESHER_MODE=planning", "FRESHER_ITERATION=2", startedAt} {
		if !strings.Contains(next, want) {
			t.Errorf("next_iteration env lacks %s:\n%s", want, next)
		}
	}
}

func line(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return prefix + "<missing>"
}

// TestExampleWorkspace keeps the README's example (testdata/fresher-example) working.
func TestExampleWorkspace(t *testing.T) {
	t.Parallel()
	w := seedtest.New(t, []hooks.Format{fresher.New()})
	w.UseExample("fresher-example")
	w.Env["FRESHER_MODE"] = "building"
	cfg, err := w.Load()
	if err != nil || len(cfg.Warnings) != 0 {
		t.Fatalf("load: %v %v", err, cfg.Warnings)
	}
	res := w.Fire("next_iteration", "iteration", 1)
	if res.Decision != hooks.DecisionApprove || !strings.Contains(res.Hooks[0].Stdout, "Starting iteration 1") {
		t.Errorf("next_iteration with pending tasks: %s %q", res.Decision, res.Hooks[0].Stdout)
	}
}

func BenchmarkLoad(b *testing.B) {
	w := seedtest.New(b, []hooks.Format{fresher.New()})
	w.UseExample("fresher-example")
	seedtest.BenchLoad(b, w)
}
