package refs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/autoagent/agent-hooks/gitops/internal/gittest"
	"github.com/autoagent/agent-hooks/gitops/internal/lockfile"
)

func storage(gitDir string) *filesystem.Storage {
	return filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRUDefault())
}

// TestUpdateIsWhatGitSees: refs created, moved (loose and packed) and refused by Update are what
// git rev-parse and git reflog then see; a ref that moved, a held lock or a failing check change
// nothing.
func TestUpdateIsWhatGitSees(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, map[string]string{"a.txt": "a\n"})
	c1 := plumbing.NewHash(e.Git(t, dir, "rev-parse", "HEAD"))
	gittest.WriteFiles(t, dir, map[string]string{"a.txt": "b\n"})
	e.Git(t, dir, "commit", "-q", "-am", "two")
	c2 := plumbing.NewHash(e.Git(t, dir, "rev-parse", "HEAD"))
	gitDir := filepath.Join(dir, ".git")
	dirs := Dirs{GitDir: gitDir, CommonDir: gitDir}
	u := func(name string, old, new plumbing.Hash) Update {
		return Update{Dirs: dirs, Refs: storage(gitDir), Name: plumbing.ReferenceName(name), Old: old, New: new}
	}
	want := func(ref string, h plumbing.Hash) {
		t.Helper()
		if got := e.Git(t, dir, "rev-parse", ref); got != h.String() {
			t.Errorf("%s = %s, want %s", ref, got, h)
		}
	}

	if err := u("refs/heads/feature", plumbing.ZeroHash, c1).Apply(); err != nil {
		t.Fatal(err)
	}
	want("feature", c1)
	if err := u("refs/heads/feature", plumbing.ZeroHash, c2).Apply(); !errors.Is(err, ErrMoved) {
		t.Errorf("creating an existing ref: err = %v, want ErrMoved", err)
	}
	e.Git(t, dir, "pack-refs", "--all")
	logged := false
	up := u("refs/heads/feature", c1, c2)
	up.Reflog = func() error { logged = true; return nil }
	if err := up.Apply(); err != nil || !logged {
		t.Fatalf("moving a packed ref: %v (reflog called: %v)", err, logged)
	}
	want("feature", c2)
	if err := u("refs/heads/feature", c1, c1).Apply(); !errors.Is(err, ErrMoved) {
		t.Errorf("from a stale value: err = %v, want ErrMoved", err)
	}
	want("feature", c2)

	must(t, os.WriteFile(filepath.Join(gitDir, "refs", "heads", "feature.lock"), nil, 0o644))
	var le *lockfile.LockedError
	if err := u("refs/heads/feature", c2, c1).Apply(); !errors.As(err, &le) {
		t.Errorf("with the lock held: err = %v", err)
	}
	must(t, os.Remove(filepath.Join(gitDir, "refs", "heads", "feature.lock")))

	checked := u("refs/heads/feature", c2, c1)
	checked.Also = []plumbing.ReferenceName{plumbing.HEAD}
	checked.Check = func() error { return ErrMoved }
	if err := checked.Apply(); !errors.Is(err, ErrMoved) {
		t.Errorf("a failing check: err = %v", err)
	}
	want("feature", c2)
	for _, l := range []string{"refs/heads/feature.lock", "HEAD.lock"} {
		if _, err := os.Stat(filepath.Join(gitDir, l)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", l, err)
		}
	}
	if out, err := e.GitErr(dir, "fsck", "--no-progress"); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}

// TestDirsOfALinkedWorktree: HEAD and the per-worktree refs of a linked worktree are its own,
// branches are shared; a detached HEAD moved in the worktree is the worktree's, as git sees it.
func TestDirsOfALinkedWorktree(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, map[string]string{"a.txt": "a\n"})
	c1 := plumbing.NewHash(e.Git(t, dir, "rev-parse", "HEAD"))
	wt := filepath.Join(t.TempDir(), "wt")
	e.Git(t, dir, "worktree", "add", "-q", "--detach", wt)
	gittest.WriteFiles(t, wt, map[string]string{"a.txt": "b\n"})
	e.Git(t, wt, "commit", "-q", "-am", "in the worktree")
	c2 := plumbing.NewHash(e.Git(t, wt, "rev-parse", "HEAD"))

	gitDir := e.Git(t, wt, "rev-parse", "--absolute-git-dir")
	common := CommonDirOf(gitDir)
	if want := filepath.Join(dir, ".git"); common != want {
		t.Fatalf("CommonDirOf = %s, want %s", common, want)
	}
	dirs := Dirs{GitDir: gitDir, CommonDir: common}
	for name, want := range map[string]string{
		"HEAD": gitDir, "refs/worktree/x": gitDir, "refs/bisect/bad": gitDir, "refs/heads/main": common, "refs/tags/v1": common,
	} {
		if got := filepath.Dir(dirs.Path(plumbing.ReferenceName(name))); !filepath.IsAbs(got) || !isUnder(got, want) {
			t.Errorf("%s is kept in %s, want under %s", name, got, want)
		}
	}
	err := Update{Dirs: dirs, Refs: storage(gitDir), Name: plumbing.HEAD, Old: c2, New: c1}.Apply()
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Git(t, wt, "rev-parse", "HEAD"); got != c1.String() {
		t.Errorf("worktree HEAD = %s, want %s", got, c1)
	}
	if got := e.Git(t, dir, "rev-parse", "HEAD"); got != c1.String() {
		t.Errorf("main HEAD = %s (unchanged at %s expected)", got, c1)
	}
}

func isUnder(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (rel == "." || rel[0] != '.')
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
