package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/internal/testkit"
)

// syncBuffer is the tests' shared buffer for concurrent writes.
type syncBuffer = testkit.Buffer

func engineFor(t *testing.T, config string, reg *Registry, env map[string]string) (*Engine, *syncBuffer) {
	t.Helper()
	if reg == nil {
		reg = NewRegistry()
	}
	le := writeConfig(t, config, "")
	cfg, err := Load(reg, le)
	must(t, err)
	var out syncBuffer
	return &Engine{
		Config: cfg, Workspace: le.Workspace, SessionID: "session-1-abcdef",
		Getenv: func(k string) string { return env[k] }, Environ: []string{"PATH=" + os.Getenv("PATH")},
		Stdout: &out, Stderr: &out,
	}, &out
}

func hooksJSON(event string, hooks ...string) string {
	return `{"hooks": {"` + event + `": [` + strings.Join(hooks, ",") + `]}}`
}

func cmdHook(name, command string, extra string) string {
	b, _ := json.Marshal(command)
	h := `{"name": "` + name + `", "command": ` + string(b)
	if extra != "" {
		h += ", " + extra
	}
	return h + "}"
}

func statuses(r *Result) string {
	var s []string
	for _, h := range r.Hooks {
		s = append(s, h.Name+"="+string(h.Status))
	}
	return strings.Join(s, " ")
}

func TestBlockingRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event string
		hooks       []string
		blocked     bool
		decision    string
		reason      string
		statuses    string
		warnings    int
	}{
		{"exit 2 blocks and stops", "PreExecutionEnd",
			[]string{cmdHook("a", "true", ""), cmdHook("b", "echo nope >&2; exit 2", ""), cmdHook("c", "true", "")},
			true, "block", "nope", "a=ok b=blocked", 0},
		{"json block with exit 0", "Stop",
			[]string{cmdHook("a", `echo '{"decision":"block","reason":"todos left","feedback":"finish TODO.md"}'`, "")},
			true, "block", "todos left", "a=blocked", 0},
		{"json approve", "PreExecutionStart",
			[]string{cmdHook("a", `echo '{"decision":"approve"}'`, ""), cmdHook("b", "true", "")},
			false, "approve", "", "a=ok b=ok", 0},
		// AutoAgent's "should not block on exit code 2 for Post hooks": a warning, and the following
		// hooks run
		{"exit 2 on post event is a warning", "PostExecutionEnd",
			[]string{cmdHook("a", "echo Cleanup failed >&2; exit 2", ""), cmdHook("b", "true", "")},
			false, "approve", "", "a=blocked b=ok", 1},
		// JSON on stdout is read whatever the exit code, as AutoAgent's HookManager and Claude Code do
		{"json block with exit 1", "Stop",
			[]string{cmdHook("a", `echo '{"decision":"block","reason":"todos"}'; exit 1`, ""), cmdHook("b", "true", "")},
			true, "block", "todos", "a=blocked", 0},
		{"json block with exit 7 and no reason", "PreExecutionEnd",
			[]string{cmdHook("a", `echo '{"decision":"block"}'; exit 7`, "")},
			true, "block", "blocked by a", "a=blocked", 0},
		{"exit 2 on a blockable event keeps stderr as the reason", "PreExecutionEnd",
			[]string{cmdHook("a", `echo '{"decision":"block","reason":"json"}'; echo stderr >&2; exit 2`, "")},
			true, "block", "stderr", "a=blocked", 0},
		{"json block before a timeout", "Stop",
			[]string{cmdHook("slow", `echo '{"decision":"block","reason":"late"}'; sleep 30`, `"timeout": 300`)},
			true, "block", "late", "slow=blocked", 0},
		{"json approve with exit 1 is still an error", "PreExecutionEnd",
			[]string{cmdHook("a", `echo '{"decision":"approve"}'; exit 1`, ""), cmdHook("b", "true", "")},
			false, "approve", "", "a=error b=ok", 1},
		// a JSON block on a Post event stops the event's remaining hooks (a failed check prevents
		// the following git-commit); the event itself cannot be blocked, so it is a warning
		{"json block on post event stops the rest", "PostExecutionEnd",
			[]string{cmdHook("check", `echo '{"decision":"block","reason":"check failed"}'`, ""), cmdHook("commit", "true", "")},
			false, "approve", "", "check=blocked", 2},
		{"json block on post event with exit 2", "PostExecutionEnd",
			[]string{cmdHook("check", `echo '{"decision":"block"}'; exit 2`, ""), cmdHook("commit", "true", "")},
			false, "approve", "", "check=blocked", 2},
		{"plain failure is non-blocking", "PreExecutionEnd",
			[]string{cmdHook("a", "exit 1", ""), cmdHook("b", "true", "")},
			false, "approve", "", "a=error b=ok", 1},
		{"blocking hook fails closed", "PreExecutionEnd",
			[]string{cmdHook("lint", "echo crashed >&2; exit 3", `"blocking": true`), cmdHook("b", "true", "")},
			true, "block", "blocking hook lint failed: exited with status 3: crashed", "lint=error", 0},
		{"blocking hook that cannot start", "PreExecutionEnd",
			[]string{cmdHook("x", "/nonexistent/tool", `"blocking": true`)},
			true, "block", "blocking hook x failed: exited with status 127", "x=error", 0},
		{"blocking on post event only warns", "PostExecutionEnd",
			[]string{cmdHook("x", "exit 1", `"blocking": true`)},
			false, "approve", "", "x=error", 1},
		{"skip on PreIteration", "PreIteration",
			[]string{cmdHook("a", `echo '{"decision":"skip","reason":"nothing to do"}'`, ""), cmdHook("b", "true", "")},
			false, "skip", "nothing to do", "a=ok", 0},
		{"ask blocks when no one can be asked", "PreToolUse",
			[]string{cmdHook("a", `echo '{"decision":"ask","reason":"touches prod"}'`, ""), cmdHook("b", "true", "")},
			true, "block", "touches prod (a hook asked for confirmation, and there is no one to ask)", "a=ok", 0},
		{"ask on a post event only warns", "PostToolUse",
			[]string{cmdHook("a", `echo '{"decision":"ask"}'`, "")},
			false, "approve", "", "a=ok", 1},
		{"unknown decision is an error", "PreExecutionEnd",
			[]string{cmdHook("a", `echo '{"decision":"blok"}'`, "")},
			false, "approve", "", "a=error", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, _ := engineFor(t, hooksJSON(tc.event, tc.hooks...), nil, nil)
			res, err := e.Fire(context.Background(), tc.event, Payload{})
			must(t, err)
			if res.Blocked != tc.blocked || res.Decision != tc.decision || !strings.HasPrefix(res.Reason, tc.reason) {
				t.Errorf("got blocked=%v decision=%q reason=%q; want %v %q %q", res.Blocked, res.Decision, res.Reason, tc.blocked, tc.decision, tc.reason)
			}
			if got := statuses(res); got != tc.statuses {
				t.Errorf("statuses %q, want %q", got, tc.statuses)
			}
			if len(res.Warnings) != tc.warnings {
				t.Errorf("warnings %q, want %d", res.Warnings, tc.warnings)
			}
		})
	}
}

// TestAskWhenSomeoneCanBeAsked: with CanAsk a hook's ask is the event's decision: the remaining
// hooks run, the reasons are joined, and a block still wins.
func TestAskWhenSomeoneCanBeAsked(t *testing.T) {
	t.Parallel()
	ask := cmdHook("a", "ask-prod", "")
	claudeAsk := cmdHook("c", "claude-ask", "")
	tests := []struct {
		name     string
		hooks    []string
		decision string
		reason   string
		statuses string
	}{
		{"asks joined", []string{ask, cmdHook("b", "ok", ""), claudeAsk}, "ask", "touches prod\nc asks for confirmation", "a=ok b=ok c=ok"},
		{"a later block wins", []string{ask, cmdHook("b", "nope", "")}, "block", "nope", "a=ok b=blocked"},
		{"an earlier block wins", []string{cmdHook("b", "nope", ""), ask}, "block", "nope", "b=blocked"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, _ := fakeEngine(t, hooksJSON(PreToolUse, tc.hooks...), nil, nil, fakeAnswers)
			e.CanAsk = true
			res, err := e.Fire(context.Background(), PreToolUse, Payload{})
			must(t, err)
			if res.Decision != tc.decision || res.Reason != tc.reason || res.Blocked != (tc.decision == DecisionBlock) || statuses(res) != tc.statuses {
				t.Errorf("got %s %v %q (%s); want %s %q (%s)", res.Decision, res.Blocked, res.Reason, statuses(res), tc.decision, tc.reason, tc.statuses)
			}
		})
	}
}

func TestPayloadOnStdinAndEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `cat > ` + dir + `/stdin.json; env | grep '^AUTOAGENT_' | sort > ` + dir + `/env.txt`
	e, _ := engineFor(t, hooksJSON("PreExecutionStart", cmdHook("dump", script, "")), nil, nil)
	e.Now = func() time.Time { return time.UnixMilli(1700000000123) }
	_, err := e.Fire(context.Background(), "on-task-start", Payload{"issueNumber": json.Number("42"), "issueTitle": "Fix it"})
	must(t, err)
	raw, err := os.ReadFile(filepath.Join(dir, "stdin.json"))
	must(t, err)
	var got map[string]any
	must(t, json.Unmarshal(raw, &got))
	want := map[string]any{"eventName": "PreExecutionStart", "sessionId": "session-1-abcdef", "workspace": e.Workspace,
		"timestamp": float64(1700000000123), "issueNumber": float64(42), "issueTitle": "Fix it"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("stdin %s = %v, want %v", k, got[k], v)
		}
	}
	env, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	must(t, err)
	for _, line := range []string{"AUTOAGENT_EVENT=PreExecutionStart", "AUTOAGENT_SESSION_ID=session-1-abcdef", "AUTOAGENT_WORKSPACE=" + e.Workspace, "AUTOAGENT_PAYLOAD={"} {
		if !strings.Contains(string(env), line) {
			t.Errorf("environment lacks %q:\n%s", line, env)
		}
	}
}

