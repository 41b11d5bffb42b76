package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conflictRepo makes a repository whose main and topic branches both change a.txt (topic in two
// commits, the second adding c.txt), so that merging, rebasing, cherry-picking or reverting
// across them stops on a conflict.
func (e *testEnv) conflictRepo(t *testing.T) string {
	t.Helper()
	dir := e.newRepo(t, map[string]string{"a.txt": "base\n", "b.txt": "b\n"})
	e.git(t, dir, "checkout", "-q", "-b", "topic")
	writeFiles(t, dir, map[string]string{"a.txt": "topic\n"})
	e.git(t, dir, "commit", "-q", "-am", "topic")
	writeFiles(t, dir, map[string]string{"c.txt": "c\n"})
	e.git(t, dir, "add", "c.txt")
	e.git(t, dir, "commit", "-q", "-m", "topic 2")
	e.git(t, dir, "checkout", "-q", "main")
	writeFiles(t, dir, map[string]string{"a.txt": "main\n"})
	e.git(t, dir, "commit", "-q", "-am", "main")
	return dir
}

// gitFails runs a git command that must fail (it stops on a conflict).
func (e *testEnv) gitFails(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := e.gitErr(dir, args...); err == nil {
		t.Fatalf("git %s did not stop on a conflict:\n%s", strings.Join(args, " "), out)
	}
}

// unfinishedStates are the operations that stop on a conflict, each started with the real git
// CLI in a repository made by conflictRepo.
var unfinishedStates = []struct {
	op    string
	start func(t *testing.T, e *testEnv, dir string)
	hint  string
}{
	{"merge", func(t *testing.T, e *testEnv, dir string) { e.gitFails(t, dir, "merge", "-q", "topic") }, "git merge --abort"},
	{"rebase", func(t *testing.T, e *testEnv, dir string) {
		e.git(t, dir, "checkout", "-q", "topic")
		e.gitFails(t, dir, "rebase", "--merge", "main")
	}, "git rebase --continue"},
	{"rebase", func(t *testing.T, e *testEnv, dir string) {
		e.git(t, dir, "checkout", "-q", "topic")
		e.gitFails(t, dir, "rebase", "--apply", "main")
	}, "git rebase --continue"},
	{"am", func(t *testing.T, e *testEnv, dir string) {
		patch := filepath.Join(t.TempDir(), "topic.patch")
		out := e.git(t, dir, "format-patch", "-1", "--stdout", "topic~1")
		must(t, os.WriteFile(patch, []byte(out+"\n"), 0o644))
		e.gitFails(t, dir, "am", "-3", patch)
	}, "git am --continue"},
	{"cherry-pick", func(t *testing.T, e *testEnv, dir string) { e.gitFails(t, dir, "cherry-pick", "topic~1") }, "git cherry-pick --continue"},
	{"cherry-pick", func(t *testing.T, e *testEnv, dir string) { e.gitFails(t, dir, "cherry-pick", "topic~1", "topic") }, "git cherry-pick --continue"},
	{"revert", func(t *testing.T, e *testEnv, dir string) {
		writeFiles(t, dir, map[string]string{"a.txt": "main again\n"})
		e.git(t, dir, "commit", "-q", "-am", "main again")
		e.gitFails(t, dir, "revert", "--no-edit", "HEAD~")
	}, "git revert --continue"},
}

// TestCommitRefusesUnresolvedConflicts: with unmerged index entries git commit refuses, whatever
// the work tree holds (git commit -a would stage the conflict markers; agent-hooks never does).
// Nothing changes: HEAD, the index and the operation's state are as git left them.
func TestCommitRefusesUnresolvedConflicts(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	base := e.conflictRepo(t)
	for _, st := range unfinishedStates {
		for _, fixed := range []bool{false, true} {
			name := st.op
			if fixed {
				name += "/fixed-in-work-tree"
			}
			t.Run(name, func(t *testing.T) {
				dir := copyTree(t, base)
				st.start(t, e, dir)
				if fixed {
					writeFiles(t, dir, map[string]string{"a.txt": "resolved but not added\n"})
				}
				head := e.git(t, dir, "rev-parse", "HEAD")
				index := e.git(t, dir, "ls-files", "--stage")
				status := e.git(t, dir, "status")

				_, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "agent"})
				var ue *UnfinishedError
				if !errors.As(err, &ue) {
					t.Fatalf("err = %v, want an UnfinishedError", err)
				}
				if ue.Op != st.op || strings.Join(ue.Unmerged, ",") != "a.txt" {
					t.Errorf("error = %+v, want op %s with a.txt unmerged", ue, st.op)
				}
				for _, want := range []string{"a.txt", "git add", st.hint, "nothing was committed"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("message %q does not say %q", err, want)
					}
				}
				if got := e.git(t, dir, "rev-parse", "HEAD"); got != head {
					t.Errorf("HEAD moved to %s", got)
				}
				if got := e.git(t, dir, "ls-files", "--stage"); got != index {
					t.Errorf("index changed:\n%s\nwas:\n%s", got, index)
				}
				if got := e.git(t, dir, "status"); got != status {
					t.Errorf("git status changed:\n%s\nwas:\n%s", got, status)
				}
				e.fsck(t, dir)
			})
		}
	}
}

