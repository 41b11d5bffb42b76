package approval

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/progress/progresstest"
	"github.com/autoagent/agent-hooks/internal/testkit"
)

func localRunner(t *testing.T, l *Local, timeout time.Duration, opts string) (hooks.Task, *hooks.Hook) {
	t.Helper()
	h := &hooks.Hook{Name: "gate", Type: TypeName, Event: hooks.PreExecutionEnd, Timeout: timeout, Enabled: true}
	r, err := NewType(map[string]Provider{"local": l}).Configure(h, json.RawMessage(opts))
	if err != nil {
		t.Fatalf("configure %s: %v", opts, err)
	}
	return r, h
}

func localInvocation(h *hooks.Hook, p hooks.Payload, stderr io.Writer) *hooks.Invocation {
	return &hooks.Invocation{
		Hook: h, Event: h.Event, Payload: p, Workspace: "/work/ws", SessionID: "session-1-aaaaaa",
		Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: stderr,
	}
}

// pending waits for the store's only pending request to appear.
func pending(t *testing.T, s *Store) *Request {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		list, _, err := s.List()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list {
			if r.State == StatePending {
				return r
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no pending request appeared")
	return nil
}

func runAsync(ctx context.Context, r hooks.Task, inv *hooks.Invocation) <-chan hooks.Outcome {
	ch := make(chan hooks.Outcome, 1)
	go func() { ch <- r.Run(ctx, inv) }()
	return ch
}

func TestLocalDecidedFromAnotherProcess(t *testing.T) {
	t.Parallel()
	payload := hooks.Payload{"eventName": "PreExecutionEnd", "issueNumber": float64(42), "issueTitle": `Fix "login" $(rm -rf ~) ; echo`}
	tests := []struct {
		state      string
		reason     string
		wantStatus hooks.Status
		wantReason string
	}{
		{StateApproved, "ship it", hooks.StatusOK, "approved by ann: ship it"},
		{StateRejected, "tests are red", hooks.StatusBlocked, "rejected by ann: tests are red"},
		{StateRejected, "", hooks.StatusBlocked, "rejected by ann"},
	}
	for _, tt := range tests {
		t.Run(tt.state+"/"+tt.reason, func(t *testing.T) {
			t.Parallel()
			l := NewLocal(LocalOptions{Dir: t.TempDir(), PollInterval: 10 * time.Millisecond, PID: 4242})
			r, h := localRunner(t, l, time.Minute, `{"message": "Ship #{{issueNumber}}: {{issueTitle}}?"}`)
			var stderr syncBuffer
			done := runAsync(context.Background(), r, localInvocation(h, payload, &stderr))

			req := pending(t, l.Store())
			if want := `Ship #42: Fix "login" $(rm -rf ~) ; echo?`; req.Message != want {
				t.Errorf("message: got %q, want %q (payload values verbatim)", req.Message, want)
			}
			if req.SessionID != "session-1-aaaaaa" || req.Event != hooks.PreExecutionEnd || req.Hook != "gate" || req.PID != 4242 || req.TimeoutAction != "block" {
				t.Errorf("request: %+v", req)
			}
			// What `agent-hooks approvals approve|reject` does, through a second store on the same directory.
			if _, err := NewStore(l.Store().Dir).Decide(req.ID, tt.state, Decision{By: "ann", Via: "cli", Reason: tt.reason}); err != nil {
				t.Fatal(err)
			}
			out := <-done
			if out.Status != tt.wantStatus || out.Reason != tt.wantReason {
				t.Errorf("outcome: got %s %q, want %s %q", out.Status, out.Reason, tt.wantStatus, tt.wantReason)
			}
			if out.Details["requestId"] != req.ID || out.Details["decider"] != "ann" || out.Details["via"] != "cli" {
				t.Errorf("details: %v", out.Details)
			}
			if !strings.Contains(stderr.String(), "agent-hooks approvals approve "+req.ID) {
				t.Errorf("stderr does not say how to approve:\n%s", stderr.String())
			}
		})
	}
}

func TestLocalTimeout(t *testing.T) {
	t.Parallel()
	for _, action := range []string{"block", "approve"} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			l := NewLocal(LocalOptions{Dir: t.TempDir(), PollInterval: 10 * time.Millisecond})
			r, h := localRunner(t, l, 300*time.Millisecond, `{"timeoutAction": "`+action+`"}`)
			// The engine runs built-ins under the hook's timeout; the provider must decide first.
			ctx, cancel := context.WithTimeout(context.Background(), h.Timeout)
			defer cancel()
			// Whether the provider's own timer or the engine's deadline ends the wait depends on
			// scheduling; either way the outcome is the timeoutAction's, which is what is asserted.
			out := r.Run(ctx, localInvocation(h, hooks.Payload{}, io.Discard))
			wantStatus := map[string]hooks.Status{"block": hooks.StatusBlocked, "approve": hooks.StatusOK}[action]
			if out.Status != wantStatus || !strings.HasPrefix(out.Reason, "no decision within") {
				t.Errorf("outcome: got %s %q, want %s after no decision", out.Status, out.Reason, wantStatus)
			}
			if !strings.Contains(out.Reason, "(timeoutAction: "+action+")") {
				t.Errorf("reason %q does not name the timeoutAction", out.Reason)
			}
			list, _, _ := l.Store().List()
			if len(list) != 1 || list[0].State != StateExpired || list[0].Decision.Via != "timeout" {
				t.Errorf("request after the timeout: %+v", list[0])
			}
			// Too late to decide now.
			var decided *DecidedError
			if _, err := l.Store().Decide(list[0].ID, StateApproved, Decision{By: "late"}); !errors.As(err, &decided) {
				t.Errorf("deciding an expired request: got %v, want a DecidedError", err)
			}
		})
	}
}