func TestCancelStopsRunningHook(t *testing.T) {
	t.Parallel()
	e, _ := engineFor(t, hooksJSON("Stop", cmdHook("wait", "sleep 30", "")), nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := e.Fire(ctx, "Stop", nil)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

func TestOutputIsBounded(t *testing.T) {
	t.Parallel()
	e, _ := engineFor(t, hooksJSON("Stop", cmdHook("loud", "head -c 3000000 /dev/zero | tr '\\0' x", "")), nil, nil)
	e.Stdout, e.Stderr = nil, nil
	res, err := e.Fire(context.Background(), "Stop", nil)
	must(t, err)
	out := res.Hooks[0].Stdout
	if len(out) > process.MaxCapture+200 || !strings.Contains(out, "output truncated, 1951424 more bytes") {
		t.Errorf("captured %d bytes, tail %q", len(out), out[max(0, len(out)-80):])
	}
}

// TestParallelHooksRunConcurrentlyAndPrintInOrder: each parallel hook marks that it started and
// then waits until all four have, so they can only finish if they run at the same time; run one
// after the other, the first would wait until its timeout. No clock is read: how fast they run
// together is BenchmarkParallel10Sleep's business.
func TestParallelHooksRunConcurrentlyAndPrintInOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names := []string{"one", "two", "three", "four"}
	var hs []string
	for _, n := range names {
		barrier := "touch " + n + "; for x in " + strings.Join(names, " ") + "; do while [ ! -e $x ]; do sleep 0.01; done; done; echo " + n
		hs = append(hs, cmdHook(n, "cd '"+dir+"' && "+barrier, `"parallel": true, "timeout": 30000`))
	}
	hs = append(hs, cmdHook("after", "echo after", ""))
	e, out := engineFor(t, hooksJSON("PostIteration", hs...), nil, nil)
	res, err := e.Fire(context.Background(), "PostIteration", nil)
	must(t, err)
	if statuses(res) != "one=ok two=ok three=ok four=ok after=ok" {
		t.Errorf("statuses %s: the parallel hooks did not all run at once", statuses(res))
	}
	if got, want := out.String(), "one\ntwo\nthree\nfour\nafter\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

func TestParallelBlockAndPanic(t *testing.T) {
	t.Parallel()
	reg := NewRegistry()
	reg.Register("explode", TypeFunc(func(*Hook, json.RawMessage) (Task, error) {
		return TaskFunc(func(context.Context, *Invocation) Outcome { panic("boom") }), nil
	}))
	e, procs := fakeEngine(t, hooksJSON("PreExecutionEnd",
		`{"type": "explode", "parallel": true}`,
		cmdHook("gate", "stop", `"parallel": true`),
		cmdHook("later", "ok", "")), reg, nil, fakeAnswers)
	res, err := e.Fire(context.Background(), "PreExecutionEnd", nil)
	must(t, err)
	if !res.Blocked || res.Reason != "stop" {
		t.Errorf("blocked=%v reason=%q", res.Blocked, res.Reason)
	}
	if got := procs.Started(); got != "stop" {
		t.Errorf("started %q, want only the gate", got)
	}
	if got := statuses(res); got != "explode=error gate=blocked" {
		t.Errorf("statuses %q", got)
	}
	if !strings.Contains(res.Hooks[0].Reason, "panicked: boom") {
		t.Errorf("panic not reported: %q", res.Hooks[0].Reason)
	}
}

func TestSkippedHooksAreRecorded(t *testing.T) {
	t.Parallel()
	config := hooksJSON("PreExecutionStart",
		cmdHook("docs-only", "docs", `"matcher": {"field": "issueTitle", "regex": "^docs"}`),
		cmdHook("off", "off", `"enabled": false`),
		cmdHook("lint", "lint", ""),
		cmdHook("test", "test", ""))
	answers := map[string]process.Result{"docs": {}, "off": {}, "lint": {}, "test": {}}
	var seen []string
	obs := observerFunc(func(event string, h *Hook, r *HookResult) { seen = append(seen, h.Name+"="+string(r.Status)) })

	e, procs := fakeEngine(t, config, nil, map[string]string{"AGENT_HOOKS_SKIP": "lint, other"}, answers)
	e.Observer = obs
	res, err := e.Fire(context.Background(), "PreExecutionStart", Payload{"issueTitle": "feat: x"})
	must(t, err)
	if got := statuses(res); got != "docs-only=skipped off=skipped lint=skipped test=ok" {
		t.Errorf("statuses %q", got)
	}
	if strings.Join(seen, " ") != statuses(res) {
		t.Errorf("observer saw %v", seen)
	}
	if got := procs.Started(); got != "test" {
		t.Errorf("started %q: a skipped hook ran", got)
	}
	if !strings.Contains(res.Hooks[2].Reason, "AGENT_HOOKS_SKIP") {
		t.Errorf("skip reason %q", res.Hooks[2].Reason)
	}
	res, err = e.Fire(context.Background(), "PreExecutionStart", Payload{"issueTitle": "docs: readme"})
	must(t, err)
	if res.Hooks[0].Status != StatusOK {
		t.Errorf("matcher did not match docs title: %s", statuses(res))
	}

	e, procs = fakeEngine(t, config, nil, map[string]string{"AGENT_HOOKS_DISABLE": "1"}, answers)
	res, err = e.Fire(context.Background(), "PreExecutionStart", Payload{})
	must(t, err)
	if got := statuses(res); got != "docs-only=skipped off=skipped lint=skipped test=skipped" {
		t.Errorf("AGENT_HOOKS_DISABLE: %q", got)
	}
	if got := procs.Started(); got != "" {
		t.Errorf("AGENT_HOOKS_DISABLE: started %q", got)
	}
}

type observerFunc func(event string, h *Hook, r *HookResult)

func (f observerFunc) HookDone(event string, h *Hook, r *HookResult) { f(event, h, r) }

func TestBuiltinSetsPayloadAndFiresNestedEvents(t *testing.T) {
	t.Parallel()
	reg := NewRegistry()
	reg.Register("fake-commit", TypeFunc(func(*Hook, json.RawMessage) (Task, error) {
		return TaskFunc(func(ctx context.Context, inv *Invocation) Outcome {
			pre, err := inv.Fire(ctx, PreGitCommit, Payload{"message": "m"})
			if err != nil {
				return Outcome{Status: StatusError, Reason: err.Error()}
			}
			if pre.Blocked {
				return Outcome{Status: StatusBlocked, Decision: DecisionBlock, Reason: "commit blocked: " + pre.Reason}
			}
			return Outcome{Status: StatusOK, Set: Payload{"commitSha": "abc123"}}
		}), nil
	}))
	config := `{"hooks": {
  "PreGitCommit": [{"command": "test \"$(jq -r .message)\" = m || exit 2"}],
  "PostExecutionEnd": [{"type": "fake-commit"}, {"command": "jq -r .commitSha"}]
}}`
	e, out := engineFor(t, config, reg, nil)
	res, err := e.Fire(context.Background(), "PostExecutionEnd", nil)
	must(t, err)
	if statuses(res) != "fake-commit=ok jq -r .commitSha=ok" || !strings.Contains(out.String(), "abc123") {
		t.Errorf("statuses %s output %q", statuses(res), out.String())
	}
	if res.Set["commitSha"] != "abc123" {
		t.Errorf("outputs %v", res.Set)
	}
}

func TestUnknownEventSuggests(t *testing.T) {
	t.Parallel()
	e, _ := engineFor(t, "{}", nil, nil)
	_, err := e.Fire(context.Background(), "PreExecutionEdn", nil)
	if err == nil || !strings.Contains(err.Error(), `did you mean "PreExecutionEnd"?`) {
		t.Errorf("err %v", err)
	}
}

type reporterRunner struct{ seen *[]string }

func (r reporterRunner) Run(_ context.Context, inv *Invocation) Outcome {
	*r.seen = append(*r.seen, inv.Result.Decision+":"+inv.Result.Reason)
	return Outcome{Status: StatusError, Reason: "post failed"}
}
func (reporterRunner) ReportsOutcome() {}

func TestOutcomeReportersRunAfterTheDecision(t *testing.T) {
	t.Parallel()
	var seen []string
	reg := NewRegistry()
	reg.Register("report", TypeFunc(func(*Hook, json.RawMessage) (Task, error) { return reporterRunner{&seen}, nil }))
	e, procs := fakeEngine(t, hooksJSON("PreExecutionEnd",
		`{"type": "report", "name": "first-report", "blocking": true}`,
		cmdHook("gate", "no-tests", ""),
		cmdHook("never", "ok", "")), reg, nil, fakeAnswers)
	res, err := e.Fire(context.Background(), "PreExecutionEnd", nil)
	must(t, err)
	if got := statuses(res); got != "gate=blocked first-report=error" {
		t.Errorf("statuses %q", got)
	}
	if len(seen) != 1 || seen[0] != "block:no tests" || res.Reason != "no tests" {
		t.Errorf("reporter saw %v; reason %q", seen, res.Reason)
	}
	if got := procs.Started(); got != "no-tests" {
		t.Errorf("started %q: a hook after the block ran", got)
	}
	// With no block, a failing blocking reporter fails closed like any blocking hook.
	seen = nil
	e, _ = fakeEngine(t, hooksJSON("PreExecutionEnd", `{"type": "report", "name": "r", "blocking": true}`, cmdHook("ok", "ok", "")), reg, nil, fakeAnswers)
	res, err = e.Fire(context.Background(), "PreExecutionEnd", nil)
	must(t, err)
	if !res.Blocked || res.Reason != "blocking hook r failed: post failed" || seen[0] != "approve:" {
		t.Errorf("blocked=%v reason=%q seen=%v", res.Blocked, res.Reason, seen)
	}
}

// A built-in on a Post event that was stopped by a blockable nested event blocks the run: the
// gate held. Without BlockedBy, a block on a Post event is only a warning.
func TestNestedGateBlocksPostEvent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		blockedBy string
		blocked   bool
	}{{PreGitCommit, true}, {PostGitCommit, false}, {"", false}} {
		reg := NewRegistry()
		reg.Register("gated", TypeFunc(func(*Hook, json.RawMessage) (Task, error) {
			return TaskFunc(func(context.Context, *Invocation) Outcome {
				return Outcome{Status: StatusBlocked, Decision: DecisionBlock, Reason: "gate held", BlockedBy: tc.blockedBy}
			}), nil
		}))
		e, _ := engineFor(t, hooksJSON("PostExecutionEnd", `{"type": "gated"}`), reg, nil)
		res, err := e.Fire(context.Background(), "PostExecutionEnd", nil)
		must(t, err)
		if res.Blocked != tc.blocked || (tc.blocked && res.Reason != "gate held") || (!tc.blocked && len(res.Warnings) != 1) {
			t.Errorf("blockedBy %q: blocked=%v reason=%q warnings=%v", tc.blockedBy, res.Blocked, res.Reason, res.Warnings)
		}
	}
}

