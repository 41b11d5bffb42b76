package sessions

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPendingPushes: a mark is kept until cleared, listed oldest session first, and a mark that
// is not one is a problem, not a pending push.
func TestPendingPushes(t *testing.T) {
	t.Parallel()
	s := New(t.TempDir())
	if p, err := s.PushPending("session-1700000000000-aaaaaa"); p != nil || err != nil {
		t.Fatalf("no mark: %v, %v", p, err)
	}
	at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, id := range []string{"session-1700000002000-cccccc", "session-1700000000000-aaaaaa", "session-1700000001000-bbbbbb"} {
		if err := s.MarkPushPending(PendingPush{ID: id, Remote: "origin", Workspace: "/ws", Error: "timed out", Time: at}); err != nil {
			t.Fatal(err)
		}
	}
	// A later failure replaces the mark.
	if err := s.MarkPushPending(PendingPush{ID: "session-1700000001000-bbbbbb", Remote: "audit", Error: "refused", Time: at}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), pendingPushDir, "session-1700000003000-dddddd.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, problems, err := s.PendingPushes()
	if err != nil || len(problems) != 1 {
		t.Fatalf("PendingPushes: %v, problems %v", err, problems)
	}
	var got []string
	for _, p := range list {
		got = append(got, p.ID+" "+p.Remote+" "+p.Error)
	}
	want := []string{"session-1700000000000-aaaaaa origin timed out", "session-1700000001000-bbbbbb audit refused", "session-1700000002000-cccccc origin timed out"}
	if len(got) != len(want) {
		t.Fatalf("pending = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pending[%d] = %q, want %q", i, got[i], want[i])
		}
	}
	if p, err := s.PushPending("session-1700000000000-aaaaaa"); err != nil || p == nil || !p.Time.Equal(at) || p.Workspace != "/ws" {
		t.Errorf("PushPending = %+v, %v", p, err)
	}
	if err := s.ClearPushPending("session-1700000000000-aaaaaa"); err != nil {
		t.Fatal(err)
	}
	if err := s.ClearPushPending("session-1700000000000-aaaaaa"); err != nil {
		t.Errorf("clearing twice: %v", err)
	}
	if p, _ := s.PushPending("session-1700000000000-aaaaaa"); p != nil {
		t.Errorf("a cleared mark is still there: %+v", p)
	}
	if err := s.MarkPushPending(PendingPush{ID: "../x"}); err == nil {
		t.Error("a mark for an id that is no session id was written")
	}
	// The marks are no sessions.
	if sessions, _, _ := s.List(0); len(sessions) != 0 {
		t.Errorf("session list shows %d sessions", len(sessions))
	}
}
