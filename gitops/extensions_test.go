package gitops

import (
	"context"
	"testing"
)

// TestCommitKeepsResolveUndo: git add and git commit keep the resolve-undo record of a conflict
// resolved with git add (the REUC index extension, which `git checkout -m <path>` uses to bring
// the conflict back); concluding the merge with agent-hooks keeps it too.
func TestCommitKeepsResolveUndo(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.conflictRepo(t)
	e.gitFails(t, dir, "merge", "-q", "topic")
	writeFiles(t, dir, map[string]string{"a.txt": "resolved\n"})
	e.git(t, dir, "add", "a.txt")
	want := e.git(t, dir, "ls-files", "--resolve-undo")
	if want == "" {
		t.Fatal("git recorded no resolve-undo information")
	}
	ref := copyTree(t, dir)
	e.git(t, ref, "commit", "-q", "--no-edit")

	if _, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "merged"}); err != nil {
		t.Fatal(err)
	}
	if got := e.git(t, dir, "ls-files", "--resolve-undo"); got != want {
		t.Errorf("resolve-undo after the commit:\n%s\nwant, as after git commit (%q):\n%s", got, e.git(t, ref, "ls-files", "--resolve-undo"), want)
	}
	e.git(t, dir, "checkout", "-m", "a.txt") // brings the conflict back, as it would after git commit
	if got := e.git(t, dir, "ls-files", "--unmerged", "a.txt"); got == "" {
		t.Error("git checkout -m could not recreate the conflict")
	}
}