// TestCommitInTheMiddleOfAnOperation: with every conflict resolved (git add), git would commit.
// A merge is concluded as git concludes it: a merge commit whose second parent is MERGE_HEAD.
// A rebase, am, cherry-pick or revert is refused: the commit would not be the operation's own
// (git rebase --continue and git cherry-pick --continue carry the picked commit's author and
// message, and after a commit in the middle of `git rebase --apply` --continue gets stuck).
func TestCommitInTheMiddleOfAnOperation(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	base := e.conflictRepo(t)
	for _, st := range unfinishedStates {
		t.Run(st.op, func(t *testing.T) {
			dir := copyTree(t, base)
			st.start(t, e, dir)
			writeFiles(t, dir, map[string]string{"a.txt": "resolved\n"})
			e.git(t, dir, "add", "a.txt")
			head := e.git(t, dir, "rev-parse", "HEAD")

			res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "agent"})
			if st.op == "merge" {
				if err != nil {
					t.Fatal(err)
				}
				if got, want := e.git(t, dir, "log", "-1", "--format=%P"), head+" "+e.git(t, dir, "rev-parse", "topic"); got != want {
					t.Errorf("parents = %s, want %s", got, want)
				}
				if res.Hash != e.git(t, dir, "rev-parse", "HEAD") || e.git(t, dir, "show", "HEAD:a.txt") != "resolved" {
					t.Errorf("result %+v", res)
				}
				e.wantClean(t, dir)
				if log := e.git(t, dir, "reflog", "-1", "--format=%gs"); log != "commit (merge): agent" {
					t.Errorf("reflog = %q", log)
				}
				if _, err := os.Stat(filepath.Join(dir, ".git", "MERGE_HEAD")); !os.IsNotExist(err) {
					t.Errorf("MERGE_HEAD left: %v", err)
				}
				e.fsck(t, dir)
				return
			}
			var ue *UnfinishedError
			if !errors.As(err, &ue) || ue.Op != st.op || len(ue.Unmerged) != 0 {
				t.Fatalf("err = %v, want an UnfinishedError for %s", err, st.op)
			}
			if !strings.Contains(err.Error(), st.hint) {
				t.Errorf("message %q does not say %q", err, st.hint)
			}
			if got := e.git(t, dir, "rev-parse", "HEAD"); got != head {
				t.Errorf("HEAD moved to %s", got)
			}
		})
	}
}

// TestCommitStateIsPerWorktree: the conflict of a linked worktree stops a commit there, not in
// the main worktree (MERGE_HEAD, rebase-merge and the index live in each worktree's git dir).
func TestCommitStateIsPerWorktree(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.conflictRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	e.git(t, dir, "worktree", "add", "-q", "-b", "side", wt, "main")
	e.gitFails(t, wt, "merge", "-q", "topic")

	_, err := openRepo(t, e, wt).Commit(context.Background(), CommitOptions{Message: "in the worktree"})
	var ue *UnfinishedError
	if !errors.As(err, &ue) || ue.Op != "merge" {
		t.Fatalf("worktree: err = %v, want an UnfinishedError for the merge", err)
	}
	writeFiles(t, dir, map[string]string{"b.txt": "b2\n"})
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "in the main worktree"})
	if err != nil || !res.Changes {
		t.Fatalf("main worktree: %+v, %v", res, err)
	}
	e.wantClean(t, dir)
}

// TestPushRefusesInTheMiddleOfAnOperation: nothing is pushed while a merge, rebase, am,
// cherry-pick or revert is unfinished: what HEAD holds then is not what the branch will be.
func TestPushRefusesInTheMiddleOfAnOperation(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	base := e.conflictRepo(t)
	for _, st := range unfinishedStates {
		t.Run(st.op, func(t *testing.T) {
			dir := copyTree(t, base)
			bare := e.newBare(t, filepath.Join(t.TempDir(), "remote.git"))
			e.git(t, dir, "remote", "add", "origin", bare)
			st.start(t, e, dir)

			_, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Branch: "main"})
			var ue *UnfinishedError
			if !errors.As(err, &ue) || ue.Op != st.op {
				t.Fatalf("err = %v, want an UnfinishedError for %s", err, st.op)
			}
			if !strings.Contains(err.Error(), "nothing was pushed") {
				t.Errorf("message %q", err)
			}
			if refs := e.git(t, bare, "for-each-ref"); refs != "" {
				t.Errorf("pushed:\n%s", refs)
			}
		})
	}
}
