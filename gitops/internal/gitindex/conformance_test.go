package gitindex

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
	"github.com/autoagent/agent-hooks/gitops/internal/gittest"
	"github.com/autoagent/agent-hooks/gitops/internal/lockfile"
)

// The conformance suite: indexes made by the git CLI are read, written back and read by git
// again, which must see exactly what it saw before (git ls-files --debug, git status, git fsck).

// rawCleaner hashes a file as it is (the repositories here have no conversions).
func rawCleaner(_ *Entry, abs string) (plumbing.Hash, error) {
	b, err := os.ReadFile(abs)
	if err != nil {
		return plumbing.ZeroHash, nil
	}
	return gitobj.ID(plumbing.BlobObject, b), nil
}

// settle dates every file of the work tree an hour back and lets git refresh the index, so that
// no entry is racily clean.
func settle(t *testing.T, e *gittest.Env, dir string) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" && d.IsDir() {
			if err == nil {
				return filepath.SkipDir
			}
			return err
		}
		if d.Type()&os.ModeSymlink == 0 {
			return os.Chtimes(p, past, past)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e.Git(t, dir, "update-index", "-q", "--refresh")
}

// rewrite reads the index of dir and writes it back with its trees, as a commit does.
func rewrite(t *testing.T, dir string) *Index {
	t.Helper()
	path := filepath.Join(dir, ".git", "index")
	idx, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	tb := treesOf(idx)
	// The cache tree may name only trees the repository has.
	store := gitobj.NewStore(filepath.Join(dir, ".git", "objects"), nil)
	for h, data := range tb.Objs {
		if err := store.WriteLoose(plumbing.TreeObject, h, data); err != nil {
			t.Fatal(err)
		}
	}
	ok, err := idx.WriteFile(path, dir, tb.Nodes, rawCleaner)
	if err != nil || !ok {
		t.Fatalf("write index: %v, %v", ok, err)
	}
	return idx
}

// treesOf builds the trees of idx, which has no conflicts.
func treesOf(idx *Index) *Trees {
	tb, _ := BuildTrees(idx.Entries, idx.Tree)
	return tb
}

// view is what git says of an index and its work tree.
func view(t *testing.T, e *gittest.Env, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{
		{"ls-files", "--debug", "-s"}, // stat data, flags, modes, ids, stages
		{"ls-files", "-t", "-v"},      // skip-worktree (S) and assume-unchanged (lower case)
		{"status", "--porcelain", "--untracked-files=all"},
	} {
		b.WriteString(e.Git(t, dir, args...) + "\n")
	}
	return b.String()
}

func indexBytes(t *testing.T, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// indexRepo makes a repository whose index holds every kind of entry: nested directories, an
// executable, a symlink, an intent-to-add entry, skip-worktree and assume-unchanged entries.
func indexRepo(t *testing.T, e *gittest.Env) string {
	t.Helper()
	dir := e.Repo(t, map[string]string{
		"a.txt": "a\n", "dir/b.txt": "b\n", "dir/sub/c.txt": "c\n", "dir.txt": "sorts between dir and dir/\n",
		"skip.txt": "skipped\n", "assume.txt": "assumed\n", "exec.sh": "echo\n",
		"a/very/long/path/" + strings.Repeat("segment/", 40) + "file.txt": "long\n",
	})
	must(t, os.Chmod(filepath.Join(dir, "exec.sh"), 0o755))
	must(t, os.Symlink("a.txt", filepath.Join(dir, "link")))
	gittest.WriteFiles(t, dir, map[string]string{"new.txt": "intent\n", "untracked.txt": "u\n"})
	e.Git(t, dir, "add", "exec.sh", "link")
	e.Git(t, dir, "add", "-N", "new.txt")
	e.Git(t, dir, "update-index", "--skip-worktree", "skip.txt")
	e.Git(t, dir, "update-index", "--assume-unchanged", "assume.txt")
	return dir
}

// TestIndexVersionsRoundTrip reads indexes of versions 2, 3 and 4 and writes them back: git sees
// the same entries, stat data, flags and status, and the version is the one git chose (an
// index with extended flags is version 3 at least).
func TestIndexVersionsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"2", "3", "4"} {
		t.Run("v"+v, func(t *testing.T) {
			t.Parallel()
			e := gittest.New(t)
			dir := indexRepo(t, e)
			e.Git(t, dir, "update-index", "--index-version", v)
			settle(t, e, dir)
			before, version := view(t, e, dir), indexBytes(t, dir)[7]
			if v == "2" && version != 3 {
				t.Fatalf("git wrote version %d for extended flags, want 3", version)
			}

			idx := rewrite(t, dir)
			if idx.Version != uint32(version) {
				t.Errorf("read version %d, the file says %d", idx.Version, version)
			}
			if got := view(t, e, dir); got != before {
				t.Errorf("git sees:\n%s\nbefore:\n%s", got, before)
			}
			if got := indexBytes(t, dir)[7]; got != version {
				t.Errorf("wrote version %d, want %d", got, version)
			}
			e.Fsck(t, dir)
		})
	}
}

