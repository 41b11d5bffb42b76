package gitops

import (
	"context"
	"testing"
)

// TestCommitLeavesIntentToAddToGit: an intent-to-add entry (git add -N) that a commit leaves in
// the index, outside the selection, must not make the index's cache tree lie: git marks every
// directory above such an entry invalid, since the entry is in the index but not in the trees.
// A cache tree counting it out made git's next commit write a tree listing dir/a.txt twice.
func TestCommitLeavesIntentToAddToGit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"dir/a.txt": "a\n", "top.txt": "t\n", "other.txt": "o\n", "zz/b.txt": "b\n"})
	writeFiles(t, dir, map[string]string{"dir/new.txt": "n\n", "only-new/x.txt": "x\n", "top.txt": "t2\n"})
	e.git(t, dir, "add", "-N", "dir/new.txt", "only-new/x.txt")
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "top only", Selection: Selection{Paths: []string{"top.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := filesString(res.Files); got != "M\ttop.txt" {
		t.Errorf("committed %q", got)
	}
	if got := e.git(t, dir, "ls-tree", "-r", "--name-only", "HEAD"); got != "dir/a.txt\nother.txt\ntop.txt\nzz/b.txt" {
		t.Errorf("tree:\n%s", got)
	}
	if got := e.gitStdout(t, dir, "status", "--porcelain"); got != "A dir/new.txt\n A only-new/x.txt" {
		t.Errorf("git status = %q, want the intent-to-add entries kept", got)
	}
	e.fsck(t, dir)

	// git commits on top, trusting what the cache tree says is valid.
	writeFiles(t, dir, map[string]string{"other.txt": "o2\n"})
	e.git(t, dir, "add", "other.txt")
	e.git(t, dir, "commit", "-q", "-m", "by git")
	if got := e.git(t, dir, "ls-tree", "-r", "--name-only", "HEAD"); got != "dir/a.txt\nother.txt\ntop.txt\nzz/b.txt" {
		t.Errorf("git's commit after ours has the tree:\n%s", got)
	}
	e.fsck(t, dir)
}
