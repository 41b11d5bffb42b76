package gitops

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestHead reads HEAD as `git symbolic-ref` and `git rev-parse` do, from the main work tree, a
// subfolder and a linked worktree (whose HEAD is its own and whose refs are shared, packed here).
func TestHead(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	unborn := filepath.Join(t.TempDir(), "unborn")
	e.git(t, "", "init", "-q", "-b", "feature/x", unborn)

	dir := e.newRepo(t, map[string]string{"sub/a.txt": "a\n"})
	main := e.git(t, dir, "rev-parse", "HEAD")
	wt := filepath.Join(t.TempDir(), "wt")
	e.git(t, dir, "worktree", "add", "-q", "-b", "agent", wt)
	writeFiles(t, wt, map[string]string{"b.txt": "b\n"})
	e.git(t, wt, "add", "b.txt")
	e.git(t, wt, "commit", "-q", "-m", "in the worktree")
	tip := e.git(t, wt, "rev-parse", "HEAD")
	e.git(t, dir, "pack-refs", "--all")
	detached := copyTree(t, dir)
	e.git(t, detached, "checkout", "-q", "--detach", "HEAD")

	for _, tc := range []struct {
		name, dir      string
		branch, commit string
	}{
		{"unborn branch", unborn, "feature/x", ""},
		{"main work tree", dir, "main", main},
		{"subfolder", filepath.Join(dir, "sub"), "main", main},
		{"linked worktree", wt, "agent", tip},
		{"detached", detached, "", main},
	} {
		branch, commit, err := Head(tc.dir)
		if err != nil || branch != tc.branch || commit != tc.commit {
			t.Errorf("%s: Head = %q, %q, %v; want %q, %q", tc.name, branch, commit, err, tc.branch, tc.commit)
		}
	}
	if _, _, err := Head(t.TempDir()); !errors.Is(err, ErrNotRepository) {
		t.Errorf("outside a repository: err = %v, want ErrNotRepository", err)
	}
}

// TestRemoteURL reads a remote's URL from the shared config, also from a linked worktree.
func TestRemoteURL(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.git(t, dir, "remote", "add", "origin", "git@github.com:octo/hello.git")
	e.git(t, dir, "remote", "add", "fork", "https://github.com/someone/hello.git")
	wt := filepath.Join(t.TempDir(), "wt")
	e.git(t, dir, "worktree", "add", "-q", "-b", "agent", wt)
	must(t, os.Mkdir(filepath.Join(wt, "pkg"), 0o755))

	for _, d := range []string{dir, wt, filepath.Join(wt, "pkg")} {
		if got, err := Origin(d); err != nil || got != "git@github.com:octo/hello.git" {
			t.Errorf("Origin(%s) = %q, %v", d, got, err)
		}
		if got, err := RemoteURL(d, "fork"); err != nil || got != "https://github.com/someone/hello.git" {
			t.Errorf("RemoteURL(%s, fork) = %q, %v", d, got, err)
		}
	}
	if _, err := RemoteURL(wt, "upstream"); !errors.Is(err, ErrNoRemote) {
		t.Errorf("missing remote: err = %v, want ErrNoRemote", err)
	}
	if _, err := Origin(t.TempDir()); !errors.Is(err, ErrNotRepository) {
		t.Errorf("outside a repository: err = %v, want ErrNotRepository", err)
	}
}