// A payload too large for one environment variable (Linux: 128 KiB) still reaches the hook whole
// on stdin, and through a file named by AUTOAGENT_PAYLOAD_FILE that is removed afterwards.
func TestLargePayloadGoesThroughAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `wc -c < "$AUTOAGENT_PAYLOAD_FILE" > ` + dir + `/file.n; echo "$AUTOAGENT_PAYLOAD_FILE" > ` + dir + `/file.path; wc -c > ` + dir + `/stdin.n; test -z "$AUTOAGENT_PAYLOAD"`
	e, _ := engineFor(t, hooksJSON("PreExecutionEnd", cmdHook("big", script, `"blocking": true`)), nil, nil)
	res, err := e.Fire(context.Background(), "PreExecutionEnd", Payload{"output": strings.Repeat("x", 300000)})
	must(t, err)
	if res.Blocked || res.Hooks[0].Status != StatusOK {
		t.Fatalf("hook failed: %+v", res.Hooks[0])
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		must(t, err)
		return strings.TrimSpace(string(b))
	}
	if n, _ := strconv.Atoi(read("stdin.n")); read("file.n") != read("stdin.n") || n < 300000 {
		t.Errorf("file has %s bytes, stdin %s", read("file.n"), read("stdin.n"))
	}
	if _, err := os.Stat(read("file.path")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("payload file left behind: %v", err)
	}
}