// TestEncodeIsGitsEncoding: an index git wrote (entries and a complete cache tree, invalid above
// the intent-to-add entry) is encoded back to the very same bytes, in every version.
func TestEncodeIsGitsEncoding(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"2", "3", "4"} {
		t.Run("v"+v, func(t *testing.T) {
			t.Parallel()
			e := gittest.New(t)
			dir := indexRepo(t, e)
			e.Git(t, dir, "update-index", "--index-version", v)
			e.Git(t, dir, "write-tree")
			want := indexBytes(t, dir)
			idx, err := Decode(want)
			if err != nil {
				t.Fatal(err)
			}
			if got := idx.Encode(treesOf(idx).Nodes); !bytes.Equal(got, want) {
				t.Errorf("encoded %d bytes differ from git's %d", len(got), len(want))
			}
		})
	}
}

// TestBuildTreesIsGitWriteTree: the trees built from an index, reusing what is left valid of its
// cache tree after git add invalidated some directories, are git write-tree's, and the cache
// tree written is the one git writes (every directory, entry counts, ids; invalid above an
// intent-to-add entry, here at the top and in a directory holding nothing else).
func TestBuildTreesIsGitWriteTree(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := indexRepo(t, e)
	gittest.WriteFiles(t, dir, map[string]string{"dir/sub/c.txt": "changed\n", "dir/sub/d/e.txt": "new\n", "z/y.txt": "new\n", "ita/only.txt": "i\n"})
	e.Git(t, dir, "add", "dir", "z")
	e.Git(t, dir, "add", "-N", "ita")
	idx, err := Read(filepath.Join(dir, ".git", "index"))
	must(t, err)
	if n, ok := idx.Tree["dir"]; !ok || n.Count >= 0 {
		t.Fatal("git left the cache tree of dir valid after adding below it")
	}
	tb := treesOf(idx)
	e.Git(t, dir, "write-tree")
	if got, want := tb.Nodes[0].Hash.String(), e.Git(t, dir, "write-tree"); got != want {
		t.Errorf("root = %s, git write-tree = %s", got, want)
	}
	gits, err := Read(filepath.Join(dir, ".git", "index"))
	must(t, err)
	for _, n := range tb.Nodes {
		g, ok := gits.Tree[n.Dir]
		if !ok || g.Count != n.Count || n.Count >= 0 && g.Hash != n.Hash {
			t.Errorf("directory %q: ours %d %s, git's %+v", n.Dir, n.Count, n.Hash, g)
		}
	}
	if len(tb.Nodes) != len(gits.Tree) {
		t.Errorf("%d directories, git's cache tree has %d", len(tb.Nodes), len(gits.Tree))
	}
	for h, data := range tb.Objs {
		if got := e.Git(t, dir, "cat-file", "-t", h.String()); got != "tree" {
			t.Errorf("%s: %s", h, got)
		}
		if want := gitobj.ID(plumbing.TreeObject, data); want != h {
			t.Errorf("tree object %s hashes to %s", h, want)
		}
	}
}

