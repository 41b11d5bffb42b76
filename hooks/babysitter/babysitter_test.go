package babysitter_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/babysitter"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

// basicTemplate is the seed document's "Basic Template" hook, with the commented-out
// notification replaced by a line in a log file.
const basicTemplate = `#!/bin/bash
# My Custom Hook
# Description of what this hook does

set -euo pipefail

# Read payload from stdin
PAYLOAD=$(cat)

# Extract fields using jq
QUESTION=$(echo "$PAYLOAD" | jq -r '.question // "N/A"')
RUN_ID=$(echo "$PAYLOAD" | jq -r '.runId // "unknown"')

# Do your custom logic here
echo "[my-hook] Processing breakpoint for run: $RUN_ID" >&2

echo "$RUN_ID: $QUESTION" >> "$REPO_ROOT/breakpoints.log"

# Output any results to stdout (optional)
echo '{"status": "notified"}'

exit 0
`

// record writes which hook ran, and what it saw, to order.log.
func record(tag string) string {
	return "#!/bin/sh\nstdin=$(cat)\nprintf '%s %s %s\\n' " + tag + " \"$(echo \"$stdin\" | jq -r .runId)\" \"$(echo \"$HOOK_PAYLOAD\" | jq -r .runId)\" >> \"$REPO_ROOT/order.log\"\n"
}

func newWorkspace(t *testing.T) *seedtest.Workspace {
	t.Helper()
	return seedtest.New(t, []hooks.Format{babysitter.New()})
}

func TestSeedBreakpointHook(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".a5c/hooks/on-breakpoint/my-hook.sh", basicTemplate, 0o755)
	res := w.Fire("on-breakpoint", "question", "Approve this change?", "runId", "run-20260119-example", "title", "Review Required")
	if res.Event != hooks.ApprovalRequired || len(res.Hooks) != 1 {
		t.Fatalf("got %+v", res)
	}
	h := res.Hooks[0]
	if h.Status != hooks.StatusOK || h.Stdout != "{\"status\": \"notified\"}\n" || h.Stderr != "[my-hook] Processing breakpoint for run: run-20260119-example\n" {
		t.Errorf("hook %+v", h)
	}
	if got := w.Read("breakpoints.log"); got != "run-20260119-example: Approve this change?\n" {
		t.Errorf("breakpoints.log %q", got)
	}
}

