package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/sessions"
)

var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// at is t0 plus ms milliseconds.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// hook is a hook's line of a tool call (id "" for none).
func hook(ms int, id, event, name, status, decision, reason string) sessions.Event {
	return sessions.Event{Time: at(ms), Event: event, Name: name, Type: "command", Source: "project", Status: status,
		Decision: decision, Reason: reason, ToolUseID: id, DurationMs: 5}
}

// answer is the agent's line of a tool call: the answer it got, with the call's shape.
func answer(ms int, id, event, decision, reason string, call map[string]any) sessions.Event {
	status := "answered"
	if decision == "" {
		status = "passed"
	}
	e := sessions.Event{Time: at(ms), Event: event, Name: "claude", Type: "agent", Source: "agent-hooks", Status: status,
		Decision: decision, Reason: reason, ToolUseID: id}
	if call != nil {
		e.Details = map[string]any{"call": call}
	}
	return e
}

func bash(argv ...string) map[string]any {
	args := make([]any, len(argv))
	for i, a := range argv {
		args[i] = a
	}
	return map[string]any{"tool": "Bash", "kind": "shell", "commands": []any{map[string]any{"argv": args}}}
}

func write(path string) map[string]any {
	return map[string]any{"tool": "Write", "kind": "write", "writes": []any{path}}
}

// newTrail writes events through the store, as agent-hooks does, and returns the session and
// its trail.
func newTrail(t testing.TB, events ...sessions.Event) (*sessions.Session, Trail) {
	t.Helper()
	store := sessions.New(t.TempDir(), sessions.WithClock(func() time.Time { return t0 }))
	sess, err := store.Create(sessions.Params{Workspace: "/w", Agent: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) > 0 {
		if err := store.Append(sess.ID, events...); err != nil {
			t.Fatal(err)
		}
	}
	return sess, Trail{Name: store.EventsPath(sess.ID), Open: func() (io.ReadCloser, error) { return store.OpenTrail(sess.ID) }}
}

// rawTrail is a trail of the given lines as they are.
func rawTrail(lines []byte) Trail {
	return Trail{Name: "trail", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(lines)), nil }}
}

// brief is what a test checks of a row.
type brief struct {
	Name, What, Decision, Reason string
	Lines                        int
	Blocked, Continued           bool
}

