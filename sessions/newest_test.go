package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// settle sets the folder's modification time an hour back, as a folder nobody wrote to for an
// hour has, and returns it.
func settle(t *testing.T, dir string) time.Time {
	t.Helper()
	old := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	return old
}

// listIDs lists limit sessions and fails t on any problem.
func listIDs(t *testing.T, s *Store, limit int) []string {
	t.Helper()
	list, problems, err := s.List(limit)
	if err != nil || len(problems) > 0 {
		t.Fatalf("List(%d): %v %v", limit, problems, err)
	}
	return ids(list)
}

// indexed lists once so that the newest index gets written for a settled folder, and returns
// the folder's modification time the index is valid for.
func indexed(t *testing.T, s *Store, dir string) time.Time {
	t.Helper()
	settle(t, dir)
	listIDs(t, s, 1) // makes the index's own folder, which changes the sessions folder
	old := settle(t, dir)
	listIDs(t, s, 1)
	if _, err := os.Stat(newestIndexPath(dir)); err != nil {
		t.Fatalf("no newest index after listing a settled folder: %v", err)
	}
	return old
}

func TestNewestIndexStandsForTheUnchangedFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	all := populate(t, dir, 100, 1700000000000)
	s := New(dir)
	want := listIDs(t, s, 10)
	old := indexed(t, s, dir)
	if got := listIDs(t, s, 10); !slices.Equal(got, want) {
		t.Fatalf("List(10) from the index = %v, want %v", got, want)
	}
	// Past the index's ids, the folder is read.
	if got := listIDs(t, s, 0); !slices.Equal(got, reversed(all)) {
		t.Fatalf("List(0) = %v, want all %d newest first", got, len(all))
	}
	// The index is what answers while the folder's time is unchanged: a record slipped in with
	// the time put back is not seen (which no real write can do: see TestNewestIndexSeesEveryChange).
	hidden := "session-1800000000000-zzzzzz"
	if err := os.WriteFile(filepath.Join(dir, hidden+".json"), []byte(`{"id":"`+hidden+`","status":"active"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	if got := listIDs(t, s, 10); !slices.Equal(got, want) {
		t.Fatalf("List(10) = %v, want the index's %v", got, want)
	}
}

func TestNewestIndexSeesEveryChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	all := populate(t, dir, 30, 1700000000000)
	s := New(dir)

	// A record written by anything (here a plain write, as another program's) is listed.
	indexed(t, s, dir)
	added := "session-1800000000000-aaaaaa"
	if err := os.WriteFile(filepath.Join(dir, added+".json"), []byte(`{"id":"`+added+`","status":"active"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := listIDs(t, s, 2); !slices.Equal(got, []string{added, all[29]}) {
		t.Fatalf("after adding a record: List(2) = %v", got)
	}

	// A record removed is not listed, and not reported missing either.
	indexed(t, s, dir)
	if err := os.Remove(filepath.Join(dir, added+".json")); err != nil {
		t.Fatal(err)
	}
	if got := listIDs(t, s, 2); !slices.Equal(got, []string{all[29], all[28]}) {
		t.Fatalf("after removing a record: List(2) = %v", got)
	}

	// A record written by the store (a new session) is listed.
	indexed(t, s, dir)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if got := listIDs(t, s, 1); !slices.Equal(got, []string{sess.ID}) {
		t.Fatalf("after Create: List(1) = %v, want %s", got, sess.ID)
	}

	// A file that is not a session is reported, from the folder and then from the index.
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		settle(t, dir)
		_, problems, err := s.List(1)
		var fe *ForeignError
		if err != nil || len(problems) != 1 || !errors.As(problems[0], &fe) || fe.Path != filepath.Join(dir, "notes.txt") {
			t.Fatalf("List(1) problems %v, err %v; want notes.txt reported", problems, err)
		}
	}
	if _, err := os.Stat(newestIndexPath(dir)); err != nil {
		t.Fatal(err)
	}
}

func TestNewestIndexWrittenOnlyForASettledFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	populate(t, dir, 5, 1700000000000)
	if err := os.Mkdir(filepath.Join(dir, newestIndexDir), 0o700); err != nil {
		t.Fatal(err)
	}
	// Changed "just now" as far as the clock can tell (a time ahead of it): a change in the same
	// clock tick would not move the time, so the listing is not kept.
	ahead := time.Now().Add(time.Hour)
	if err := os.Chtimes(dir, ahead, ahead); err != nil {
		t.Fatal(err)
	}
	listIDs(t, New(dir), 3)
	if _, err := os.Stat(newestIndexPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("index written for an unsettled folder: %v", err)
	}
}

func TestNewestIndexThatIsNotOursIsIgnored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	all := populate(t, dir, 20, 1700000000000)
	s := New(dir)
	old := indexed(t, s, dir)
	for name, content := range map[string]string{
		"not JSON":      "{",
		"other version": `{"version":99}`,
		"out of order":  `{"version":1,"dir":"` + dir + `","modTime":` + itoa(old.UnixNano()) + `,"ids":["` + all[0] + `","` + all[19] + `"],"candidates":20}`,
		"bad id":        `{"version":1,"dir":"` + dir + `","modTime":` + itoa(old.UnixNano()) + `,"ids":["../x"],"candidates":1}`,
		"too few ids":   `{"version":1,"dir":"` + dir + `","modTime":` + itoa(old.UnixNano()) + `,"ids":["` + all[19] + `"],"candidates":20}`,
	} {
		if err := os.WriteFile(newestIndexPath(dir), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := listIDs(t, s, 3); !slices.Equal(got, []string{all[19], all[18], all[17]}) {
			t.Errorf("%s: List(3) = %v", name, got)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
