package babysitter_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/babysitter"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

// upstreamPlugin is babysitter's plugins/babysitter as of 2026-01-29 (a5c-ai/babysitter@48cb957):
// both dispatchers and every shipped hook, all mode 644 in git.
var upstreamPlugin = filepath.Join("testdata", "upstream", "plugins")

// copyPlugin copies the upstream plugin tree into w's workspace, every file with mode.
func copyPlugin(t *testing.T, w *seedtest.Workspace, mode os.FileMode) {
	t.Helper()
	err := filepath.WalkDir(upstreamPlugin, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(upstreamPlugin), path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		w.Write(rel, string(b), mode)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// logName is a hook that appends its own file name to $LOG. It reads its stdin: under the
// dispatcher's pipefail, a hook that exits before `echo "$HOOK_PAYLOAD"` has written fails with
// 141 (SIGPIPE) now and then.
const logName = "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' \"${0##*/}\" >> \"$LOG\"\n"

// summaryLine is the dispatcher's summary line of one hook (what the SDK parses executedHooks from).
var summaryLine = regexp.MustCompile(`(?m)^(per-repo|per-user|plugin):([^:\n]+):([^:\n]+)(?::(\d+))?$`)

// TestDispatcherParity runs the real hook-dispatcher.sh and agent-hooks on the same tree and
// compares what ran, in which order, and the executedHooks the SDK would report.
func TestDispatcherParity(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	for _, tc := range []struct {
		name string
		xdg  bool // XDG_CONFIG_HOME set (else empty: $HOME/.config)
	}{{"xdg", true}, {"xdg-empty", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t)
			copyPlugin(t, w, 0o644)
			w.Write("plugins/babysitter/hooks/on-run-start/p.sh", logName, 0o755)
			for _, n := range []string{".hidden.sh", "10-x.sh", "9-x.sh", "B.sh", "_u.sh", "b.sh"} {
				w.Write(".a5c/hooks/on-run-start/"+n, logName, 0o755)
			}
			w.Write(".a5c/hooks/on-run-start/a.sh", logName+"exit 3\n", 0o755)
			w.Write(".a5c/hooks/on-run-start/c.sh", logName, 0o644)
			w.Write(".a5c/hooks/on-run-start/noext", logName, 0o755)
			w.Write(".a5c/hooks/on-run-start/x.sh.example", logName, 0o755)
			target := w.Write("elsewhere/target.sh", logName, 0o755)
			if err := os.Symlink(target, filepath.Join(w.Dir, ".a5c/hooks/on-run-start/link.sh")); err != nil {
				t.Fatal(err)
			}
			xdg := ""
			if tc.xdg {
				xdg = filepath.Join(filepath.Dir(w.Home), "xdg")
				w.Write("../xdg/babysitter/hooks/on-run-start/u.sh", logName, 0o755)
			} else {
				w.Write("~/.config/babysitter/hooks/on-run-start/h.sh", logName, 0o755)
			}

			// upstream
			upLog := filepath.Join(t.TempDir(), "upstream.log")
			cmd := exec.Command("bash", filepath.Join(w.Dir, "plugins/babysitter/hooks/hook-dispatcher.sh"), "on-run-start")
			cmd.Dir = w.Dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.Home, "XDG_CONFIG_HOME=" + xdg, "LOG=" + upLog, "LC_ALL=C"}
			cmd.Stdin = strings.NewReader(`{"runId":"run-1"}`)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("hook-dispatcher.sh: %v\n%s", err, stderr.String())
			}
			wantSummary := summaryLine.FindAllString(stderr.String(), -1)

			// agent-hooks
			ourLog := filepath.Join(t.TempDir(), "ours.log")
			w.Env["LOG"], w.Env["XDG_CONFIG_HOME"] = ourLog, xdg
			res := w.Fire("on-run-start", "runId", "run-1")
			var gotSummary []string
			for _, e := range executedHooks(t, res) {
				line := fmt.Sprintf("%v:%v:%v", e["hookLocation"], e["hookName"], e["status"])
				if c, ok := e["exitCode"]; ok {
					line += ":" + jsonText(t, c)
				}
				gotSummary = append(gotSummary, line)
			}
			if !slices.Equal(gotSummary, wantSummary) {
				t.Errorf("executedHooks\n%q\nhook-dispatcher.sh's summary\n%q", gotSummary, wantSummary)
			}
			if got, want := read(t, ourLog), read(t, upLog); got != want {
				t.Errorf("ran\n%s\nhook-dispatcher.sh ran\n%s", got, want)
			}
			if res.Blocked {
				t.Error("a failed hook blocked the event")
			}
		})
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// executedHooks is the result's executedHooks as a program reading --json sees them.
func executedHooks(t *testing.T, res *hooks.Result) []map[string]any {
	t.Helper()
	var out struct {
		ExecutedHooks []map[string]any `json:"executedHooks"`
	}
	if err := json.Unmarshal([]byte(jsonText(t, res)), &out); err != nil {
		t.Fatal(err)
	}
	return out.ExecutedHooks
}