func rowsOf(t *testing.T, tr Trail, opt Options) []brief {
	t.Helper()
	var got []brief
	err := Each(tr, opt, func(r *Row) error {
		got = append(got, brief{r.Name(), r.What(), r.Decision, r.Reason, r.Lines, r.Blocked, r.Continued})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestEachGroupsToolCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		events []sessions.Event
		want   []brief
	}{{
		name: "hooks, a skipped one and the answer are one row",
		events: []sessions.Event{
			hook(0, "t1", "PreToolUse", "context", "ok", "", ""),
			hook(1, "t1", "PreToolUse", "writes", "skipped", "", `matcher: tools "Write" does not match Bash`),
			answer(2, "t1", "PreToolUse", "", "", bash("ls", "-la")),
			hook(50, "t1", "PostToolUse", "log", "ok", "", ""),
		},
		want: []brief{{"Bash", "ls -la", "passed", "", 4, false, false}},
	}, {
		name: "a hook's block is the call's deny",
		events: []sessions.Event{
			hook(0, "t2", "PreToolUse", "no-rm", "blocked", "block", "rm is not allowed"),
			answer(1, "t2", "PreToolUse", "deny", "rm is not allowed", bash("rm", "-rf", "/")),
		},
		want: []brief{{"Bash", "rm -rf /", "deny", "rm is not allowed", 2, true, false}},
	}, {
		name: "PermissionRequest answers after PreToolUse passed",
		events: []sessions.Event{
			answer(0, "t3", "PreToolUse", "", "", write("a.go")),
			answer(5, "t3", "PermissionRequest", "allow", "approved by alice", write("a.go")),
		},
		want: []brief{{"Write", "a.go", "allow", "approved by alice", 2, false, false}},
	}, {
		name: "a deny stays a deny",
		events: []sessions.Event{
			answer(0, "t4", "PreToolUse", "deny", "no", write(".env")),
			answer(5, "t4", "PermissionRequest", "allow", "", write(".env")),
		},
		want: []brief{{"Write", ".env", "deny", "no", 2, true, false}},
	}, {
		name: "a PostToolUse block does not make the call refused",
		events: []sessions.Event{
			answer(0, "t5", "PreToolUse", "", "", bash("go", "test")),
			hook(9, "t5", "PostToolUse", "tests", "blocked", "block", "3 tests fail"),
			answer(10, "t5", "PostToolUse", "block", "3 tests fail", nil),
		},
		want: []brief{{"Bash", "go test", "passed", "", 3, false, false}},
	}, {
		name: "interleaved calls are a row each, in the order they began, hook runs between them",
		events: []sessions.Event{
			hook(0, "a", "PreToolUse", "h", "ok", "", ""),
			hook(1, "b", "PreToolUse", "h", "ok", "", ""),
			hook(2, "", "PreExecutionEnd", "gate", "blocked", "block", "no tests\nfor issue 7"),
			answer(3, "b", "PreToolUse", "", "", write("b.txt")),
			answer(4, "a", "PreToolUse", "", "", write("a.txt")),
		},
		want: []brief{
			{"Write", "a.txt", "passed", "", 2, false, false},
			{"Write", "b.txt", "passed", "", 2, false, false},
			{"PreExecutionEnd", "hook gate", "block", "no tests; for issue 7", 1, true, false},
		},
	}, {
		name: "without the agent's answer, what the hooks did",
		events: []sessions.Event{
			hook(0, "t6", "PreToolUse", "lint", "error", "", "exited with status 1: flaky"),
			hook(1, "t7", "PreToolUse", "gate", "blocked", "block", "nope"),
			{Time: at(2), Event: "PreToolUse", Name: "agent-hooks", Type: "refusal", Source: "agent-hooks", Status: "refused", Decision: "block", Reason: "hooks did not finish", ToolUseID: "t8"},
		},
		want: []brief{
			{"tool call", "", "", "lint error: exited with status 1: flaky", 1, false, false},
			{"tool call", "", "block", "nope", 1, true, false},
			{"tool call", "", "block", "hooks did not finish", 1, true, false},
		},
	}, {
		name: "a passed call whose hook failed says so",
		events: []sessions.Event{
			hook(0, "t9", "PreToolUse", "lint", "timeout", "", "did not finish in 5s"),
			answer(6, "t9", "PreToolUse", "", "", bash("make")),
		},
		want: []brief{{"Bash", "make", "passed", "lint timeout: did not finish in 5s", 2, false, false}},
	}, {
		name: "hook runs that are not tool calls are a row each",
		events: []sessions.Event{
			hook(0, "", "PreExecutionEnd", "fmt", "ok", "", ""),
			hook(1, "", "PreExecutionEnd", "off", "skipped", "", "disabled in config"),
		},
		want: []brief{
			{"PreExecutionEnd", "hook fmt", "ok", "", 1, false, false},
			{"PreExecutionEnd", "hook off", "skipped", "disabled in config", 1, false, false},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, tr := newTrail(t, tt.events...)
			got := rowsOf(t, tr, Options{})
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("rows =\n%+v\nwant\n%+v", got, tt.want)
			}
			var blocked []brief
			for _, b := range tt.want {
				if b.Blocked {
					blocked = append(blocked, b)
				}
			}
			if got := rowsOf(t, tr, Options{Blocked: true}); fmt.Sprint(got) != fmt.Sprint(blocked) {
				t.Errorf("blocked rows =\n%+v\nwant\n%+v", got, blocked)
			}
		})
	}
}

