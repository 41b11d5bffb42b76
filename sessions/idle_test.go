package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// wallClock is a clock that starts at the real time (file times are real) and is moved on by the
// test.
type wallClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *wallClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *wallClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newWallStore(t *testing.T) (*Store, *wallClock) {
	t.Helper()
	c := &wallClock{t: time.Now().Truncate(time.Millisecond)}
	return New(filepath.Join(t.TempDir(), "sessions"), WithClock(c.now)), c
}

// age sets the modification time of session id's files to at.
func age(t *testing.T, s *Store, id string, at time.Time) {
	t.Helper()
	for _, p := range []string{s.Path(id), s.EventsPath(id), s.headPath(id)} {
		if err := os.Chtimes(p, at, at); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

func TestEndIdle(t *testing.T) {
	t.Parallel()
	const limit = 24 * time.Hour
	tests := []struct {
		name    string
		idle    time.Duration // how long ago the session's files were last written
		limit   time.Duration
		held    bool
		ended   bool
		endedAt time.Duration // the end time, as how long before the clock
	}{
		{name: "idle longer than the limit", idle: 30 * time.Hour, limit: limit, ended: true, endedAt: 30 * time.Hour},
		{name: "idle less than the limit", idle: 23 * time.Hour, limit: limit},
		{name: "no limit", idle: 1000 * time.Hour, limit: 0},
		{name: "held by a process firing an event in it", idle: 30 * time.Hour, limit: limit, held: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, clk := newWallStore(t)
			sess, err := s.Create(Params{Workspace: "/w"})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Append(sess.ID, Event{Event: "PreToolUse", Name: "h", Status: "ok"}); err != nil {
				t.Fatal(err)
			}
			clk.add(48 * time.Hour)
			lastWrite := clk.now().Add(-tt.idle)
			age(t, s, sess.ID, lastWrite)
			if tt.held {
				release, err := s.Hold(sess.ID)
				if err != nil {
					t.Fatal(err)
				}
				defer release()
			}
			got, ended, err := s.EndIdle(sess.ID, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if ended != tt.ended {
				t.Fatalf("ended = %v, want %v", ended, tt.ended)
			}
			stored, err := s.Get(sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.ended {
				if !stored.Active() || stored.EndReason != "" || (got != nil && got.Status != StatusActive) {
					t.Errorf("session = %s (%q), want it left active", stored.Status, stored.EndReason)
				}
				return
			}
			if stored.Status != StatusInterrupted || stored.EndReason != EndReasonIdle {
				t.Errorf("session = %s (%q), want interrupted (idle)", stored.Status, stored.EndReason)
			}
			if want := clk.now().Add(-tt.endedAt).UTC(); !stored.EndTime.Equal(want.Truncate(time.Millisecond)) {
				t.Errorf("ended at %v, want its last activity %v", stored.EndTime, want)
			}
			if stored.Metadata.TotalDuration != stored.EndTime.Sub(stored.StartTime).Milliseconds() {
				t.Errorf("totalDuration %d", stored.Metadata.TotalDuration)
			}
			if stored.AuditHead == nil || stored.AuditHead.Seq != 1 {
				t.Errorf("the ended record keeps no head of its trail: %+v", stored.AuditHead)
			}
			// No longer the workspace's active session: the next run starts a new one.
			if active, err := s.Active("/w", 10); err != nil || active != nil {
				t.Errorf("Active = %v, %v; want none", active, err)
			}
		})
	}
}

// TestEndIdleReleasedHold: a session held while it looked idle is ended once the hold is
// released, and a session ended already is left as it is.
func TestEndIdleReleasedHold(t *testing.T) {
	t.Parallel()
	s, clk := newWallStore(t)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	clk.add(48 * time.Hour)
	age(t, s, sess.ID, clk.now().Add(-47*time.Hour))
	release, err := s.Hold(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ended, err := s.EndIdle(sess.ID, time.Hour); err != nil || ended {
		t.Fatalf("held: ended = %v, %v", ended, err)
	}
	release()
	if _, ended, err := s.EndIdle(sess.ID, time.Hour); err != nil || !ended {
		t.Fatalf("released: ended = %v, %v", ended, err)
	}
	if _, ended, err := s.EndIdle(sess.ID, time.Hour); err != nil || ended {
		t.Fatalf("ended again: %v, %v", ended, err)
	}
}

// TestEndIdleActivityCounts: what a session's activity is: the record, the trail or the head
// noted beside the record, whichever was written last.
func TestEndIdleActivityCounts(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"record", "trail", "head"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			s, clk := newWallStore(t)
			sess, err := s.Create(Params{Workspace: "/w"})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Append(sess.ID, Event{Event: "Stop", Name: "h", Status: "ok"}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(s.headPath(sess.ID)); err != nil {
				t.Fatal(err) // the append noted its head
			}
			clk.add(48 * time.Hour)
			age(t, s, sess.ID, clk.now().Add(-40*time.Hour))
			recent := clk.now().Add(-time.Hour)
			path := map[string]string{"record": s.Path(sess.ID), "trail": s.EventsPath(sess.ID), "head": s.headPath(sess.ID)}[file]
			if err := os.Chtimes(path, recent, recent); err != nil {
				t.Fatal(err)
			}
			if _, ended, err := s.EndIdle(sess.ID, 24*time.Hour); err != nil || ended {
				t.Errorf("ended = %v, %v; want the recent %s to keep it", ended, err, file)
			}
		})
	}
}

// BenchmarkHold is what holding its session costs every event (agent-hooks hook <agent> on every
// tool call): open (creating) .live/<id>, a shared flock, its release. The folder's size does not
// enter into it.
func BenchmarkHold(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			ids := populate(b, dir, n, 1700000000000)
			s := New(dir)
			id := ids[len(ids)-1]
			for b.Loop() {
				release, err := s.Hold(id)
				if err != nil {
					b.Fatal(err)
				}
				release()
			}
		})
	}
}

// BenchmarkEndIdleInUse is the idle check of a run that finds its workspace's session in use (its
// files written within the limit): what every such `agent-hooks run` pays.
func BenchmarkEndIdleInUse(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			populate(b, dir, n, 1700000000000)
			s := New(dir)
			sess, err := s.Create(Params{Workspace: "/w"})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, ended, err := s.EndIdle(sess.ID, 24*time.Hour); err != nil || ended {
					b.Fatal(ended, err)
				}
			}
		})
	}
}

// TestHoldThroughNoLink: a link planted as a session's hold file is not followed: the hold is
// refused (the event goes on, with a warning) rather than lock the file it points at, and the
// ender takes a planted link for a hold it cannot check, ending nothing.
func TestHoldThroughNoLink(t *testing.T) {
	t.Parallel()
	s, clk := newWallStore(t)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(elsewhere, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(s.Dir(), liveDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, s.livePath(sess.ID)); err != nil {
		t.Fatal(err)
	}
	if release, err := s.Hold(sess.ID); err == nil {
		release()
		t.Fatal("held through a symbolic link")
	}
	clk.add(48 * time.Hour)
	age(t, s, sess.ID, clk.now().Add(-47*time.Hour))
	if _, ended, err := s.EndIdle(sess.ID, time.Hour); err == nil || ended {
		t.Errorf("EndIdle = %v, %v; want an error and nothing ended", ended, err)
	}
}