// A panicking built-in fails its own hook, sequential or parallel, with a reason naming it; the
// event goes on by the usual rules (a blocking hook blocks, a non-blocking one warns).
func TestPanicFailsOnlyItsHook(t *testing.T) {
	t.Parallel()
	reg := NewRegistry()
	reg.Register("explode", TypeFunc(func(*Hook, json.RawMessage) (Task, error) {
		return TaskFunc(func(context.Context, *Invocation) Outcome { panic("boom") }), nil
	}))
	for _, tc := range []struct {
		name, extra string
		blocked     bool
		statuses    string
	}{
		{"sequential", "", false, "bang=error after=ok"},
		{"sequential blocking", `"blocking": true`, true, "bang=error"},
		{"parallel", `"parallel": true`, false, "bang=error after=ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hook := `{"type": "explode", "name": "bang"`
			if tc.extra != "" {
				hook += ", " + tc.extra
			}
			after := `"parallel": true`
			if tc.name != "parallel" {
				after = ""
			}
			e, _ := engineFor(t, hooksJSON("PreExecutionEnd", hook+"}", cmdHook("after", "true", after)), reg, nil)
			var msgs bytes.Buffer
			e.Messages = &msgs
			res, err := e.Fire(context.Background(), "PreExecutionEnd", nil)
			must(t, err)
			if got := statuses(res); got != tc.statuses || res.Blocked != tc.blocked {
				t.Errorf("statuses %q blocked=%v", got, res.Blocked)
			}
			if r := res.Hooks[0].Reason; !strings.Contains(r, `hook "bang"`) || !strings.Contains(r, "panicked: boom") || strings.Contains(r, "goroutine") {
				t.Errorf("hook reason %q", r)
			}
			if tc.blocked && !strings.Contains(res.Reason, "bang") {
				t.Errorf("event reason %q", res.Reason)
			}
			if !strings.Contains(msgs.String(), "goroutine") {
				t.Errorf("no stack for the panic on the messages stream: %q", msgs.String())
			}
		})
	}
}

