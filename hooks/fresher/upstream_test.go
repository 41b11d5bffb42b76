package fresher_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/fresher"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

// hooksTOML is a config.toml as `fresher init` writes it (shanewwarren/fresher@05b98c3,
// src/templates.rs CONFIG_TEMPLATE) with its [hooks] table replaced.
func hooksTOML(t *testing.T, hooksTable string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "upstream", ".fresher", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "[hooks]\n")
	j := strings.Index(s, "[docker]\n")
	return s[:i] + hooksTable + "\n" + s[j:]
}

// upstreamHook is a workspace with one fresher hook written as tests/hooks.rs does, and
// config.toml's [hooks] table.
func upstreamHook(t *testing.T, name, script, hooksTable string) *seedtest.Workspace {
	t.Helper()
	w := seedtest.New(t, []hooks.Format{fresher.New()})
	w.Write(".fresher/hooks/"+name, "#!/bin/bash\n"+script+"\n", 0o755)
	if hooksTable != "" {
		w.Write(".fresher/config.toml", hooksTOML(t, hooksTable), 0o644)
	}
	return w
}

var hookEvents = map[string]string{"started": hooks.SessionStart, "next_iteration": hooks.PreIteration, "finished": hooks.SessionEnd}

// TestUpstreamHookTests ports fresher's tests/hooks.rs and src/hooks.rs tests: each hook's result
// as run_hook and the per-point functions decide it.
func TestUpstreamHookTests(t *testing.T) {
	t.Parallel()
	const on = "[hooks]\nenabled = true\ntimeout = 30"
	tests := []struct {
		name, hook, script, table string
		data                      []any
		status                    hooks.Status // "" : the hook does not run at all
		decision                  string
		reason                    string // in the hook's reason
	}{
		{"test_hook_exit_code_continue", "started", "exit 0", on, nil, hooks.StatusOK, hooks.DecisionApprove, ""},
		{"test_hook_exit_code_skip", "next_iteration", "exit 1", on, nil, hooks.StatusOK, hooks.DecisionSkip, ""},
		{"test_hook_exit_code_abort", "next_iteration", "exit 2", on, nil, hooks.StatusBlocked, hooks.DecisionBlock, ""},
		{"test_hook_invalid_exit_code", "started", "exit 99", on, nil, hooks.StatusError, hooks.DecisionApprove, "99"},
		{"test_hook_timeout", "started", "sleep 10\nexit 0", "[hooks]\nenabled = true\ntimeout = 1", nil, hooks.StatusTimeout, hooks.DecisionApprove, "timed out after 1s"},
		{"test_hooks_disabled", "started", "exit 0", "[hooks]\nenabled = false\ntimeout = 30", nil, hooks.StatusSkipped, hooks.DecisionApprove, ""},
		{"test_started_hook_abort", "started", "exit 2", on, nil, hooks.StatusBlocked, hooks.DecisionBlock, ""},
		{"test_finished_hook", "finished", "exit 0", on, nil, hooks.StatusOK, hooks.DecisionApprove, ""},
		// started and finished ignore a skip; finished ignores an abort too.
		{"started_skip_ignored", "started", "exit 1", on, nil, hooks.StatusOK, hooks.DecisionApprove, ""},
		{"finished_abort_ignored", "finished", "exit 2", on, nil, hooks.StatusOK, hooks.DecisionApprove, ""},
		// v2 gives 124 no meaning: an error, not a timeout.
		{"exit_124_is_an_error", "started", "exit 124", on, nil, hooks.StatusError, hooks.DecisionApprove, "exit code 124"},
		{"test_hooks_receive_env_vars", "next_iteration", `[ "$FRESHER_ITERATION" = 5 ] && [ "$FRESHER_TOTAL_COMMITS" = 10 ] || exit 99`, on,
			[]any{"iteration", 5, "totalCommits", 10}, hooks.StatusOK, hooks.DecisionApprove, ""},
		{"test_hooks_receive_mode", "started", `[ "$FRESHER_MODE" = building ] || exit 99`, on, []any{"mode", "building"}, hooks.StatusOK, hooks.DecisionApprove, ""},
		{"test_hooks_receive_project_dir", "started", `[ -n "$FRESHER_PROJECT_DIR" ] || exit 99`, on, nil, hooks.StatusOK, hooks.DecisionApprove, ""},
		{"test_run_hook_env_vars", "started", `[ "$FRESHER_ITERATION" = 5 ] && [ "$FRESHER_LAST_EXIT_CODE" = 0 ] && [ "$FRESHER_MODE" = building ] || exit 99`, on,
			[]any{"iteration", 5, "lastExitCode", 0, "mode", "building"}, hooks.StatusOK, hooks.DecisionApprove, ""},
		// fresher always sets these (0 before the first iteration): a hook under set -u runs.
		{"always_set_under_set_u", "started", `set -u; echo "$FRESHER_ITERATION $FRESHER_LAST_EXIT_CODE $FRESHER_TOTAL_COMMITS $FRESHER_DURATION $FRESHER_TOTAL_ITERATIONS $FRESHER_MODE"; [ "$FRESHER_ITERATION$FRESHER_TOTAL_ITERATIONS" = 00 ] || exit 99`, on,
			nil, hooks.StatusOK, hooks.DecisionApprove, ""},
		// the default mode is config.toml's [fresher] mode
		{"mode_from_config_toml", "started", `[ "$FRESHER_MODE" = planning ] || exit 99`, on, nil, hooks.StatusOK, hooks.DecisionApprove, ""},
		{"duration_whole_seconds", "finished", `[ "$FRESHER_DURATION" = 1 ] || exit 99`, on, []any{"duration", 1500}, hooks.StatusOK, hooks.DecisionApprove, ""},
		{"last_commit_sha", "finished", `[ "$FRESHER_LAST_COMMIT_SHA" = abc123 ] || exit 99`, on, []any{"commitSha", "abc123"}, hooks.StatusOK, hooks.DecisionApprove, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := upstreamHook(t, tt.hook, tt.script, tt.table)
			res := w.Fire(hookEvents[tt.hook], tt.data...)
			if len(res.Hooks) != 1 {
				t.Fatalf("hooks %v", seedtest.Statuses(res))
			}
			h := res.Hooks[0]
			if h.Status != tt.status || res.Decision != tt.decision || !strings.Contains(h.Reason, tt.reason) {
				t.Errorf("got %s %s %q, want %s %s %q (stdout %q)", h.Status, res.Decision, h.Reason, tt.status, tt.decision, tt.reason, h.Stdout)
			}
			if tt.status == hooks.StatusOK && len(res.Warnings) != 0 {
				t.Errorf("warnings %q", res.Warnings)
			}
		})
	}
}