func TestLocalInterrupted(t *testing.T) {
	t.Parallel()
	l := NewLocal(LocalOptions{Dir: t.TempDir(), PollInterval: 10 * time.Millisecond})
	r, h := localRunner(t, l, time.Minute, `{}`)
	ctx, cancel := context.WithCancel(context.Background())
	done := runAsync(ctx, r, localInvocation(h, hooks.Payload{}, io.Discard))
	req := pending(t, l.Store())
	cancel()
	out := <-done
	if out.Status != hooks.StatusBlocked || !strings.Contains(out.Reason, "local approval could not be decided: interrupted") {
		t.Errorf("outcome: %s %q", out.Status, out.Reason)
	}
	if got, _ := l.Store().Get(req.ID); got.State != StateCancelled {
		t.Errorf("state after interrupt: %s, want cancelled", got.State)
	}
}

// TestLocalCannotRecordTheRequest: a request that cannot be recorded cannot be answered, and
// the approval blocks, saying why.
func TestLocalCannotRecordTheRequest(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "approvals")
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l := NewLocal(LocalOptions{Dir: dir, PollInterval: 10 * time.Millisecond})
	r, h := localRunner(t, l, time.Minute, `{"timeoutAction": "approve"}`)
	out := r.Run(context.Background(), localInvocation(h, hooks.Payload{}, io.Discard))
	if out.Status != hooks.StatusBlocked || out.Decision != hooks.DecisionBlock {
		t.Fatalf("outcome: %s %q, want blocked", out.Status, out.Reason)
	}
	if want := "local approval could not be decided: record the approval request: create " + dir; !strings.Contains(out.Reason, want) {
		t.Errorf("reason %q, want it to contain %q", out.Reason, want)
	}
}

func TestLocalOptions(t *testing.T) {
	t.Parallel()
	l := NewLocal(LocalOptions{Dir: t.TempDir()})
	for opts, want := range map[string]string{
		`{"timeoutAction": "skip"}`: `timeoutAction: "skip" is not block or approve`,
		`{"mesage": "x"}`:           `unknown field "mesage"`,
		`{"provider": "locl"}`:      `unknown approval provider "locl" (known: local); did you mean "local"?`,
	} {
		_, err := NewType(map[string]Provider{"local": l}).Configure(&hooks.Hook{}, json.RawMessage(opts))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", opts, err, want)
		}
	}
}

// syncBuffer is the tests' shared buffer for concurrent writes.
type syncBuffer = testkit.Buffer

func TestStoreResolve(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir())
	var ids []string
	for range 3 {
		r := &Request{Event: "Stop"}
		if err := s.Create(r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	for _, id := range ids {
		for _, q := range []string{id, strings.TrimPrefix(id, "apr-"), id[:len(id)-1]} {
			got, err := s.Resolve(q)
			if err != nil && !strings.Contains(err.Error(), "ambiguous") || err == nil && got != id {
				t.Errorf("Resolve(%q): got %q, %v; want %q", q, got, err, id)
			}
		}
	}
	if _, err := s.Resolve("apr-zzzzzzzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := s.Resolve("apr-"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("a prefix of all: %v", err)
	}
	if _, err := s.Get("../etc/passwd"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get with a path: %v", err)
	}
	info, err := os.Stat(s.path(ids[0]))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("request file mode: %v %v", info, err)
	}
}

// TestStoreDecideOnce: of many concurrent deciders exactly one wins.
func TestStoreDecideOnce(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir())
	r := &Request{Event: "Stop"}
	if err := s.Create(r); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			state := StateApproved
			if i%2 == 1 {
				state = StateRejected
			}
			_, err := NewStore(s.Dir).Decide(r.ID, state, Decision{By: "p", Via: "cli"})
			var decided *DecidedError
			switch {
			case err == nil:
				mu.Lock()
				wins++
				mu.Unlock()
			case !errors.As(err, &decided):
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d deciders won, want 1", wins)
	}
}