// TestOptionalExtensions: what is done with each extension git may write, compared with git. An
// extension git rebuilds (untracked cache, end of index entries) is dropped; a split or sparse
// index is refused, the file left as it is. (The cache tree and the resolve-undo record are kept:
// TestBuildTreesIsGitWriteTree, TestResolveUndoKept.)
func TestOptionalExtensions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, e *gittest.Env, dir string)
		ext     string
		refused bool
	}{
		{"untracked cache", func(t *testing.T, e *gittest.Env, dir string) {
			e.Git(t, dir, "config", "core.untrackedCache", "true")
			e.Git(t, dir, "status", "--porcelain")
		}, "UNTR", false},
		{"end of index entries", func(t *testing.T, e *gittest.Env, dir string) {
			e.Git(t, dir, "-c", "index.recordEndOfIndexEntries=true", "update-index", "--force-write-index")
		}, "EOIE", false},
		{"split index", func(t *testing.T, e *gittest.Env, dir string) {
			e.Git(t, dir, "update-index", "--split-index")
		}, "link", true},
		{"sparse index", func(t *testing.T, e *gittest.Env, dir string) {
			e.Git(t, dir, "sparse-checkout", "init", "--cone", "--sparse-index")
			e.Git(t, dir, "sparse-checkout", "set", "dir")
		}, "sdir", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := gittest.New(t)
			dir := e.Repo(t, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n", "other/c.txt": "c\n"})
			gittest.WriteFiles(t, dir, map[string]string{"untracked/u.txt": "u\n"})
			tc.setup(t, e, dir)
			settle(t, e, dir)
			tc.setup(t, e, dir) // settle rewrote the index
			raw := indexBytes(t, dir)
			if !bytes.Contains(raw, []byte(tc.ext)) {
				t.Fatalf("git wrote no %s extension", tc.ext)
			}
			before := view(t, e, dir)
			if tc.refused {
				_, err := Read(filepath.Join(dir, ".git", "index"))
				if err == nil || !strings.Contains(err.Error(), "split or sparse index") {
					t.Fatalf("err = %v, want a refusal", err)
				}
				return
			}
			rewrite(t, dir)
			if bytes.Contains(indexBytes(t, dir), []byte(tc.ext)) {
				t.Errorf("the %s extension was written back", tc.ext)
			}
			if got := view(t, e, dir); got != before {
				t.Errorf("git sees:\n%s\nbefore:\n%s", got, before)
			}
			e.Fsck(t, dir)
		})
	}
}

// TestResolveUndoKept: the resolve-undo record git add leaves after a conflict is resolved (REUC)
// is kept, byte for byte, as git add and git commit keep it.
func TestResolveUndoKept(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, map[string]string{"a.txt": "base\n", "b/c.txt": "c\n"})
	e.Git(t, dir, "checkout", "-q", "-b", "topic")
	gittest.WriteFiles(t, dir, map[string]string{"a.txt": "topic\n"})
	e.Git(t, dir, "commit", "-q", "-am", "topic")
	e.Git(t, dir, "checkout", "-q", "main")
	gittest.WriteFiles(t, dir, map[string]string{"a.txt": "main\n"})
	e.Git(t, dir, "commit", "-q", "-am", "main")
	if _, err := e.GitErr(dir, "merge", "-q", "topic"); err == nil {
		t.Fatal("no conflict")
	}
	gittest.WriteFiles(t, dir, map[string]string{"a.txt": "resolved\n"})
	e.Git(t, dir, "add", "a.txt")
	e.Git(t, dir, "write-tree")
	settle(t, e, dir)
	want := indexBytes(t, dir)
	if !bytes.Contains(want, []byte("REUC")) {
		t.Fatal("git wrote no resolve-undo record")
	}
	undo := e.Git(t, dir, "ls-files", "--resolve-undo")
	idx, err := Decode(want)
	must(t, err)
	if got := idx.Encode(treesOf(idx).Nodes); !bytes.Equal(got, want) {
		t.Errorf("encoded %d bytes differ from git's %d", len(got), len(want))
	}
	rewrite(t, dir)
	if got := e.Git(t, dir, "ls-files", "--resolve-undo"); got != undo {
		t.Errorf("resolve-undo:\n%s\nwant:\n%s", got, undo)
	}
}