// A hook that cannot start because of its payload (a value no process can receive) blocks a
// blockable event whether or not it is blocking, with a reason naming the hook and the cause: a
// payload must not walk around an exit-2 gate by making it unable to start. On an event that
// cannot block it is a warning.
func TestUnstartableHookFailsClosed(t *testing.T) {
	t.Parallel()
	gate := cmdHook("gate", `test {{title}} = ok || { echo "not ok" >&2; exit 2; }`, "")
	for _, tc := range []struct {
		name, event string
		payload     Payload
		blocked     bool
		cause       string
	}{
		{"NUL in a templated value", "PreExecutionEnd", Payload{"title": "ok\x00"}, true, "NUL"},
		{"NUL on an event that cannot block", "PostExecutionEnd", Payload{"title": "ok\x00"}, false, "NUL"},
		{"ordinary value still decides", "PreExecutionEnd", Payload{"title": "no"}, true, "not ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, _ := engineFor(t, hooksJSON(tc.event, gate, cmdHook("after", "true", "")), nil, nil)
			res, err := e.Fire(context.Background(), tc.event, tc.payload)
			must(t, err)
			if res.Blocked != tc.blocked {
				t.Fatalf("blocked=%v, want %v (%s; reason %q; warnings %q)", res.Blocked, tc.blocked, statuses(res), res.Reason, res.Warnings)
			}
			text := res.Reason
			if !tc.blocked {
				text = strings.Join(res.Warnings, "\n")
			}
			if !strings.Contains(text, tc.cause) || tc.cause == "NUL" && !strings.Contains(text, "gate") {
				t.Errorf("reason %q does not name the hook and %q", text, tc.cause)
			}
		})
	}
}

// envDialect gives the hook's process one environment variable of a payload value, as the seed
// formats' dialects do: a value over the system's limit makes the process unable to start.
type envDialect struct{}

func (envDialect) Prepare(inv *Invocation) (process.Process, error) {
	return process.Process{Argv: []string{"sh", "-c", `test "$TITLE" = ok || exit 2`}, Env: []string{"TITLE=" + template.FormatValue(inv.Payload["title"])}}, nil
}

func (envDialect) Interpret(inv *Invocation, p *process.Result) Outcome {
	return Native.Interpret(inv, p)
}

// Whatever the dialect, a process the system refuses to start for the size or content of what it
// was given (E2BIG, NUL) fails closed.
func TestProcessRefusedForItsInputFailsClosed(t *testing.T) {
	t.Parallel()
	for name, title := range map[string]string{"too long": strings.Repeat("x", 300<<10), "NUL": "o\x00k"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, _ := engineFor(t, hooksJSON("PreExecutionEnd", cmdHook("env-gate", "unused", "")), nil, nil)
			e.Config.Hooks["PreExecutionEnd"][0].Dialect = envDialect{}
			res, err := e.Fire(context.Background(), "PreExecutionEnd", Payload{"title": title})
			must(t, err)
			if !res.Blocked || !strings.Contains(res.Reason, "env-gate") || !strings.Contains(res.Reason, "could not start") {
				t.Errorf("blocked=%v reason=%q (%s)", res.Blocked, res.Reason, statuses(res))
			}
		})
	}
}