// TestUpstreamNotRun: test_hook_not_found and test_hook_not_executable — nothing runs.
func TestUpstreamNotRun(t *testing.T) {
	t.Parallel()
	w := upstreamHook(t, "started", "exit 2", "[hooks]\nenabled = true\ntimeout = 30")
	if err := os.Chmod(filepath.Join(w.Dir, ".fresher/hooks/started"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := w.Fire(hooks.SessionStart); len(res.Hooks) != 0 || res.Blocked {
		t.Errorf("not executable: %v", seedtest.Statuses(res))
	}
	if res := w.Fire(hooks.PreIteration); len(res.Hooks) != 0 {
		t.Errorf("not found: %v", seedtest.Statuses(res))
	}
}

// TestConfigHooks ports config.rs's test_default_config and test_env_override_hooks, and what
// apply_env_overrides does with other values: FRESHER_HOOKS_ENABLED enables only when it
// lowercases to "true"; FRESHER_HOOK_TIMEOUT is a u32 or ignored (the file's value stays).
func TestConfigHooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		table   string // "" : no config.toml
		env     map[string]string
		enabled bool
		timeout time.Duration
	}{
		{"test_default_config", "", nil, true, 30 * time.Second},
		{"init_template", "[hooks]\nenabled = true\ntimeout = 30", nil, true, 30 * time.Second},
		{"file_values", "[hooks]\nenabled = true\ntimeout = 5", nil, true, 5 * time.Second},
		{"file_disabled", "[hooks]\nenabled = false\ntimeout = 30", nil, false, 30 * time.Second},
		{"test_env_override_hooks", "[hooks]\nenabled = true\ntimeout = 30", map[string]string{"FRESHER_HOOKS_ENABLED": "false", "FRESHER_HOOK_TIMEOUT": "60"}, false, 60 * time.Second},
		{"enabled_TRUE", "[hooks]\nenabled = false\ntimeout = 30", map[string]string{"FRESHER_HOOKS_ENABLED": "TRUE"}, true, 30 * time.Second},
		{"enabled_1", "", map[string]string{"FRESHER_HOOKS_ENABLED": "1"}, false, 30 * time.Second},
		{"enabled_yes", "", map[string]string{"FRESHER_HOOKS_ENABLED": "yes"}, false, 30 * time.Second},
		{"enabled_space_true", "", map[string]string{"FRESHER_HOOKS_ENABLED": " true"}, false, 30 * time.Second},
		{"timeout_plus", "[hooks]\nenabled = true\ntimeout = 5", map[string]string{"FRESHER_HOOK_TIMEOUT": "+60"}, true, 60 * time.Second},
		{"timeout_space_ignored", "[hooks]\nenabled = true\ntimeout = 5", map[string]string{"FRESHER_HOOK_TIMEOUT": " 60"}, true, 5 * time.Second},
		{"timeout_fraction_ignored", "[hooks]\nenabled = true\ntimeout = 5", map[string]string{"FRESHER_HOOK_TIMEOUT": "1.5"}, true, 5 * time.Second},
		{"timeout_negative_ignored", "[hooks]\nenabled = true\ntimeout = 5", map[string]string{"FRESHER_HOOK_TIMEOUT": "-1"}, true, 5 * time.Second},
		{"timeout_too_big_ignored", "[hooks]\nenabled = true\ntimeout = 5", map[string]string{"FRESHER_HOOK_TIMEOUT": "4294967296"}, true, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := upstreamHook(t, "started", "exit 0", tt.table)
			for k, v := range tt.env {
				w.Env[k] = v
			}
			cfg, err := w.Load()
			if err != nil {
				t.Fatal(err)
			}
			h := cfg.Hooks[hooks.SessionStart][0]
			if h.Enabled != tt.enabled || h.Timeout != tt.timeout {
				t.Errorf("enabled %v timeout %s, want %v %s", h.Enabled, h.Timeout, tt.enabled, tt.timeout)
			}
		})
	}
}