// TestRacyEntriesSmudgedAsGitDoes: files changed within the second the index was written, their
// size kept, are smudged when the index is written (git's ce_smudge_racily_clean_entry), exactly
// where git smudges them: the same index rewritten by git and by gitindex lists the same sizes,
// and git status sees every change. core.trustctime is off: git would otherwise rely on the
// ctime, which a test cannot set.
func TestRacyEntriesSmudgedAsGitDoes(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, map[string]string{"changed.txt": "1\n", "same.txt": "1\n", "grown.txt": "1\n", "old.txt": "1\n"})
	e.Git(t, dir, "config", "core.trustctime", "false")
	second := time.Unix(1600000000, 0)
	at := func(ms int) time.Time { return second.Add(time.Duration(ms) * time.Millisecond) }
	for _, f := range []string{"changed.txt", "same.txt", "grown.txt", "old.txt"} {
		must(t, os.Chtimes(filepath.Join(dir, f), at(100), at(100)))
	}
	must(t, os.Chtimes(filepath.Join(dir, "old.txt"), at(-5000), at(-5000)))
	e.Git(t, dir, "update-index", "--refresh")
	index := filepath.Join(dir, ".git", "index")
	must(t, os.Chtimes(index, at(500), at(500)))
	// Within the index's second: changed.txt keeps its size, same.txt its content, grown.txt
	// grows; old.txt (a second earlier) is not racy.
	gittest.WriteFiles(t, dir, map[string]string{"changed.txt": "2\n", "same.txt": "1\n", "grown.txt": "22\n"})
	for _, f := range []string{"changed.txt", "same.txt", "grown.txt"} {
		must(t, os.Chtimes(filepath.Join(dir, f), at(300), at(300)))
	}

	original := indexBytes(t, dir)
	restore := func() {
		must(t, os.WriteFile(index, original, 0o644))
		must(t, os.Chtimes(index, at(500), at(500)))
	}

	// git's verdict: the same index, rewritten by git.
	restore()
	e.Git(t, dir, "update-index", "--force-write-index")
	gits := e.Git(t, dir, "ls-files", "--debug")

	restore()
	idx, err := Read(index)
	must(t, err)
	racy := map[string]bool{}
	for _, en := range idx.Entries {
		racy[en.Name] = idx.Racy(en)
	}
	if !racy["changed.txt"] || !racy["same.txt"] || !racy["grown.txt"] || racy["old.txt"] {
		t.Errorf("racy = %v, want all but old.txt", racy)
	}
	if ok, err := idx.WriteFile(index, dir, treesOf(idx).Nodes, rawCleaner); err != nil || !ok {
		t.Fatalf("write: %v, %v", ok, err)
	}
	if got := e.Git(t, dir, "ls-files", "--debug"); got != gits {
		t.Errorf("git ls-files --debug:\n%s\nafter git's own rewrite:\n%s", got, gits)
	}
	if !strings.Contains(gits, "changed.txt\n  ctime") || !regexpSize0(gits, "changed.txt") || regexpSize0(gits, "same.txt") {
		t.Errorf("git itself did not smudge changed.txt alone:\n%s", gits)
	}
	if got := e.Git(t, dir, "status", "--porcelain"); got != "M changed.txt\n M grown.txt" {
		t.Errorf("git status = %q", got)
	}
}

// regexpSize0 reports whether name's entry in ls-files --debug output has size 0.
func regexpSize0(debug, name string) bool {
	_, rest, ok := strings.Cut(debug, name+"\n")
	if !ok {
		return false
	}
	for _, line := range strings.Split(rest, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "size:" {
			return f[1] == "0"
		}
	}
	return false
}