// Template values of any size and any bytes but NUL arrive whole, trailing newlines included:
// those the environment cannot carry go through a private file the generated command reads, which
// is removed afterwards.
func TestLargeTemplateValuesArriveWhole(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x'\"$(touch pwned)`id`\\ \t", 9000) + "\n\n"
	big2 := strings.Repeat("é", 60000) + "\n"
	small := "small\n"
	dir := t.TempDir()
	script := `printf '%s' {{big}} > ` + dir + `/bare; printf '%s' "{{big}}" > ` + dir + `/double; printf '%s' 'a{{big2}}b' > ` + dir + `/single; cat > ` + dir + `/heredoc <<EOF
{{small}}{{big2}}
EOF
printf '%s' {{small}} > ` + dir + `/small; env | grep -c '^AGENT_HOOKS_ARG_.*_FILE=' > ` + dir + `/files; ls "$AGENT_HOOKS_ARG_1_FILE" > ` + dir + `/path`
	e, _ := engineFor(t, hooksJSON("PreExecutionEnd", cmdHook("big", script, "")), nil, nil)
	res, err := e.Fire(context.Background(), "PreExecutionEnd", Payload{"big": big, "big2": big2, "small": small})
	must(t, err)
	if res.Blocked || res.Hooks[0].Status != StatusOK {
		t.Fatalf("hook failed: %+v", res.Hooks[0])
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		must(t, err)
		return string(b)
	}
	for name, want := range map[string]string{"bare": big, "double": big, "single": "a" + big2 + "b", "heredoc": small + big2 + "\n", "small": small, "files": "2\n"} {
		if got := read(name); got != want {
			t.Errorf("%s: got %d bytes (%.40q…), want %d bytes (%.40q…)", name, len(got), got, len(want), want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.Workspace, "pwned")); err == nil {
		t.Error("a value ran")
	}
	if _, err := os.Stat(strings.TrimSpace(read("path"))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("value file left behind: %v", err)
	}
}

type panickingWriter struct{}

func (panickingWriter) Write([]byte) (int, error) { panic("writer broke") }

// A live output writer that panics runs in a goroutine of the process runner: the hook still
// finishes with its output captured, and the process does not crash.
func TestPanickingLiveWriter(t *testing.T) {
	t.Parallel()
	e, _ := engineFor(t, hooksJSON("PreExecutionEnd", cmdHook("talk", "echo out; echo err >&2", "")), nil, nil)
	e.Stdout, e.Stderr = panickingWriter{}, panickingWriter{}
	res, err := e.Fire(context.Background(), "PreExecutionEnd", nil)
	must(t, err)
	if h := res.Hooks[0]; h.Status != StatusOK || h.Stdout != "out\n" || h.Stderr != "err\n" {
		t.Errorf("hook %+v", h)
	}
}

// orderExt records its name in a shared log before and after each event.
type orderExt struct {
	name string
	log  *[]string
}

func (x orderExt) BeforeEvent(context.Context, *EventInfo) error {
	*x.log = append(*x.log, "before "+x.name)
	return nil
}

func (x orderExt) AfterEvent(context.Context, *EventInfo, *Result) error {
	*x.log = append(*x.log, "after "+x.name)
	return nil
}

// extFormat is a format that configures only its extension (nil: nothing).
type extFormat struct {
	name string
	x    Extension
}

func (f extFormat) Name() string                 { return f.name }
func (f extFormat) Load(LoadEnv) (Loaded, error) { return Loaded{Extension: f.x}, nil }

// TestExtensionsOrder: the engine's own extensions run first, then the formats' in the order the
// formats are registered; a format that configures nothing adds none.
func TestExtensionsOrder(t *testing.T) {
	t.Parallel()
	var log []string
	reg := NewRegistry()
	reg.RegisterFormat(extFormat{"a", orderExt{"a", &log}})
	reg.RegisterFormat(extFormat{"none", nil})
	reg.RegisterFormat(extFormat{"b", orderExt{"b", &log}})
	eng, _ := engineFor(t, hooksJSON(Stop), reg, nil)
	if n := len(eng.Config.Extensions); n != 2 {
		t.Fatalf("Config.Extensions: %d, want 2", n)
	}
	eng.Extensions = []Extension{orderExt{"session", &log}}
	if _, err := eng.Fire(context.Background(), Stop, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"before session", "before a", "before b", "after session", "after a", "after b"}
	if !slices.Equal(log, want) {
		t.Errorf("order %q, want %q", log, want)
	}
}