// TestExecutedHooksFields: the SDK's HookExecutionResult field names; exitCode only on a failure.
func TestExecutedHooksFields(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	ok := w.Write(".a5c/hooks/on-run-start/a.sh", "#!/bin/sh\necho '{\"action\":\"continue\"}'\n", 0o755)
	bad := w.Write(".a5c/hooks/on-run-start/b.sh", "#!/bin/sh\nexit 3\n", 0o755)
	res := w.Fire("on-run-start", "runId", "run-1")
	got := jsonText(t, executedHooks(t, res))
	want := jsonText(t, []map[string]any{
		{"hookPath": ok, "hookName": "a.sh", "hookLocation": "per-repo", "status": "success"},
		{"hookPath": bad, "hookName": "b.sh", "hookLocation": "per-repo", "status": "failed", "exitCode": 3},
	})
	if got != want {
		t.Errorf("executedHooks\n%s\nwant\n%s", got, want)
	}
	// output: the hooks' stdout, as JSON when it is JSON, as the SDK's HookResult.output.
	if got := jsonText(t, res.Extra[babysitter.ExtraOutput]); got != `{"action":"continue"}` {
		t.Errorf("output %s", got)
	}
}

// TestOutputText: stdout that is not JSON is the trimmed text; no stdout, no output.
func TestOutputText(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".a5c/hooks/on-task-start/a.sh", "#!/bin/sh\necho one\n", 0o755)
	w.Write(".a5c/hooks/on-task-start/b.sh", "#!/bin/sh\necho two\n", 0o755)
	w.Write(".a5c/hooks/on-score/quiet.sh", "#!/bin/sh\n:\n", 0o755)
	w.Write(".autoagent/config.json", `{"customEvents": ["on-score"]}`, 0o644)
	if got := w.Fire("on-task-start").Extra[babysitter.ExtraOutput]; got != "one\ntwo" {
		t.Errorf("output %q", got)
	}
	if got, set := w.Fire("on-score").Extra[babysitter.ExtraOutput]; set {
		t.Errorf("output %q without any stdout", got)
	}
}

// TestGenericDispatcherEnvironment: every hook gets HOOK_TYPE and HOOK_PAYLOAD, the payload on
// stdin with a newline, hookType and an ISO-8601 timestamp, in the workspace; and, as
// babysitter's hooks document says of every hook ("Environment Variables"), BREAKPOINT_PAYLOAD,
// the same payload (upstream's generic dispatcher sets it only for on-breakpoint; its hooks do
// not read it elsewhere).
func TestGenericDispatcherEnvironment(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".a5c/hooks/on-run-start/env.sh", `#!/bin/bash
set -euo pipefail
read -r line
same=no; [ "$BREAKPOINT_PAYLOAD" = "$HOOK_PAYLOAD" ] && same=yes
echo "type=$HOOK_TYPE bp=$same pwd=$PWD"
echo "$HOOK_PAYLOAD" | jq -c '{runId, hookType}'
echo "$line" | jq -r '.timestamp | type'
`, 0o755)
	w.Write(".a5c/hooks/on-breakpoint/bp.sh", "#!/bin/sh\necho \"$HOOK_TYPE $(echo \"$BREAKPOINT_PAYLOAD\" | jq -r .question) $(echo \"$HOOK_PAYLOAD\" | jq -r .question)\"\n", 0o755)
	res := w.Fire("on-run-start", "runId", "run-1")
	want := "type=on-run-start bp=yes pwd=" + w.Dir + "\n" + `{"runId":"run-1","hookType":"on-run-start"}` + "\nstring\n"
	if len(res.Hooks) != 1 || res.Hooks[0].Stdout != want || res.Hooks[0].Status != hooks.StatusOK {
		t.Errorf("got %+v\nwant stdout %q", res.Hooks, want)
	}
	res = w.Fire("on-breakpoint", "question", "q")
	if len(res.Hooks) != 1 || res.Hooks[0].Stdout != "on-breakpoint q q\n" {
		t.Errorf("got %+v", res.Hooks)
	}
}

