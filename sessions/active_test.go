package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestActiveFindsTheWorkspacesSessionHoweverManyAreNewer: when `current` points at another
// workspace's session, the workspace's own active session is found through its pointer, not by
// looking through the newest records, so that however many sessions were started since (here
// more than the scan looks at) a run still attaches to it instead of starting another.
func TestActiveFindsTheWorkspacesSessionHoweverManyAreNewer(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	mine, err := s.Create(Params{Workspace: "/work/mine"})
	if err != nil {
		t.Fatal(err)
	}
	populate(t, s.Dir(), 60, 1800000000000) // newer records of other workspaces
	if err := s.SetCurrent(fmt.Sprintf("session-%d-%06d", 1800000000000+59*1000, 59)); err != nil {
		t.Fatal(err)
	}
	got, created, err := s.OpenActive("/work/mine", 50, func() Params { return Params{} })
	if err != nil {
		t.Fatal(err)
	}
	if created || got.ID != mine.ID {
		t.Errorf("OpenActive(/work/mine) = %s (created %v), want %s", got.ID, created, mine.ID)
	}
}

// TestActivePointerFollowsTheSessions: the pointer names the workspace's newest active session as
// sessions start, are updated and end; an older active session is found again once the newer one
// ends; a pointer that is missing or names something else is repaired by the next open.
func TestActivePointerFollowsTheSessions(t *testing.T) {
	t.Parallel()
	s, clk := newTestStore(t)
	pointer := func() string {
		t.Helper()
		id, err := readLinkID(s.activeLink("/work/a"))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	open := func() (string, bool) {
		t.Helper()
		sess, created, err := s.OpenActive("/work/a", 50, func() Params { return Params{} })
		if err != nil {
			t.Fatal(err)
		}
		return sess.ID, created
	}
	end := func(id string) {
		t.Helper()
		if _, err := s.Update(id, func(x *Session) error { x.End(StatusCompleted, clk.now()); return nil }); err != nil {
			t.Fatal(err)
		}
	}

	older, _ := s.Create(Params{Workspace: "/work/a"})
	newer, _ := s.Create(Params{Workspace: "/work/a"})
	if got := pointer(); got != newer.ID {
		t.Errorf("pointer = %q, want the newer session %s", got, newer.ID)
	}
	// Updating the older session does not move the pointer off the newer one.
	if _, err := s.Update(older.ID, func(x *Session) error { x.PlanIssue(1); return nil }); err != nil {
		t.Fatal(err)
	}
	// A session named with an earlier time does not either.
	named := "session-1600000000000-abcdef"
	if _, err := s.Create(Params{ID: named, Workspace: "/work/a"}); err != nil {
		t.Fatal(err)
	}
	if got := pointer(); got != newer.ID {
		t.Errorf("pointer = %q after updating older sessions, want %s", got, newer.ID)
	}
	if _, err := s.Create(Params{Workspace: "/work/b"}); err != nil { // current moves away
		t.Fatal(err)
	}
	if got, created := open(); created || got != newer.ID {
		t.Errorf("open = %s (created %v), want %s", got, created, newer.ID)
	}

	// The newer one ends: its pointer goes, and the older active one is found and pointed at.
	end(newer.ID)
	if got := pointer(); got != "" {
		t.Errorf("pointer = %q after its session ended, want none", got)
	}
	if got, created := open(); created || got != older.ID {
		t.Errorf("open = %s (created %v), want the older active %s", got, created, older.ID)
	}
	if got := pointer(); got != older.ID {
		t.Errorf("pointer = %q after the open, want %s", got, older.ID)
	}

	// A pointer at another workspace's session is not followed, and is repaired.
	b, err := s.Create(Params{Workspace: "/work/b"})
	if err != nil {
		t.Fatal(err)
	}
	s.setPointer(s.activeLink("/work/a"), b.ID)
	if got, created := open(); created || got != older.ID {
		t.Errorf("open with a wrong pointer = %s (created %v), want %s", got, created, older.ID)
	}
	if got := pointer(); got != older.ID {
		t.Errorf("pointer = %q, want it repaired to %s", got, older.ID)
	}

	// When every session of the workspace has ended, the next open starts one and points at it.
	end(older.ID)
	end(named)
	next, created := open()
	if !created || pointer() != next {
		t.Errorf("open after every end = %s (created %v), pointer %q", next, created, pointer())
	}

	// The pointers live in a folder that listings skip.
	list, problems, err := s.List(0)
	if err != nil || len(problems) != 0 || len(list) != 6 {
		t.Errorf("List = %d sessions, %v, %v; want 6 and no problems", len(list), problems, err)
	}
	if st, err := os.Stat(filepath.Join(s.Dir(), ActiveDir)); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Errorf("pointer folder: %v, %v", st, err)
	}
}

// TestActivePointerThatCannotBeWrittenIsOnlyAWarning: a pointer is a hint; a folder where it
// cannot be made leaves sessions working (found by looking through the records) with a warning.
func TestActivePointerThatCannotBeWrittenIsOnlyAWarning(t *testing.T) {
	t.Parallel()
	var warnings []error
	s, _ := newTestStore(t, WithWarnings(func(err error) { warnings = append(warnings, err) }))
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), ActiveDir), []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := s.Create(Params{Workspace: "/work/a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(Params{Workspace: "/work/b"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Active("/work/a", 50)
	if err != nil || got == nil || got.ID != a.ID {
		t.Errorf("Active = %v, %v; want %s", got, err, a.ID)
	}
	if len(warnings) == 0 {
		t.Error("no warning about the pointer that could not be written")
	}
}

func TestNewerID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"session-1700000000001-aaaaaa", "session-1700000000000-zzzzzz", true},
		{"session-1700000000000-zzzzzz", "session-1700000000001-aaaaaa", false},
		{"session-1700000000000-bbbbbb", "session-1700000000000-aaaaaa", true},
		{"session-99-a", "session-100-a", false}, // by time, not as text
	}
	for _, tt := range tests {
		if got := newerID(tt.a, tt.b); got != tt.want {
			t.Errorf("newerID(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