// TestConfigRefused: a config.toml fresher refuses to start with is an error naming the file and
// position, and nothing runs.
func TestConfigRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, table string
		pos         string // file:line:col, relative to the workspace
		msg         string
	}{
		{"enabled_string", "[hooks]\nenabled = \"true\"\ntimeout = 30", ".fresher/config.toml:24:", "[hooks] enabled"},
		{"timeout_string", "[hooks]\nenabled = true\ntimeout = \"30\"", ".fresher/config.toml:25:", "[hooks] timeout"},
		{"timeout_negative", "[hooks]\nenabled = true\ntimeout = -1", ".fresher/config.toml:25:", "[hooks] timeout"},
		{"timeout_fraction", "[hooks]\nenabled = true\ntimeout = 1.5", ".fresher/config.toml:25:", "[hooks] timeout"},
		{"no_timeout", "[hooks]\nenabled = true", ".fresher/config.toml", "timeout"},
		{"no_hooks_table", "", ".fresher/config.toml", "[hooks]"},
		{"syntax", "[hooks]\nenabled = true\ntimeout = 30 30", ".fresher/config.toml:25:", "invalid TOML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := upstreamHook(t, "started", "touch ran", "[hooks]\nenabled = true\ntimeout = 30")
			w.Write(".fresher/config.toml", hooksTOML(t, tt.table), 0o644)
			_, err := w.Load()
			if err == nil {
				t.Fatal("loaded")
			}
			if want := filepath.Join(w.Dir, tt.pos); !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q\nwant %s… %s", err, want, tt.msg)
			}
		})
	}
}