// TestWriteFileHonoursTheLock: with index.lock held by another process nothing is written, and
// the lock is left alone.
func TestWriteFileHonoursTheLock(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, map[string]string{"a.txt": "a\n"})
	path := filepath.Join(dir, ".git", "index")
	idx, err := Read(path)
	must(t, err)
	before := indexBytes(t, dir)
	must(t, os.WriteFile(path+".lock", []byte("held"), 0o644))
	_, err = idx.WriteFile(path, dir, treesOf(idx).Nodes, rawCleaner)
	var le *lockfile.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want a LockedError", err)
	}
	if !bytes.Equal(indexBytes(t, dir), before) {
		t.Error("the index was written despite the lock")
	}
	if b, _ := os.ReadFile(path + ".lock"); string(b) != "held" {
		t.Error("the lock was touched")
	}
}

// TestDecodeRefusesWhatGitRefuses: corrupt or unknown index files are errors, never an empty or
// partial index.
func TestDecodeRefusesWhatGitRefuses(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, map[string]string{"a.txt": "a\n", "b/c.txt": "c\n"})
	good := indexBytes(t, dir)
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 1
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"bad checksum", flip(len(good) - 30), "bad checksum"},
		{"truncated", good[:len(good)-25], "corrupt"},
		{"no signature", flip(0), "corrupt"},
		{"version 1", append(append(bytes.Clone(good[:7]), 1), good[8:]...), "version 1"},
		{"version 5", append(append(bytes.Clone(good[:7]), 5), good[8:]...), "version 5"},
		{"too many entries", append(append(bytes.Clone(good[:8]), 0x7f, 0, 0, 0), good[12:]...), "corrupt"},
		{"empty", nil, "corrupt"},
	} {
		if _, err := Decode(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestLongNames: a name of 4095 bytes or more (the length field saturates; the name ends at its
// NUL) round-trips in every version, and git reads it.
func TestLongNames(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, map[string]string{"a.txt": "a\n"})
	blob := e.Git(t, dir, "rev-parse", "HEAD:a.txt")
	long := strings.Repeat("d/", 2100) + "f.txt"
	for _, v := range []uint32{2, 3, 4} {
		idx := &Index{Version: v, Tree: CacheTree{}, Entries: []*Entry{
			{Mode: ModeRegular, Hash: plumbing.NewHash(blob), Name: "a.txt"},
			{Mode: ModeRegular, Hash: plumbing.NewHash(blob), Name: long},
			{Mode: ModeRegular, Hash: plumbing.NewHash(blob), Name: long + "x"},
		}}
		got, err := Decode(idx.Encode(nil))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		for i, en := range got.Entries {
			if en.Name != idx.Entries[i].Name {
				t.Errorf("v%d: entry %d is %d bytes long, want %d", v, i, len(en.Name), len(idx.Entries[i].Name))
			}
		}
		must(t, os.WriteFile(filepath.Join(dir, ".git", "index"), idx.Encode(nil), 0o644))
		if out := e.Git(t, dir, "ls-files"); out != "a.txt\n"+long+"\n"+long+"x" {
			t.Errorf("v%d: git ls-files reads %d bytes", v, len(out))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestFindIn finds a path given as directory and name exactly as Find finds it whole, around
// the names that sort near it ("a-b", "a.b", "a/b", "ab": '-' and '.' sort before '/').
func TestFindIn(t *testing.T) {
	t.Parallel()
	names := []string{"a", "a-b", "a.b", "a/b", "a/b/c", "a/bc", "a0", "ab", "b", "b/a", "dir", "dir.txt", "dir/x", "dir0/x"}
	idx := &Index{}
	for _, n := range names {
		idx.Entries = append(idx.Entries, &Entry{Name: n})
	}
	for _, p := range append(names, "", "a/a", "a/c", "c", "dir/", "dir/y", "0", "a/b/c/d") {
		dir, name := "", p
		if i := strings.LastIndex(p, "/"); i >= 0 {
			dir, name = p[:i], p[i+1:]
		}
		wi, wok := idx.Find(p)
		if gi, gok := idx.FindIn(dir, name); gi != wi || gok != wok {
			t.Errorf("FindIn(%q, %q) = %d, %v; Find(%q) = %d, %v", dir, name, gi, gok, p, wi, wok)
		}
	}
}