// TestStorePrune: creating a request removes those decided (or abandoned) more than KeepDecided
// ago, and keeps the rest.
func TestStorePrune(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := &Store{Dir: t.TempDir(), Now: func() time.Time { return now }}
	old := now.Add(-KeepDecided - time.Hour)
	mk := func(expires time.Time, decidedAt time.Time) string {
		r := &Request{Event: "Stop", ExpiresAt: expires}
		if err := s.Create(r); err != nil {
			t.Fatal(err)
		}
		if !decidedAt.IsZero() {
			if _, err := s.Decide(r.ID, StateApproved, Decision{Via: "cli", At: decidedAt}); err != nil {
				t.Fatal(err)
			}
		}
		return r.ID
	}
	oldDecided := mk(old, old)
	abandoned := mk(old, time.Time{})
	recent := mk(now.Add(-time.Hour), now.Add(-time.Hour))
	waiting := mk(now.Add(time.Hour), time.Time{})
	mk(now.Add(time.Hour), time.Time{}) // this Create prunes
	for id, want := range map[string]bool{oldDecided: false, abandoned: false, recent: true, waiting: true} {
		_, err := s.Get(id)
		if got := err == nil; got != want {
			t.Errorf("%s kept = %v, want %v", id, got, want)
		}
	}
}

func TestRequestStateAt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		r    Request
		want string
	}{
		{Request{State: StatePending, ExpiresAt: now.Add(time.Minute)}, StatePending},
		{Request{State: StatePending, ExpiresAt: now.Add(-time.Second)}, StatePending}, // the waiting run is deciding now
		{Request{State: StatePending, ExpiresAt: now.Add(-time.Minute)}, StateExpired}, // it died before recording it
		{Request{State: StateApproved, ExpiresAt: now.Add(-time.Minute)}, StateApproved},
	}
	for i, tt := range tests {
		if got := tt.r.StateAt(now); got != tt.want {
			t.Errorf("%d: got %s, want %s", i, got, tt.want)
		}
	}
}

// TestStoreIDFromFileName: a request is known by its file's name. A file whose "id" says something
// else (a foreign or hand-edited file, say "../../x") is not a request: deciding it must not write
// outside the approvals folder, and list reports it instead of showing it.
func TestStoreIDFromFileName(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	s := NewStore(filepath.Join(base, "home", "approvals"))
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const id = "apr-aaaaaaaa"
	forged := `{"id": "../../escaped", "state": "pending", "event": "Stop", "expiresAt": "2999-01-01T00:00:00Z"}`
	if err := os.WriteFile(filepath.Join(s.Dir, id+".json"), []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	_, decideErr := s.Decide(id, StateApproved, Decision{By: "ann", Via: "cli"})
	if _, err := os.Stat(filepath.Join(base, "escaped.json")); err == nil {
		t.Errorf("deciding %s wrote %s, outside the approvals folder", id, filepath.Join(base, "escaped.json"))
	}
	if decideErr == nil {
		t.Errorf("deciding a request whose file names another id succeeded")
	}
	list, problems, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		if r.ID != id {
			t.Errorf("list shows a request as %q", r.ID)
		}
	}
	if len(list) != 0 || len(problems) != 1 {
		t.Errorf("list: got %d requests and problems %v, want the file reported as a problem", len(list), problems)
	}
}

// TestLocalProgress: without a terminal to ask on, the wait reports its status (what, where to
// approve, until when) and ends it when decided; asking at the terminal, it reports nothing, the
// prompt being what the person sees.
func TestLocalProgress(t *testing.T) {
	t.Parallel()
	for _, onTerminal := range []bool{false, true} {
		t.Run(map[bool]string{false: "no terminal", true: "asked at the terminal"}[onTerminal], func(t *testing.T) {
			t.Parallel()
			o := LocalOptions{Dir: t.TempDir(), PollInterval: 10 * time.Millisecond}
			if onTerminal {
				o.Terminal = &Terminal{In: strings.NewReader("y fine\n"), Out: io.Discard}
			}
			l := NewLocal(o)
			r, h := localRunner(t, l, time.Minute, `{}`)
			rec := &progresstest.Recorder{}
			inv := localInvocation(h, hooks.Payload{}, io.Discard)
			inv.Progress = rec
			done := runAsync(context.Background(), r, inv)
			if !onTerminal {
				req := pending(t, l.Store())
				if _, err := NewStore(l.Store().Dir).Decide(req.ID, StateApproved, Decision{By: "ann", Via: "cli"}); err != nil {
					t.Fatal(err)
				}
				if out := <-done; out.Status != hooks.StatusOK {
					t.Fatalf("outcome %+v", out)
				}
				waits := rec.Waits()
				if len(waits) != 1 {
					t.Fatalf("%d waits reported, want 1", len(waits))
				}
				w := waits[0]
				if w.What != "approval "+req.ID+" pending" || w.Where != "agent-hooks approvals approve "+req.ID {
					t.Errorf("wait %q at %q", w.What, w.Where)
				}
				if d := w.Details(); len(d) != 1 || !strings.HasPrefix(d[0], "until ") {
					t.Errorf("details %q, want the deadline", d)
				}
				if w.DoneCount() != 1 {
					t.Errorf("ended %d times, want once", w.DoneCount())
				}
				return
			}
			if out := <-done; out.Status != hooks.StatusOK {
				t.Fatalf("outcome %+v", out)
			}
			if waits := rec.Waits(); len(waits) != 0 {
				t.Errorf("a status under the terminal's prompt: %+v", waits[0])
			}
		})
	}
}
