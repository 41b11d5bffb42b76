package gitops

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// holdLock creates a lock file as a running git process holds it, and returns a check that it is
// still there, untouched.
func holdLock(t *testing.T, path string) func(t *testing.T) {
	t.Helper()
	const content = "held by another process\n"
	must(t, os.WriteFile(path, []byte(content), 0o644))
	return func(t *testing.T) {
		t.Helper()
		if b, err := os.ReadFile(path); err != nil || string(b) != content {
			t.Errorf("%s was not left alone: %q, %v", path, b, err)
		}
	}
}

// TestCommitHonoursRefLocks: git commit refuses while another process holds the lock of the
// branch it moves or of HEAD (checked against git 2.39); packed-refs.lock does not stop it.
func TestCommitHonoursRefLocks(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	base := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	for _, tc := range []struct {
		name     string
		detached bool
		lock     string
		refused  bool
	}{
		{"branch", false, "refs/heads/main.lock", true},
		{"HEAD of a branch", false, "HEAD.lock", true},
		{"detached HEAD", true, "HEAD.lock", true},
		{"packed-refs", false, "packed-refs.lock", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, who := range []string{"git", "gitops"} {
				dir := copyTree(t, base)
				if tc.detached {
					e.git(t, dir, "checkout", "-q", "--detach")
				}
				writeFiles(t, dir, map[string]string{"a.txt": "changed\n"})
				before := e.git(t, dir, "rev-parse", "HEAD")
				untouched := holdLock(t, filepath.Join(dir, ".git", tc.lock))
				var err error
				if who == "git" {
					_, err = e.gitErr(dir, "commit", "-qam", "by git")
				} else {
					_, err = openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "by gitops"})
				}
				if refused := err != nil; refused != tc.refused {
					t.Fatalf("%s: err = %v, want refused %v", who, err, tc.refused)
				}
				untouched(t)
				if !tc.refused {
					e.fsck(t, dir)
					continue
				}
				if got := e.git(t, dir, "rev-parse", "HEAD"); got != before {
					t.Errorf("%s: HEAD moved to %s", who, got)
				}
				if who == "gitops" {
					var le *LockedError
					if !errors.As(err, &le) || le.Path != filepath.Join(dir, ".git", tc.lock) {
						t.Errorf("err = %v, want a LockedError for %s", err, tc.lock)
					}
					if !strings.Contains(err.Error(), "another git process seems to be running") {
						t.Errorf("message %q", err)
					}
					if got := e.git(t, dir, "reflog", "-1", "--format=%H"); got != before {
						t.Errorf("reflog got an entry for %s", got)
					}
				}
			}
		})
	}
}

// TestCommitRefLockInLinkedWorktree: a linked worktree's HEAD lock is its own, the branch's lock
// is in the common directory.
func TestCommitRefLockInLinkedWorktree(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	wt := filepath.Join(t.TempDir(), "wt")
	e.git(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	writeFiles(t, wt, map[string]string{"a.txt": "in the worktree\n"})
	untouched := holdLock(t, filepath.Join(dir, ".git", "refs", "heads", "feature.lock"))
	_, err := openRepo(t, e, wt).Commit(context.Background(), CommitOptions{Message: "wt"})
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want a LockedError", err)
	}
	untouched(t)
	must(t, os.Remove(filepath.Join(dir, ".git", "refs", "heads", "feature.lock")))

	// The main worktree's HEAD.lock is not the linked worktree's.
	holdLock(t, filepath.Join(dir, ".git", "HEAD.lock"))
	res, err := openRepo(t, e, wt).Commit(context.Background(), CommitOptions{Message: "wt"})
	if err != nil {
		t.Fatal(err)
	}
	e.wantRef(t, dir, "feature", res.Hash)
	e.wantClean(t, wt)
	if got := e.git(t, wt, "reflog", "-1", "--format=%gs", "HEAD"); got != "commit: wt" {
		t.Errorf("HEAD reflog = %q", got)
	}
}

// TestCommitUpdatesAPackedBranch: a branch that lives only in packed-refs gets a loose ref, as git
// writes it, and the packed one stays for git to prune.
func TestCommitUpdatesAPackedBranch(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.git(t, dir, "pack-refs", "--all")
	writeFiles(t, dir, map[string]string{"a.txt": "b\n"})
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "packed"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".git", "refs", "heads", "main"))
	if err != nil || string(b) != res.Hash+"\n" {
		t.Errorf("loose ref = %q, %v", b, err)
	}
	e.wantRef(t, dir, "main", res.Hash)
	e.wantClean(t, dir)
}

// TestPushHonoursTheRemoteRefLock: a push to a repository on this machine (served in-process,
// without git-receive-pack) leaves a branch whose lock another process holds alone, as
// git-receive-pack does.
func TestPushHonoursTheRemoteRefLock(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	e.git(t, dir, "push", "-q", "origin", "main")
	before := e.git(t, bare, "rev-parse", "main")
	commitFile(t, e, dir, "b.txt", "b\n")
	untouched := holdLock(t, filepath.Join(bare, "refs", "heads", "main.lock"))
	_, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{})
	if err == nil || !strings.Contains(err.Error(), "another git process seems to be running") {
		t.Fatalf("err = %v, want the lock reported", err)
	}
	untouched(t)
	e.wantRef(t, bare, "main", before)
}

// TestLockedStorageComparesWithWhatItAdvertised: the in-process server updates a branch only if
// it is still where the push saw it (git-receive-pack's compare-and-swap); go-git's server sets
// it unconditionally.
func TestLockedStorageComparesWithWhatItAdvertised(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	e.git(t, dir, "push", "-q", "origin", "main")
	first := e.git(t, dir, "rev-parse", "HEAD")
	second := commitFile(t, e, dir, "b.txt", "b\n")
	third := commitFile(t, e, dir, "c.txt", "c\n")
	e.git(t, dir, "push", "-q", "origin", third+":refs/heads/other")

	sto, err := localLoader{}.Load(mustEndpoint(t, bare))
	must(t, err)
	iter, err := sto.IterReferences() // the advertisement
	must(t, err)
	iter.Close()
	e.git(t, bare, "update-ref", "refs/heads/main", second, first) // someone else's push
	if err := sto.SetReference(plumbing.NewHashReference("refs/heads/main", plumbing.NewHash(third))); err == nil {
		t.Error("the branch moved after the advertisement, and was overwritten")
	}
	e.wantRef(t, bare, "main", second)
	if _, err := os.Stat(filepath.Join(bare, "refs", "heads", "main.lock")); !os.IsNotExist(err) {
		t.Errorf("lock left behind: %v", err)
	}
}

func mustEndpoint(t *testing.T, gitDir string) *transport.Endpoint {
	t.Helper()
	ep, err := transport.NewEndpoint((&url.URL{Scheme: localScheme, Path: filepath.ToSlash(gitDir)}).String())
	must(t, err)
	return ep
}