func TestDiscoveryOrder(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write("plugins/babysitter/hooks/on-run-start/a-plugin.sh", record("plugin-a"), 0o755)
	w.Write("plugins/babysitter/hooks/hook-dispatcher.sh", "#!/bin/sh\nexit 9\n", 0o755) // not a hook
	w.Write("~/.config/babysitter/hooks/on-run-start/b-user.sh", record("user-b"), 0o755)
	w.Write("~/.config/babysitter/hooks/on-run-start/a-user.sh", record("user-a"), 0o755)
	w.Write(".a5c/hooks/on-run-start/20-second.sh", record("repo-20"), 0o755)
	w.Write(".a5c/hooks/on-run-start/10-first.sh", record("repo-10"), 0o755)
	w.Write(".a5c/hooks/on-run-start/15-fails.sh", "#!/bin/sh\necho broken >&2\nexit 3\n", 0o755)
	w.Write(".a5c/hooks/on-run-start/README.md", "notes\n", 0o644)

	res := w.Fire("on-run-start", "runId", "run-1")
	if res.Event != hooks.SessionStart || res.Blocked {
		t.Fatalf("event %s blocked %v", res.Event, res.Blocked)
	}
	if got, want := w.Read("order.log"), "repo-10 run-1 run-1\nrepo-20 run-1 run-1\nuser-a run-1 run-1\nuser-b run-1 run-1\nplugin-a run-1 run-1\n"; got != want {
		t.Errorf("order.log:\n%s\nwant:\n%s", got, want)
	}

	// --json: executedHooks, as the dispatcher reports them.
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		ExecutedHooks []babysitter.ExecutedHook `json:"executedHooks"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out.ExecutedHooks {
		rel, _ := filepath.Rel(filepath.Dir(w.Dir), e.HookPath)
		code := "-"
		if e.ExitCode != nil {
			code = strconv.Itoa(*e.ExitCode)
		}
		got = append(got, strings.Join([]string{rel, e.HookName, e.HookLocation, e.Status, code}, " "))
	}
	want := []string{
		"ws/.a5c/hooks/on-run-start/10-first.sh 10-first.sh per-repo success -",
		"ws/.a5c/hooks/on-run-start/15-fails.sh 15-fails.sh per-repo failed 3",
		"ws/.a5c/hooks/on-run-start/20-second.sh 20-second.sh per-repo success -",
		"home/.config/babysitter/hooks/on-run-start/a-user.sh a-user.sh per-user success -",
		"home/.config/babysitter/hooks/on-run-start/b-user.sh b-user.sh per-user success -",
		"ws/plugins/babysitter/hooks/on-run-start/a-plugin.sh a-plugin.sh plugin success -",
	}
	if !slices.Equal(got, want) {
		t.Errorf("executedHooks\n%q\nwant\n%q", got, want)
	}
}

func TestEnvironment(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write("plugins/babysitter/README.md", "the plugin\n", 0o644)
	w.Write(".a5c/hooks/on-score/env.sh", "#!/bin/sh\necho \"$REPO_ROOT|$CLAUDE_PLUGIN_ROOT\"\necho \"$HOOK_PAYLOAD\" | jq -c '{target, score, eventName}'\n", 0o755)
	w.Write(".autoagent/config.json", `{"customEvents": ["on-score"]}`, 0o644)
	res := w.Fire("on-score", "target", "code-quality", "score", 85)
	want := w.Dir + "|" + filepath.Join(w.Dir, "plugins", "babysitter") + "\n" + `{"target":"code-quality","score":85,"eventName":"on-score"}` + "\n"
	if len(res.Hooks) != 1 || res.Hooks[0].Stdout != want {
		t.Errorf("got %+v, want stdout %q", res.Hooks, want)
	}
}

func TestRunCompleteOrFail(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".a5c/hooks/on-run-complete/done.sh", "#!/bin/sh\necho complete\n", 0o755)
	w.Write(".a5c/hooks/on-run-fail/alert.sh", "#!/bin/sh\necho failed\n", 0o755)
	ranOnly := func(event, want string, data ...any) {
		t.Helper()
		res := w.Fire(event, data...)
		var ran []string
		for _, h := range res.Hooks {
			if h.Status != hooks.StatusSkipped {
				ran = append(ran, h.Name)
			}
		}
		if !slices.Equal(ran, []string{want}) {
			t.Errorf("%v: ran %v, want only %s", data, ran, want)
		}
	}
	// babysitter's SDK dispatches on-run-complete or on-run-fail itself; each runs only its own
	// folder, whatever the payload says.
	ranOnly("on-run-fail", "on-run-fail/alert.sh", "status", "completed")
	ranOnly("on-run-fail", "on-run-fail/alert.sh")
	ranOnly("on-run-complete", "on-run-complete/done.sh", "status", "failed", "error", "x")
	ranOnly("on-run-complete", "on-run-complete/done.sh", "success", false)
	// The canonical SessionEnd (agent-hooks session end) has no babysitter name: the payload tells.
	ranOnly(hooks.SessionEnd, "on-run-complete/done.sh")
	ranOnly(hooks.SessionEnd, "on-run-complete/done.sh", "status", "completed")
	ranOnly(hooks.SessionEnd, "on-run-fail/alert.sh", "status", "failed")
	ranOnly(hooks.SessionEnd, "on-run-fail/alert.sh", "status", "Error")
	ranOnly(hooks.SessionEnd, "on-run-fail/alert.sh", "success", false)
	ranOnly(hooks.SessionEnd, "on-run-fail/alert.sh", "error", "task crashed")
	ranOnly(hooks.SessionEnd, "on-run-complete/done.sh", "success", true)
}

func TestFailureNeverBlocks(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".a5c/hooks/pre-commit/lint.sh", "#!/bin/sh\necho lint errors >&2\nexit 2\n", 0o755)
	w.Write(".a5c/hooks/pre-commit/zz-after.sh", "#!/bin/sh\necho after\n", 0o755)
	res := w.Fire("pre-commit", "files", []any{"a.go"})
	if res.Event != hooks.PreGitCommit || res.Blocked {
		t.Fatalf("event %s blocked %v", res.Event, res.Blocked)
	}
	if got, want := seedtest.Statuses(res), []string{"pre-commit/lint.sh=error", "pre-commit/zz-after.sh=ok"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.Write(".a5c/hooks/on-breakpoint/notify.sh", "#!/bin/sh\n", 0o644)
	w.Write(".a5c/hooks/on-breakpiont/typo.sh", "#!/bin/sh\n", 0o755)
	w.Write(".a5c/hooks/on-breakpoint/notes.txt", "not a hook\n", 0o644)
	cfg, err := w.Load()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cfg.Hooks[hooks.ApprovalRequired]); n != 0 {
		t.Errorf("a non-executable hook was loaded")
	}
	var got []string
	for _, d := range cfg.Warnings {
		rel, _ := filepath.Rel(w.Dir, d.File)
		got = append(got, rel+": "+d.Message)
	}
	want := []string{
		`.a5c/hooks/on-breakpiont: unknown babysitter hook type "on-breakpiont"; did you mean "on-breakpoint"? (its hooks run only on the event on-breakpiont)`,
		".a5c/hooks/on-breakpoint/notify.sh: hook is not executable (chmod +x " + filepath.Join(w.Dir, ".a5c/hooks/on-breakpoint/notify.sh") + "); it will not run",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n%q\nwant\n%q", got, want)
	}
}

// TestExampleWorkspace keeps the README's example (testdata/babysitter-example) working.
func TestExampleWorkspace(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.UseExample("babysitter-example")
	cfg, err := w.Load()
	if err != nil || len(cfg.Warnings) != 0 {
		t.Fatalf("load: %v %v", err, cfg.Warnings)
	}
	res := w.Fire("on-breakpoint", "question", "Approve?", "runId", "run-1", "title", "Review")
	executed, _ := res.Extra[babysitter.ExtraExecutedHooks].([]babysitter.ExecutedHook)
	if len(executed) != 2 || executed[0].HookLocation != "per-repo" || executed[1].HookLocation != "plugin" {
		t.Errorf("executedHooks %+v", executed)
	}
	if got := res.Extra[babysitter.ExtraOutput]; got == nil {
		t.Errorf("output %v", got)
	}
}

func BenchmarkLoad(b *testing.B) {
	w := seedtest.New(b, []hooks.Format{babysitter.New()})
	w.UseExample("babysitter-example")
	seedtest.BenchLoad(b, w)
}