// TestAbortThenFinished: next_iteration's abort ends the loop as fresher's set_finish(Manual) does,
// so the finished hook sees FRESHER_FINISH_TYPE=manual.
func TestAbortThenFinished(t *testing.T) {
	t.Parallel()
	w := upstreamHook(t, "next_iteration", "exit 2", "")
	w.Write(".fresher/hooks/finished", "#!/bin/bash\necho \"finish=$FRESHER_FINISH_TYPE\"\n", 0o755)
	if res := w.Fire(hooks.PreIteration, "iteration", 1); !res.Blocked {
		t.Fatalf("abort did not block: %v", seedtest.Statuses(res))
	}
	if got := w.Fire(hooks.SessionEnd).Hooks[0].Stdout; got != "finish=manual\n" {
		t.Errorf("finished: %q", got)
	}
}

// TestInitTemplates runs the hooks `fresher init` writes (src/templates.rs) under the config it
// writes: a loop of started, two iterations and finished.
func TestInitTemplates(t *testing.T) {
	t.Parallel()
	w := seedtest.New(t, []hooks.Format{fresher.New()})
	for _, name := range []string{"started", "next_iteration", "finished", "../config.toml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "upstream", ".fresher", "hooks", name))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(filepath.Join(".fresher", "hooks", name), string(b), 0o755)
	}
	cfg, err := w.Load()
	if err != nil || len(cfg.Warnings) != 0 {
		t.Fatalf("load: %v %v", err, cfg.Warnings)
	}
	var out []string
	for _, f := range []struct {
		event string
		data  []any
	}{
		{"started", nil},
		{"next_iteration", []any{"iteration", 1}},
		{"next_iteration", []any{"iteration", 2}},
		{"finished", []any{"iteration", 2, "totalCommits", 3, "durationSeconds", 95, "finishType", "max_iterations"}},
	} {
		res := w.Fire(f.event, f.data...)
		if len(res.Hooks) != 1 || res.Hooks[0].Status != hooks.StatusOK || res.Blocked {
			t.Fatalf("%s: %+v", f.event, res.Hooks)
		}
		out = append(out, res.Hooks[0].Stdout)
	}
	want := "Fresher loop starting...\n" +
		"Starting iteration 1...\n" +
		"Starting iteration 2...\n" +
		"Fresher loop finished\n  Iterations: 2\n  Commits: 3\n  Duration: 95s\n  Finish type: max_iterations\n"
	if got := strings.Join(out, ""); got != want {
		t.Errorf("output\n%s\nwant\n%s", got, want)
	}
}

// TestTimeoutWarnings: an unusable FRESHER_HOOK_TIMEOUT and a timeout of 0 are warnings about
// .fresher (there may be no config.toml to point at).
func TestTimeoutWarnings(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]string{" 60": `FRESHER_HOOK_TIMEOUT=" 60" is not a whole number of seconds`, "0": "a hook timeout of 0"} {
		w := upstreamHook(t, "started", "exit 0", "")
		w.Env["FRESHER_HOOK_TIMEOUT"] = env
		cfg, err := w.Load()
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Warnings) != 1 || cfg.Warnings[0].File != filepath.Join(w.Dir, ".fresher") || !strings.Contains(cfg.Warnings[0].Message, want) {
			t.Errorf("FRESHER_HOOK_TIMEOUT=%q: warnings %v", env, cfg.Warnings)
		}
		if got := cfg.Hooks[hooks.SessionStart][0].Timeout; got != 30*time.Second {
			t.Errorf("FRESHER_HOOK_TIMEOUT=%q: timeout %s", env, got)
		}
	}
}