// TestEachSpan: a call's row spans its first hook's start to its last line, PostToolUse
// included.
func TestEachSpan(t *testing.T) {
	t.Parallel()
	_, tr := newTrail(t,
		hook(100, "t1", "PreToolUse", "h", "ok", "", ""), // started at 95
		answer(101, "t1", "PreToolUse", "", "", bash("sleep", "2")),
		hook(2200, "t1", "PostToolUse", "log", "ok", "", ""),
	)
	err := Each(tr, Options{}, func(r *Row) error {
		if !r.Start.Equal(at(95)) || !r.End.Equal(at(2200)) || r.Duration() != 2105*time.Millisecond {
			t.Errorf("row spans %v to %v (%v), want %v to %v", r.Start, r.End, r.Duration(), at(95), at(2200))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEachLateLines: a call's lines that come after the trail went on long without it are a row
// of their own that continues it, with its tool and command.
func TestEachLateLines(t *testing.T) {
	t.Parallel()
	events := []sessions.Event{
		hook(0, "long", "PreToolUse", "h", "ok", "", ""),
		answer(1, "long", "PreToolUse", "", "", bash("go", "test", "./...")),
	}
	for i := range heldLines + 1 {
		events = append(events, answer(2+i, fmt.Sprintf("other-%d", i), "PreToolUse", "", "", write("f")))
	}
	events = append(events, hook(9000, "long", "PostToolUse", "tests", "blocked", "block", "2 tests fail"))
	_, tr := newTrail(t, events...)
	got := rowsOf(t, tr, Options{})
	if len(got) != heldLines+3 {
		t.Fatalf("%d rows, want %d", len(got), heldLines+3)
	}
	first, late := got[0], got[len(got)-1]
	if first != (brief{"Bash", "go test ./...", "passed", "", 2, false, false}) {
		t.Errorf("first row = %+v", first)
	}
	if late != (brief{"Bash", "go test ./...", "block", "2 tests fail", 1, true, true}) {
		t.Errorf("late row = %+v, want the call's tool and command, continued", late)
	}
}

// TestGrouperBounded: however many calls a trail holds and however long they stay open, the
// grouper holds at most maxHeld+1 of them, and every line is in a row.
func TestGrouperBounded(t *testing.T) {
	t.Parallel()
	lines, rows, most := 0, 0, 0
	g := newGrouper(func(r *Row) error {
		rows++
		lines += r.Lines
		return nil
	})
	// Calls that never end, each one line, then lines of calls shown long ago.
	const n = 20 * maxHeld
	for i := range n {
		e := hook(i, fmt.Sprintf("id-%d", i%(n/2)), "PreToolUse", "h", "ok", "", "")
		if err := g.add(&e, nil); err != nil {
			t.Fatal(err)
		}
		most = max(most, len(g.queue), len(g.byID))
		if len(g.recent) > maxRecent || len(g.ring) > maxRecent {
			t.Fatalf("%d calls remembered, want at most %d", len(g.recent), maxRecent)
		}
	}
	if err := g.flush(true); err != nil {
		t.Fatal(err)
	}
	if most > maxHeld+1 {
		t.Errorf("held up to %d rows, want at most %d", most, maxHeld+1)
	}
	if lines != n || rows < n/2 {
		t.Errorf("%d lines in %d rows, want %d lines in at least %d rows", lines, rows, n, n/2)
	}
}

// TestEachReportsTornLines: a line that is not an event is reported (once per pass that asks)
// and skipped.
func TestEachReportsTornLines(t *testing.T) {
	t.Parallel()
	good, _ := json.Marshal(answer(0, "t1", "PreToolUse", "deny", "no", write(".env")))
	var problems []error
	tr := rawTrail(append(append([]byte(`{"event":"PreToolU`+"\n"), good...), '\n'))
	var rows int
	err := Each(tr, Options{Problem: func(err error) { problems = append(problems, err) }}, func(*Row) error { rows++; return nil })
	if err != nil || rows != 1 || len(problems) != 1 || !strings.Contains(problems[0].Error(), "trail:1:") {
		t.Errorf("rows %d, problems %v, err %v; want 1 row and line 1 reported", rows, problems, err)
	}
}

func TestTarget(t *testing.T) {
	t.Parallel()
	cmd := func(via string, argv ...string) any {
		args := make([]any, len(argv))
		for i, a := range argv {
			args[i] = a
		}
		m := map[string]any{"argv": args}
		if via != "" {
			m["via"] = via
		}
		return m
	}
	tests := []struct {
		call map[string]any
		want string
	}{
		{map[string]any{"kind": "shell", "commands": []any{cmd("", "sudo"), cmd("sudo", "rm", "-rf", "/tmp/x"), cmd("", "sh", "-c", "echo hi > a.txt"), cmd("sh -c", "echo", "hi")}},
			`sudo rm -rf /tmp/x ; sh -c 'echo hi > a.txt'`},
		{map[string]any{"kind": "shell", "commands": []any{map[string]any{"argv": []any{"rm", "$FILE", "it's"}, "dynamic": []any{1}}}},
			`rm $FILE 'it'\''s'`},
		{map[string]any{"kind": "shell", "commands": []any{cmd("", "xargs"), map[string]any{"argv": []any{"grep", "x"}, "via": "xargs", "moreArgs": true}}},
			`xargs grep x …`},
		{map[string]any{"kind": "edit", "writes": []any{"src/a b.go", "c.go"}, "reads": []any{"d.go"}}, `'src/a b.go' c.go`},
		{map[string]any{"kind": "read", "reads": []any{"d.go"}}, `d.go`},
		{map[string]any{"kind": "fetch", "url": "https://***@example.com/x"}, `https://***@example.com/x`},
		{map[string]any{"kind": "mcp"}, ``},
	}
	for _, tt := range tests {
		line, _ := json.Marshal(map[string]any{"details": map[string]any{"call": tt.call}})
		c := callOf(line)
		if c == nil {
			t.Fatalf("callOf(%s) = nil", line)
		}
		if got := target(c); got != tt.want {
			t.Errorf("target(%s) = %q, want %q", line, got, tt.want)
		}
	}
}

func TestPrintable(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"ls -la ünïcode 日本", "ls -la ünïcode 日本"},
		{"echo \x1b]0;pwned\x07\x1b[2J", `echo \x1b]0;pwned\x07\x1b[2J`},
		{"a\nb\tc\rd", `a\nb\tc\rd`},
		{"rm -rf /\u202e txt.exe", `rm -rf /\u202e txt.exe`},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"", ""},
		{" !~", " !~"},
		{"del\x7f", `del\x7f`},
		{"unit\x1f sep", `unit\x1f sep`},
	}
	for _, tt := range tests {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "0ms", 12 * time.Millisecond: "12ms", 1500 * time.Millisecond: "1.5s", 125 * time.Second: "2m5s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestCallOf: the call is read from details.call wherever the line puts it.
func TestCallOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line, want string
	}{
		{`{"event":"PreToolUse","reason":"\"details\": no","details":{"call":{"tool":"Bash","kind":"shell"}}}`, "Bash"},
		{`{"details":{"call":{"tool":"Write","kind":"write"}},"event":"PreToolUse"}`, "Write"},
		{`{"details":{"other":{"details":{"call":{"tool":"X"}}},"call":{"tool":"Read"}} }`, "Read"},
		{`{"event":"PreToolUse","details":{"decision":"deny"}}`, ""},
		{`{"event":"PreToolUse"}`, ""},
	}
	for _, tt := range tests {
		got := ""
		if c := callOf([]byte(tt.line)); c != nil {
			got = c.Tool
		}
		if got != tt.want {
			t.Errorf("callOf(%s) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
