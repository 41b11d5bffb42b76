package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// populate writes n records directly, one a second apart starting at base, newest last, and
// returns their ids oldest first.
func populate(tb testing.TB, dir string, n int, base int64) []string {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	ids := make([]string, n)
	for i := range n {
		ms := base + int64(i)*1000
		id := fmt.Sprintf("session-%d-%06d", ms, i%1000000)
		ids[i] = id
		rec := fmt.Sprintf(`{"id":%q,"startTime":%q,"workspace":"/w/%d","command":"agent-hooks","args":[],"issuesPlanned":[],"issuesCompleted":[],"issuesFailed":[],"status":"completed","provider":"","metadata":{}}`,
			id, time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), i)
		if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(rec), 0o600); err != nil {
			tb.Fatal(err)
		}
		// The audit trail beside every record, as a real folder has.
		if err := os.WriteFile(filepath.Join(dir, id+".events.jsonl"), []byte("{}\n"), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return ids
}

func ids(list []*Session) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.ID
	}
	return out
}

func TestListNewestFirstWithLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	all := populate(t, dir, 25, 1700000000000)
	// A timestamp with more digits sorts by value, not as text.
	big := "session-99999999999999-abcdef"
	if err := os.WriteFile(filepath.Join(dir, big+".json"), []byte(`{"id":"`+big+`","status":"active"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := New(dir)

	tests := []struct {
		limit int
		want  []string
	}{
		{1, []string{big}},
		{4, []string{big, all[24], all[23], all[22]}},
		{0, append([]string{big}, reversed(all)...)},
		{100, append([]string{big}, reversed(all)...)},
	}
	for _, tt := range tests {
		got, problems, err := s.List(tt.limit)
		if err != nil || len(problems) > 0 {
			t.Fatalf("List(%d): %v %v", tt.limit, problems, err)
		}
		if !slices.Equal(ids(got), tt.want) {
			t.Errorf("List(%d) = %v, want %v", tt.limit, ids(got), tt.want)
		}
	}
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func TestListReportsAndSkipsCorruptAndForeignFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := populate(t, dir, 6, 1700000000000)
	corrupt := map[string]string{
		"session-1700000004500-trunc1": `{"id":"session-1700000004500-trunc1","status":"act`,
		"session-1700000003500-wrong1": `{"id":"session-1-other","status":"active"}`,
		"session-1700000002500-array1": `[1,2,3]`,
		"session-1700000000100-oldbad": `not json at all`, // older than anything listed below
	}
	for id, body := range corrupt {
		if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"notes.txt", "session-abc.json", "backup.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "archive"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A directory with a record's name cannot be read as one.
	if err := os.Mkdir(filepath.Join(dir, "session-1700000005500-isadir.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	// Not problems: the link, the lock, a temporary file, per-session state of an extension.
	for _, name := range []string{".lock", ".session-1.json.123.tmp", good[0] + ".pending.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(good[5]+".json", filepath.Join(dir, "current")); err != nil {
		t.Fatal(err)
	}

	got, problems, err := New(dir).List(4)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{good[5], good[4], good[3], good[2]}; !slices.Equal(ids(got), want) {
		t.Errorf("List(4) = %v, want %v", ids(got), want)
	}
	var corruptPaths, foreignPaths, otherPaths []string
	for _, p := range problems {
		var ce *CorruptError
		var fe *ForeignError
		switch {
		case errors.As(p, &ce):
			corruptPaths = append(corruptPaths, filepath.Base(ce.Path))
		case errors.As(p, &fe):
			foreignPaths = append(foreignPaths, filepath.Base(fe.Path))
		default:
			otherPaths = append(otherPaths, p.Error())
		}
	}
	wantCorrupt := []string{"session-1700000004500-trunc1.json", "session-1700000003500-wrong1.json", "session-1700000002500-array1.json"}
	if !slices.Equal(corruptPaths, wantCorrupt) {
		t.Errorf("corrupt records reported = %v, want %v (newest first, and not the old one that was never read)", corruptPaths, wantCorrupt)
	}
	if want := []string{"archive", "backup.json", "notes.txt", "session-abc.json"}; !slices.Equal(foreignPaths, want) {
		t.Errorf("foreign files reported = %v, want %v", foreignPaths, want)
	}
	if len(otherPaths) != 1 {
		t.Errorf("other problems = %v, want the unreadable directory only", otherPaths)
	}
}

func TestListOfAMissingFolderIsEmpty(t *testing.T) {
	t.Parallel()
	got, problems, err := New(filepath.Join(t.TempDir(), "nope")).List(10)
	if err != nil || len(got) != 0 || len(problems) != 0 {
		t.Errorf("List of a missing folder = %v, %v, %v", got, problems, err)
	}
}

func TestFindActive(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	mine, _ := s.Create(Params{Workspace: "/work/mine"})
	ended, _ := s.Create(Params{Workspace: "/work/mine"})
	if _, err := s.Update(ended.ID, func(x *Session) error { x.End(StatusCompleted, time.Now()); return nil }); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.Create(Params{Workspace: "/work/other"}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		workspace string
		scan      int
		want      string
	}{
		{"/work/mine", 10, mine.ID},
		{"/work/mine/", 10, mine.ID},
		{"/work/mine", 4, ""}, // beyond the scan
		{"/work/none", 10, ""},
	}
	for _, tt := range tests {
		got, _, err := s.FindActive(tt.workspace, tt.scan)
		if err != nil {
			t.Fatal(err)
		}
		gotID := ""
		if got != nil {
			gotID = got.ID
		}
		if gotID != tt.want {
			t.Errorf("FindActive(%q, %d) = %q, want %q", tt.workspace, tt.scan, gotID, tt.want)
		}
	}
}

// BenchmarkList10000 lists the default 10 sessions of a folder holding 10,000 (and their audit
// trails). The requirement is well under 100 ms; bench/sessions.sh prints the ratio.
func BenchmarkList10000(b *testing.B) {
	dir := b.TempDir()
	populate(b, dir, 10000, 1700000000000)
	s := New(dir)
	b.ResetTimer()
	for b.Loop() {
		list, problems, err := s.List(10)
		if err != nil || len(problems) > 0 || len(list) != 10 {
			b.Fatalf("List: %d sessions, %v, %v", len(list), problems, err)
		}
	}
}

// BenchmarkUpdate is one locked read-modify-write with fsync: what every issue event costs.
func BenchmarkUpdate(b *testing.B) {
	s := New(b.TempDir())
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		n++
		if _, err := s.Update(sess.ID, func(x *Session) error { x.PlanIssue(n % 50); return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppend is one audit-trail line: what every hook execution costs.
func BenchmarkAppend(b *testing.B) {
	s := New(b.TempDir())
	id := "session-1700000000000-abcdef"
	e := Event{Event: "PreExecutionEnd", Name: "lint", Type: "command", Source: "project", Status: "ok", DurationMs: 12}
	for b.Loop() {
		if err := s.Append(id, e); err != nil {
			b.Fatal(err)
		}
	}
}

func TestOpenActiveAgreesOnOneSession(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	var mu sync.Mutex
	got := map[string]int{}
	created := 0
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			sess, isNew, err := New(s.Dir()).OpenActive("/work/a", 50, func() Params { return Params{Command: "agent-hooks"} })
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			got[sess.ID]++
			if isNew {
				created++
			}
		})
	}
	wg.Wait()
	if len(got) != 1 || created != 1 {
		t.Fatalf("12 concurrent opens made sessions %v (%d created), want one", got, created)
	}
	var first string
	for id := range got {
		first = id
	}

	// Another workspace gets its own session, which becomes current; the first workspace still
	// finds its own although current now points elsewhere.
	other, isNew, err := s.OpenActive("/work/b", 50, func() Params { return Params{} })
	if err != nil || !isNew || other.ID == first {
		t.Fatalf("OpenActive(/work/b) = %v, %v, %v; want a new session", other, isNew, err)
	}
	again, isNew, err := s.OpenActive("/work/a", 50, func() Params { return Params{} })
	if err != nil || isNew || again.ID != first {
		t.Fatalf("OpenActive(/work/a) = %v, %v, %v; want %s again", again, isNew, err, first)
	}
	if cur, _ := s.CurrentID(); cur != other.ID {
		t.Errorf("current = %s, want %s (attaching does not move it)", cur, other.ID)
	}

	// Once ended, the workspace's next open starts a new session.
	if _, err := s.Update(first, func(x *Session) error { x.End(StatusCompleted, time.Now()); return nil }); err != nil {
		t.Fatal(err)
	}
	next, isNew, err := s.OpenActive("/work/a", 50, func() Params { return Params{Provider: "claude"} })
	if err != nil || !isNew || next.ID == first || next.Workspace != "/work/a" || next.Provider != "claude" {
		t.Fatalf("OpenActive after the end = %+v, %v, %v; want a new session", next, isNew, err)
	}
}

// TestActiveThroughASymlink: a workspace reached through a symbolic link (a shell's $PWD under
// /tmp on macOS, a linked home) is the same workspace: a run there attaches to the session
// started from the other path instead of starting a second one.
func TestActiveThroughASymlink(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	base := t.TempDir()
	real := filepath.Join(base, "repo")
	link := filepath.Join(base, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	started, err := s.Create(Params{Workspace: link})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(Params{Workspace: filepath.Join(base, "elsewhere")}); err != nil { // current moves away
		t.Fatal(err)
	}
	got, created, err := s.OpenActive(real, 50, func() Params { return Params{} })
	if err != nil {
		t.Fatal(err)
	}
	if created || got.ID != started.ID {
		t.Errorf("OpenActive(%s) = %s (created %v), want %s, started in %s", real, got.ID, created, started.ID, link)
	}
	if SameWorkspace(real, filepath.Join(base, "elsewhere")) {
		t.Error("two folders are the same workspace")
	}
}

// TestIDOrderIsTheSortedOrder: the folder's ids are handed out exactly in the listing's order
// (time, then id, newest first), whatever order the folder lists them in, over as many passes as
// it takes.
func TestIDOrderIsTheSortedOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, firstPass, firstPass + 1, 700} {
		dir := t.TempDir()
		var want []string
		for i := range n {
			id := fmt.Sprintf("session-%d-%s", 1700000000000+rng.IntN(40), strconv.FormatInt(int64(rng.IntN(5000)+i*5000), 36))
			mustTime(t, id)
			if err := os.WriteFile(filepath.Join(dir, id+".json"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			want = append(want, id)
		}
		slices.SortFunc(want, func(a, b string) int {
			if newerID(a, b) {
				return -1
			}
			return 1
		})
		order := &idOrder{dir: dir}
		var got []string
		for {
			id, ok, err := order.next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			got = append(got, id)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d ids: handed out %v, want %v", n, got, want)
		}
	}
}

func mustTime(t *testing.T, id string) int64 {
	t.Helper()
	ms, ok := idTime(id)
	if !ok {
		t.Fatalf("invalid id %s", id)
	}
	return ms
}

// TestReadNames: every entry but . and .., once, whatever the folder holds (more names than one
// read returns).
func TestReadNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	want := []string{".hidden", "a", "dir", strings.Repeat("long", 60)}
	for i := range 3000 {
		want = append(want, fmt.Sprintf("session-%d-x.json", i))
	}
	for _, name := range want {
		if name == "dir" {
			if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := readNames(dir, func(name []byte) { got = append(got, string(name)) }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("readNames: %d names, want %d", len(got), len(want))
	}
	err := readNames(filepath.Join(dir, "missing"), func([]byte) {})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("readNames of a missing folder: %v, want fs.ErrNotExist", err)
	}
}
