package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// files lists the sessions folder, sub-folders included, relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestPrune(t *testing.T) {
	t.Parallel()
	s, clk := newWallStore(t)
	mk := func(id string, p Params, end time.Duration, status Status) *Session {
		t.Helper()
		p.ID = id
		sess, err := s.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Append(id, Event{Event: "PreToolUse", Name: "h", Status: "ok"}); err != nil {
			t.Fatal(err)
		}
		if status != StatusActive {
			if sess, err = s.Update(id, func(x *Session) error { x.End(status, clk.now().Add(-end)); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		return sess
	}
	old := mk("session-1000-aaa", Params{Workspace: "/w"}, 10*24*time.Hour, StatusCompleted)
	v := map[string]int{}
	if err := s.State(old.ID, "iteratr").Update(&v, func() (bool, error) { v["n"] = 1; return true, nil }); err != nil {
		t.Fatal(err)
	}
	// An agent's session: its index entry goes with it.
	agentOld, _, err := s.OpenAgent("claude", "conv-1", func() Params { return Params{Workspace: "/w"} })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(agentOld.ID, func(x *Session) error { x.End(StatusInterrupted, clk.now().Add(-9*24*time.Hour)); return nil }); err != nil {
		t.Fatal(err)
	}
	// A session whose id the old one's is a prefix of: none of its files go.
	prefixed := mk("session-1000-aaab", Params{Workspace: "/w"}, time.Hour, StatusFailed)
	mk("session-1001-bbb", Params{Workspace: "/w"}, 0, StatusActive)                      // active: never
	held := mk("session-1002-ccc", Params{Workspace: "/w"}, 8*24*time.Hour, StatusFailed) // held: kept
	pending := mk("session-1003-ddd", Params{Workspace: "/w"}, 8*24*time.Hour, StatusCompleted)
	if err := s.MarkPushPending(PendingPush{ID: pending.ID, Remote: "origin", Workspace: "/w", Error: "offline"}); err != nil {
		t.Fatal(err)
	}
	current := mk("session-1004-eee", Params{Workspace: "/w"}, 30*24*time.Hour, StatusCompleted) // current: kept
	release, err := s.Hold(held.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	before := files(t, s.Dir())

	res, err := s.Prune(PruneOptions{OlderThan: 7 * 24 * time.Hour, Dry: true})
	if err != nil || len(res.Problems) > 0 {
		t.Fatal(err, res.Problems)
	}
	removed, kept := res.Removed, res.Kept
	if got := files(t, s.Dir()); !slices.Equal(got, before) {
		t.Fatalf("a dry run changed the folder:\n%v\n%v", before, got)
	}
	var ids []string
	for _, p := range removed {
		ids = append(ids, p.ID)
	}
	slices.Sort(ids)
	if want := []string{agentOld.ID, old.ID}; !slices.Equal(ids, slices.Sorted(slices.Values(want))) {
		t.Errorf("would remove %v, want %v", ids, want)
	}
	keptIDs := map[string]string{}
	for _, k := range kept {
		keptIDs[k.ID] = k.Reason
	}
	for _, id := range []string{held.ID, pending.ID, current.ID} {
		if keptIDs[id] == "" {
			t.Errorf("%s kept without a word (kept: %v)", id, keptIDs)
		}
	}

	res, err = s.Prune(PruneOptions{OlderThan: 7 * 24 * time.Hour})
	if err != nil || len(res.Problems) > 0 {
		t.Fatal(err, res.Problems)
	}
	removed = res.Removed
	if len(removed) != 2 {
		t.Fatalf("removed %+v", removed)
	}
	for _, p := range removed {
		if p.ID == old.ID {
			want := []string{old.ID + ".events.jsonl", old.ID + ".head", old.ID + ".iteratr.json", old.ID + ".iteratr.json.lock", old.ID + ".json"}
			if !slices.Equal(p.Files, want) {
				t.Errorf("removed files %v, want %v", p.Files, want)
			}
		}
	}
	after := files(t, s.Dir())
	for _, f := range after {
		for _, id := range []string{old.ID, agentOld.ID} {
			if f == id+".json" || f == id+".events.jsonl" || f == id+".head" || f == filepath.ToSlash(filepath.Join(liveDir, id)) {
				t.Errorf("%s is left", f)
			}
		}
		if filepath.Dir(f) == filepath.Join(agentIndexDir, "claude") {
			t.Errorf("the agent index keeps %s", f)
		}
	}
	for _, id := range []string{prefixed.ID, held.ID, pending.ID, current.ID, "session-1001-bbb"} {
		if _, err := s.Get(id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		if _, err := os.Stat(s.EventsPath(id)); err != nil {
			t.Errorf("%s lost its trail: %v", id, err)
		}
	}
	// The agent's session id, seen again, starts a new session.
	again, created, err := s.OpenAgent("claude", "conv-1", func() Params { return Params{Workspace: "/w"} })
	if err != nil || !created || again.ID == agentOld.ID {
		t.Errorf("OpenAgent after prune = %v, created %v, %v", again, created, err)
	}
}

// TestPruneIdle: with an idle limit, an active session idle for longer is ended on the way
// (a dry run only says so) and pruned when its last activity is old enough; a recent one stays.
func TestPruneIdle(t *testing.T) {
	t.Parallel()
	s, clk := newWallStore(t)
	abandoned, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	recent, err := s.Create(Params{ID: "session-1-recent", Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetCurrent(recent.ID); err != nil {
		t.Fatal(err)
	}
	clk.add(30 * 24 * time.Hour)
	age(t, s, abandoned.ID, clk.now().Add(-20*24*time.Hour))
	age(t, s, recent.ID, clk.now().Add(-time.Hour))
	opts := PruneOptions{OlderThan: 7 * 24 * time.Hour, Dry: true, IdleLimit: func(*Session) (time.Duration, error) { return 24 * time.Hour, nil }}

	res, err := s.Prune(opts)
	if err != nil || len(res.Problems) > 0 {
		t.Fatal(err, res.Problems)
	}
	removed, ended := res.Removed, res.EndedIdle
	if len(removed) != 1 || removed[0].ID != abandoned.ID || removed[0].Status != StatusInterrupted || !slices.Equal(ended, []string{abandoned.ID}) {
		t.Fatalf("dry run: removed %+v, ended %v", removed, ended)
	}
	if got, _ := s.Get(abandoned.ID); !got.Active() {
		t.Fatalf("a dry run ended %s", abandoned.ID)
	}

	opts.Dry = false
	if res, err = s.Prune(opts); err != nil || len(res.Removed) != 1 {
		t.Fatalf("removed %+v, %v", res, err)
	}
	if _, err := s.Get(abandoned.ID); err == nil {
		t.Error("the abandoned session is still there")
	}
	if got, err := s.Get(recent.ID); err != nil || !got.Active() {
		t.Errorf("the recent session: %v, %v", got, err)
	}
}

// TestPruneFailsClosed: what Prune cannot decide about it leaves: a session whose push mark
// cannot be read (it may exist nowhere else) and an active session whose idle limit cannot be
// read.
func TestPruneFailsClosed(t *testing.T) {
	t.Parallel()
	s, clk := newWallStore(t)
	marked, err := s.Create(Params{ID: "session-1000-marked", Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(marked.ID, func(x *Session) error { x.End(StatusCompleted, clk.now()); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(s.Dir(), pendingPushDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), pendingPushDir, marked.ID+".json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	abandoned, err := s.Create(Params{ID: "session-1001-abandoned", Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetCurrent(marked.ID); err != nil { // not the abandoned one
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(s.Dir(), CurrentLink)); err != nil {
		t.Fatal(err)
	}
	clk.add(30 * 24 * time.Hour)
	age(t, s, abandoned.ID, clk.now().Add(-20*24*time.Hour))
	res, err := s.Prune(PruneOptions{OlderThan: 7 * 24 * time.Hour, IdleLimit: func(*Session) (time.Duration, error) {
		return 0, errors.New("config.json:1:2: invalid JSON")
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 0 || len(res.EndedIdle) != 0 {
		t.Errorf("removed %+v, ended %v; want nothing", res.Removed, res.EndedIdle)
	}
	if len(res.Kept) != 1 || res.Kept[0].ID != marked.ID || !strings.Contains(res.Kept[0].Reason, "push mark cannot be read") {
		t.Errorf("kept %+v, want %s for its unreadable push mark", res.Kept, marked.ID)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Error(), "invalid JSON") {
		t.Errorf("problems %v, want the idle limit's", res.Problems)
	}
	for _, id := range []string{marked.ID, abandoned.ID} {
		if _, err := s.Get(id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	if got, _ := s.Get(abandoned.ID); !got.Active() {
		t.Errorf("%s ended without a limit", abandoned.ID)
	}
}

// TestPruneFailedRemoval: a session whose files cannot all be removed is reported as failed, not
// as removed, and keeps its record (removed last), so that the next prune finds it again.
func TestPruneFailedRemoval(t *testing.T) {
	t.Parallel()
	s, clk := newWallStore(t)
	sess, err := s.Create(Params{ID: "session-1000-stuck", Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(sess.ID, func(x *Session) error { x.End(StatusCompleted, clk.now()); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(s.Dir(), CurrentLink)); err != nil {
		t.Fatal(err)
	}
	// Something that is not a file in place of its trail: os.Remove cannot remove it.
	if err := os.MkdirAll(filepath.Join(s.EventsPath(sess.ID), "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	clk.add(30 * 24 * time.Hour)
	res, err := s.Prune(PruneOptions{OlderThan: 7 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 0 || len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Error(), sess.ID) {
		t.Fatalf("removed %+v, failed %v; want the session failed", res.Removed, res.Failed)
	}
	if _, err := s.Get(sess.ID); err != nil {
		t.Errorf("the record went before the rest: %v", err)
	}
}