// TestShippedPluginHooks: the plugin's hooks as shipped (mode 644) never run; once made
// executable, its on-run-start logger writes the log block babysitter's own test fixture shows,
// and the .sh.example files never run.
func TestShippedPluginHooks(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("needs jq")
	}
	w := newWorkspace(t)
	copyPlugin(t, w, 0o644)
	res := w.Fire("on-run-start", "runId", "cli-smoke")
	if len(res.Hooks) != 0 || w.Read(".a5c/logs/hooks.log") != "" {
		t.Fatalf("shipped (644) hooks ran: %v", seedtest.Statuses(res))
	}
	copyPlugin(t, w, 0o755)
	res = w.Fire("on-run-start", "runId", "cli-smoke", "processId", "cli-smoke/process", "entry", "../processes/smoke-process.mjs#process")
	if got := seedtest.Statuses(res); !slices.Equal(got, []string{"on-run-start/logger.sh=ok"}) {
		t.Fatalf("ran %v", got)
	}
	if got := res.Hooks[0].Stderr; got != "[on-run-start/logger] Logged run start to .a5c/logs/hooks.log\n" {
		t.Errorf("stderr %q", got)
	}
	log := regexp.MustCompile(`^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\] RUN_START\n`).ReplaceAllString(w.Read(".a5c/logs/hooks.log"), "[TS] RUN_START\n")
	want := "[TS] RUN_START\n  Hook: on-run-start\n  Run ID: cli-smoke\n  Process: cli-smoke/process\n  Entry: ../processes/smoke-process.mjs#process\n"
	if log != want {
		t.Errorf("hooks.log\n%s\nwant\n%s", log, want)
	}
	sample := read(t, filepath.Join("testdata", "upstream", "sample-hooks.log"))
	if !strings.Contains(sample, "] RUN_START\n  Hook: on-run-start\n  Run ID: ") {
		t.Errorf("the sample log of babysitter's fixture no longer has the shape asserted here:\n%s", sample)
	}
	res = w.Fire("on-run-complete", "runId", "cli-smoke", "status", "completed")
	if got := seedtest.Statuses(res); !slices.Equal(got, []string{"on-run-complete/logger.sh=ok", "on-run-fail/logger.sh=skipped"}) {
		t.Errorf("on-run-complete ran %v (notify.sh.example must not run)", got)
	}
}

// TestHookLocations: user hooks under $XDG_CONFIG_HOME (empty: ~/.config); plugin hooks under
// $CLAUDE_PLUGIN_ROOT/hooks when the installed plugin's dispatcher is there.
func TestHookLocations(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	xdg := filepath.Join(filepath.Dir(w.Home), "xdg")
	w.Env["XDG_CONFIG_HOME"] = xdg
	locs := babysitter.Locations(w.LoadEnv())
	if got := locs[1].Dir; got != filepath.Join(xdg, "babysitter", "hooks") {
		t.Errorf("per-user %s", got)
	}
	w.Env["XDG_CONFIG_HOME"] = ""
	if got := babysitter.Locations(w.LoadEnv())[1].Dir; got != filepath.Join(w.Home, ".config", "babysitter", "hooks") {
		t.Errorf("per-user with XDG_CONFIG_HOME empty: %s", got)
	}

	installed := filepath.Join(filepath.Dir(w.Home), "plugin-cache", "babysitter")
	w.Write("../plugin-cache/babysitter/hooks/hook-dispatcher.sh", "#!/bin/bash\n", 0o644)
	w.Write("../plugin-cache/babysitter/hooks/on-run-start/p.sh", "#!/bin/sh\necho \"$CLAUDE_PLUGIN_ROOT\"\n", 0o755)
	w.Write("plugins/babysitter/hooks/on-run-start/workspace.sh", "#!/bin/sh\necho workspace\n", 0o755)
	w.Env["CLAUDE_PLUGIN_ROOT"] = installed
	res := w.Fire("on-run-start")
	if len(res.Hooks) != 1 || res.Hooks[0].Stdout != installed+"\n" {
		t.Errorf("with CLAUDE_PLUGIN_ROOT: %+v", res.Hooks)
	}
	// A CLAUDE_PLUGIN_ROOT without the dispatcher is not babysitter's plugin: the workspace's is used.
	w.Env["CLAUDE_PLUGIN_ROOT"] = filepath.Dir(w.Home)
	res = w.Fire("on-run-start")
	if len(res.Hooks) != 1 || res.Hooks[0].Stdout != "workspace\n" {
		t.Errorf("with another CLAUDE_PLUGIN_ROOT: %+v", res.Hooks)
	}
}

// TestTimeout: babysitter's SDK gives a dispatch 30 seconds.
func TestTimeout(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".a5c/hooks/on-run-start/a.sh", "#!/bin/sh\n", 0o755)
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Hooks[hooks.SessionStart][0].Timeout; got != 30*time.Second {
		t.Errorf("timeout %s", got)
	}
}

// TestNameWithSpace: the dispatcher's `for hook in $hooks` splits such a path into two words that
// fail with 127; agent-hooks runs the hook.
func TestNameWithSpace(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".a5c/hooks/on-run-start/my hook.sh", "#!/bin/sh\necho ran\n", 0o755)
	res := w.Fire("on-run-start")
	if got := seedtest.Statuses(res); !slices.Equal(got, []string{"on-run-start/my hook.sh=ok"}) || res.Hooks[0].Stdout != "ran\n" {
		t.Errorf("ran %v", got)
	}
}
