package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/gitops/internal/gittest"
)

// TestLockKeepsGitOut: while the index lock is held here, git cannot update the index; released,
// it can.
func TestLockKeepsGitOut(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, map[string]string{"a.txt": "a\n"})
	index := filepath.Join(dir, ".git", "index")
	l, err := Lock(index, "index")
	if err != nil {
		t.Fatal(err)
	}
	gittest.WriteFiles(t, dir, map[string]string{"b.txt": "b\n"})
	if out, err := e.GitErr(dir, "add", "b.txt"); err == nil || !strings.Contains(out, "index.lock': File exists") {
		t.Errorf("git add while the lock is held: %v\n%s", err, out)
	}
	l.Release()
	l.Release() // twice is harmless
	if _, err := os.Stat(index + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left after Release: %v", err)
	}
	e.Git(t, dir, "add", "b.txt")
	if got := e.Git(t, dir, "diff", "--cached", "--name-only"); got != "b.txt" {
		t.Errorf("staged %q", got)
	}
}

// TestLockRefusesWhatGitHolds: a lock another process holds (or left) is a LockedError naming
// it, and the lock and the file are left as they are.
func TestLockRefusesWhatGitHolds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "refs", "heads", "main")
	gittest.WriteFiles(t, dir, map[string]string{"refs/heads/main": "old\n", "refs/heads/main.lock": "git's\n"})
	_, err := Lock(file, "refs/heads/main")
	var le *LockedError
	if !errors.As(err, &le) || le.Path != file+".lock" || le.What != "refs/heads/main" {
		t.Fatalf("err = %v, want a LockedError for the ref", err)
	}
	if !strings.Contains(err.Error(), "another git process seems to be running") {
		t.Errorf("message %q", err)
	}
	for p, want := range map[string]string{file: "old\n", file + ".lock": "git's\n"} {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s = %q, want %q", p, b, want)
		}
	}
}

// TestCommitReplacesTheFile: what is written to the lock replaces the file at Commit (making the
// directories above it), the lock is gone, and a Release after Commit changes nothing.
func TestCommitReplacesTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "logs", "refs", "heads", "new")
	l, err := Lock(file, "new")
	if err != nil {
		t.Fatal(err)
	}
	if l.Path() != file+".lock" {
		t.Errorf("Path = %s", l.Path())
	}
	if _, err := l.Write([]byte("first ")); err != nil {
		t.Fatal(err)
	}
	if err := l.CommitData([]byte("second\n")); err != nil {
		t.Fatal(err)
	}
	l.Release()
	if b, err := os.ReadFile(file); err != nil || string(b) != "first second\n" {
		t.Errorf("file = %q, %v", b, err)
	}
	if _, err := os.Stat(file + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left: %v", err)
	}
}
