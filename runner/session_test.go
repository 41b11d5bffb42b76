package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

// issues is a session's issue bookkeeping, compared as a whole.
type issues struct {
	Current                    *int
	Planned, Completed, Failed []int
	Provider                   string
}

func issuesOf(s *sessions.Session) issues {
	return issues{Current: s.CurrentIssue, Planned: s.IssuesPlanned, Completed: s.IssuesCompleted, Failed: s.IssuesFailed, Provider: s.Provider}
}

func (i issues) String() string {
	cur := "nil"
	if i.Current != nil {
		cur = fmt.Sprint(*i.Current)
	}
	return fmt.Sprintf("current %s planned %v completed %v failed %v provider %q", cur, i.Planned, i.Completed, i.Failed, i.Provider)
}

func intp(n int) *int { return &n }

// TestIssueBookkeeping: PreExecutionStart with issueNumber sets the current issue and plans it (a
// blocked start only plans it); PostExecutionEnd files it under completed or failed by the
// payload's success and clears the current issue; the first payload naming a provider records it.
func TestIssueBookkeeping(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {"PreExecutionStart": [
		{"name": "freeze", "command": "grep -q '\"issueNumber\":5' && { echo 'issue 5 is frozen' >&2; exit 2; } || true"}]}}`)
	id := "session-1700000000000-issues"
	steps := []struct {
		event string
		data  hooks.Payload
		want  issues
	}{
		{hooks.PreExecutionStart, hooks.Payload{"issueNumber": json.Number("3"), "issueTitle": "Fix login"},
			issues{Current: intp(3), Planned: []int{3}}},
		{hooks.PostExecutionEnd, hooks.Payload{"issueNumber": json.Number("3"), "success": true},
			issues{Planned: []int{3}, Completed: []int{3}}},
		{hooks.PreExecutionStart, hooks.Payload{"issueNumber": 4.0},
			issues{Current: intp(4), Planned: []int{3, 4}, Completed: []int{3}}},
		{hooks.PostExecutionEnd, hooks.Payload{"issueNumber": 4.0, "success": false},
			issues{Planned: []int{3, 4}, Completed: []int{3}, Failed: []int{4}}},
		// A retried issue that now succeeds moves from failed to completed.
		{hooks.PreExecutionStart, hooks.Payload{"issueNumber": "4"},
			issues{Current: intp(4), Planned: []int{3, 4}, Completed: []int{3}, Failed: []int{4}}},
		{hooks.PostExecutionEnd, hooks.Payload{"issueNumber": "4", "success": "true"},
			issues{Planned: []int{3, 4}, Completed: []int{3, 4}}},
		// A blocked start plans the issue but does not make it current.
		{hooks.PreExecutionStart, hooks.Payload{"issueNumber": json.Number("5")},
			issues{Planned: []int{3, 4, 5}, Completed: []int{3, 4}}},
		// "#6" is issue 6; a value that is no issue number is not recorded.
		{hooks.PreExecutionStart, hooks.Payload{"issueNumber": "#6"},
			issues{Current: intp(6), Planned: []int{3, 4, 5, 6}, Completed: []int{3, 4}}},
		{hooks.PreExecutionStart, hooks.Payload{"issueNumber": "abc"},
			issues{Current: intp(6), Planned: []int{3, 4, 5, 6}, Completed: []int{3, 4}}},
		// Other events record nothing; the first provider named is kept.
		{hooks.PostIteration, hooks.Payload{"issueNumber": 9.0, "provider": "gemini"},
			issues{Current: intp(6), Planned: []int{3, 4, 5, 6}, Completed: []int{3, 4}, Provider: "gemini"}},
		{hooks.PostExecutionEnd, hooks.Payload{"issueNumber": 6.0, "success": json.Number("0"), "provider": "claude"},
			issues{Planned: []int{3, 4, 5, 6}, Completed: []int{3, 4}, Failed: []int{6}, Provider: "gemini"}},
	}
	for i, st := range steps {
		out := h.fire(Request{Event: st.event, Data: st.data, SessionID: id})
		if got := issuesOf(h.session(id)); got.String() != st.want.String() {
			t.Errorf("step %d (%s %v, blocked %v):\n got %s\nwant %s", i, st.event, st.data, out.Blocked(), got, st.want)
		}
	}
	if !strings.Contains(h.stderr.String(), "agent-hooks: warning: session "+id+": issueNumber abc is not an issue number; not recorded") {
		t.Errorf("no warning for issueNumber abc: %q", h.stderr.String())
	}
}

func TestIssueNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want int
		ok   bool
	}{
		{json.Number("42"), 42, true}, {json.Number("4.5"), 0, false}, {42.0, 42, true}, {4.5, 4, false},
		{7, 7, true}, {int64(8), 8, true}, {"42", 42, true}, {" #42 ", 42, true}, {"abc", 0, false},
		{"", 0, false}, {true, 0, false}, {nil, 0, false},
	}
	for _, tt := range tests {
		if got, ok := issueNumber(tt.in); ok != tt.ok || ok && got != tt.want {
			t.Errorf("issueNumber(%#v) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestTruthy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       any
		def, out bool
	}{
		{true, false, true}, {false, true, false}, {"true", false, true}, {" false ", true, false},
		{"yes", true, true}, {"yes", false, false}, {json.Number("0"), true, false}, {json.Number("2"), false, true},
		{0.0, true, false}, {1.0, false, true}, {nil, true, true}, {nil, false, false},
	}
	for _, tt := range tests {
		if got := truthy(tt.in, tt.def); got != tt.out {
			t.Errorf("truthy(%#v, %v) = %v", tt.in, tt.def, got)
		}
	}
}

// TestAuditTrail: every hook execution is one line of the session's audit trail, a hook that did
// not run included, and a later event appends to it.
func TestAuditTrail(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {
		"PreExecutionEnd": [
			{"name": "fmt", "command": "echo formatted"},
			{"name": "off", "command": "echo never", "enabled": false},
			{"name": "warn", "command": "echo flaky >&2; exit 1"},
			{"name": "gate", "command": "echo 'no tests' >&2; exit 2"},
			{"name": "after", "command": "echo not reached"}],
		"PostExecutionEnd": [{"name": "report", "command": "echo '{\"decision\": \"approve\", \"reason\": \"looks good\"}'"}]}}`)
	out := h.fire(Request{Event: hooks.PreExecutionEnd})
	if !out.Blocked() {
		t.Fatal("the gate did not block")
	}
	h.fire(Request{Event: hooks.PostExecutionEnd})
	var got []string
	for _, e := range h.trail(out.Result.SessionID) {
		got = append(got, fmt.Sprintf("%s %s %s %s %d %s %s", e.Event, e.Name, e.Source, e.Status, e.ExitCode, e.Decision, e.Reason))
	}
	want := []string{
		"PreExecutionEnd fmt project ok 0  ",
		"PreExecutionEnd off project skipped 0  disabled in config (enabled: false)",
		"PreExecutionEnd warn project error 1  exited with status 1: flaky",
		"PreExecutionEnd gate project blocked 2 block no tests",
		"PostExecutionEnd report project ok 0 approve looks good",
	}
	if !slices.Equal(got, want) {
		t.Errorf("audit trail:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAuditTrailFailureIsReportedOnce: a trail that cannot be written is reported once per event
// and does not change its outcome.
func TestAuditTrailFailureIsReportedOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {"Stop": [{"command": "true"}, {"command": "echo no >&2; exit 2"}]}}`)
	id := "session-1700000000000-audit"
	h.fire(Request{Event: hooks.PostExecutionStart, SessionID: id})
	// A directory where the trail should be: every append fails.
	if err := os.Remove(h.r.Store().EventsPath(id)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.Mkdir(h.r.Store().EventsPath(id), 0o755); err != nil {
		t.Fatal(err)
	}
	out := h.fire(Request{Event: hooks.Stop, SessionID: id})
	if !out.Blocked() || out.Result.Reason != "no" || len(out.Result.Hooks) != 2 {
		t.Errorf("outcome changed: %+v", out.Result)
	}
	if n := strings.Count(h.stderr.String(), "agent-hooks: warning: audit trail: "); n != 1 {
		t.Errorf("%d audit trail warnings, want 1: %q", n, h.stderr.String())
	}
}

// TestConcurrentFiresOfOneSession: runs firing at once in one workspace agree on one session and
// lose no update of it, nor a line of its trail.
func TestConcurrentFiresOfOneSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {"PreExecutionStart": [{"name": "start", "command": "true"}], "PostExecutionEnd": [{"name": "end", "command": "true"}]}}`)
	const n = 8
	fireAll := func(event string, data func(i int) hooks.Payload) {
		var wg sync.WaitGroup
		for i := 1; i <= n; i++ {
			wg.Go(func() {
				if _, err := h.r.Fire(t.Context(), Request{Event: event, Data: data(i)}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	fireAll(hooks.PreExecutionStart, func(i int) hooks.Payload { return hooks.Payload{"issueNumber": i} })
	fireAll(hooks.PostExecutionEnd, func(i int) hooks.Payload { return hooks.Payload{"issueNumber": i, "success": i%2 == 1} })
	ids := h.sessionIDs()
	if len(ids) != 1 {
		t.Fatalf("%d sessions, want 1: %v", len(ids), ids)
	}
	s := h.session(ids[0])
	sorted := func(l []int) []int { l = slices.Clone(l); slices.Sort(l); return l }
	got := issues{Current: s.CurrentIssue, Planned: sorted(s.IssuesPlanned), Completed: sorted(s.IssuesCompleted), Failed: sorted(s.IssuesFailed)}
	want := issues{Planned: []int{1, 2, 3, 4, 5, 6, 7, 8}, Completed: []int{1, 3, 5, 7}, Failed: []int{2, 4, 6, 8}}
	if got.String() != want.String() {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if trail := h.trail(ids[0]); len(trail) != 2*n {
		t.Errorf("%d trail lines, want %d", len(trail), 2*n)
	}
}

// TestEventNotesTheTrailHeadWithoutWritingTheRecord: an event whose hooks only appended to the
// audit trail has the trail's new head noted beside the record (by sessions.Store.Append), and
// neither rewrites the record (a lock and two syncs, on every tool call of an agent) nor, once
// the note exists, changes the sessions folder, so that `session list`'s newest index still
// stands while an agent runs. verify holds the trail's end against the noted head: a line cut
// from the end is found.
func TestEventNotesTheTrailHeadWithoutWritingTheRecord(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {"PreExecutionEnd": [{"name": "a", "command": "true"}, {"name": "b", "command": "true"}]}}`)
	h.fire(Request{Event: "PreExecutionEnd"})
	id := h.current()
	store := h.r.Store()
	record, err := os.ReadFile(store.Path(id))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(store.Path(id))
	old := time.Unix(1700000000, 0)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	h.fire(Request{Event: "PreExecutionEnd"})
	if now, err := os.ReadFile(store.Path(id)); err != nil || string(now) != string(record) {
		t.Errorf("the record was rewritten (%v):\n%s\nwas\n%s", err, now, record)
	}
	if st, err := os.Stat(dir); err != nil || !st.ModTime().Equal(old) {
		t.Errorf("the sessions folder changed: %v", err)
	}
	sess, err := store.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if sess.AuditHead == nil || sess.AuditHead.Seq != 4 {
		t.Fatalf("head = %+v, want seq 4", sess.AuditHead)
	}
	verify := func() *sessions.Verification {
		t.Helper()
		r, err := store.OpenTrail(id)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		v, err := sessions.VerifyTrail(r, "trail", id, sess.AuditHead)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := verify(); !v.OK() || v.AfterHead != 0 || v.Chained != 4 {
		t.Errorf("verify = %+v", v)
	}
	trail, err := os.ReadFile(store.EventsPath(id))
	if err != nil {
		t.Fatal(err)
	}
	cut := trail[:bytes.LastIndexByte(trail[:len(trail)-1], '\n')+1]
	if err := os.WriteFile(store.EventsPath(id), cut, 0o600); err != nil {
		t.Fatal(err)
	}
	if v := verify(); v.OK() {
		t.Errorf("verify of a trail cut short of its noted head = %+v, want a failure", v)
	}
}

// verifyLikeTheCLI verifies session id's trail as `session verify` reads it: the snapshot's head,
// up to the snapshot's size.
func verifyLikeTheCLI(t *testing.T, store *sessions.Store, id string) *sessions.Verification {
	t.Helper()
	sess, size, err := store.Snapshot(id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := store.OpenTrail(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v, err := sessions.VerifyTrail(io.LimitReader(r, size), "trail", id, sess.AuditHead)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestNextEventDoesNotMendACutTrail: lines cut from the end of the trail (with its head note
// left, removed or damaged) make verify fail, and the next event does not make it pass again: its
// first line says the trail was found cut, and verify reports that line from then on, agent
// adapters' own lines (Record) included.
func TestNextEventDoesNotMendACutTrail(t *testing.T) {
	t.Parallel()
	for _, note := range []string{"left", "removed", "damaged"} {
		t.Run("note "+note, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, `{"hooks": {"PreToolUse": [{"name": "a", "command": "true"}, {"name": "b", "command": "true"}]}}`)
			id := "session-1700000000000-cut"
			for range 3 {
				h.fire(Request{Event: hooks.PreToolUse, SessionID: id})
			}
			store := h.r.Store()
			if v := verifyLikeTheCLI(t, store, id); !v.OK() || v.Chained != 6 {
				t.Fatalf("before the cut: %+v", v)
			}
			trail, err := os.ReadFile(store.EventsPath(id))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(trail), "\n")
			if err := os.WriteFile(store.EventsPath(id), []byte(strings.Join(lines[:3], "")), 0o600); err != nil {
				t.Fatal(err)
			}
			notePath := strings.TrimSuffix(store.EventsPath(id), ".events.jsonl") + ".head"
			switch note {
			case "removed":
				os.Remove(notePath)
			case "damaged":
				os.WriteFile(notePath, []byte("{}"), 0o600)
			}
			if v := verifyLikeTheCLI(t, store, id); v.OK() {
				t.Errorf("right after the cut: %+v, want a failure", v)
			}
			h.fire(Request{Event: hooks.PreToolUse, SessionID: id})
			if _, err := h.r.Record(Request{Event: hooks.PreToolUse, SessionID: id}, sessions.Event{Event: hooks.PreToolUse, Name: "claude", Status: "ok"}); err != nil {
				t.Fatal(err)
			}
			v := verifyLikeTheCLI(t, store, id)
			if v.OK() || v.Break == nil || v.Break.Kind != "found" || v.Break.Line != 4 {
				t.Errorf("after the next event: %+v, break %+v; want line 4 to say the trail was found cut", v, v.Break)
			}
		})
	}
}
