package githead

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// want is HEAD as the git CLI reads it in dir.
func want(t *testing.T, dir string) (branch, commit string) {
	t.Helper()
	cmd := exec.Command("git", "symbolic-ref", "-q", "--short", "HEAD")
	cmd.Dir = dir
	if out, err := cmd.Output(); err == nil {
		branch = strings.TrimSpace(string(out))
	}
	cmd = exec.Command("git", "rev-parse", "-q", "--verify", "HEAD")
	cmd.Dir = dir
	if out, err := cmd.Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}
	return branch, commit
}

func check(t *testing.T, name, dir string) {
	t.Helper()
	b, c, err := Read(dir)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	wb, wc := want(t, dir)
	if b != wb || c != wc {
		t.Errorf("%s: got (%q, %q), git says (%q, %q)", name, b, c, wb, wc)
	}
}

// TestReadAsGit compares Read with the git CLI: an unborn branch, a branch, a subdirectory, a
// packed ref, a detached HEAD, a linked worktree and a nested branch name.
func TestReadAsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	check(t, "unborn", repo)
	os.WriteFile(filepath.Join(repo, "a"), []byte("a"), 0o644)
	git(t, repo, "add", "a")
	git(t, repo, "commit", "-q", "-m", "a")
	check(t, "branch", repo)
	sub := filepath.Join(repo, "x", "y")
	os.MkdirAll(sub, 0o755)
	check(t, "subdirectory", sub)
	git(t, repo, "checkout", "-q", "-b", "feature/deep")
	git(t, repo, "pack-refs", "--all")
	check(t, "packed", repo)
	git(t, repo, "checkout", "-q", "--detach")
	check(t, "detached", repo)
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, repo, "worktree", "add", "-q", "-b", "wt-branch", wt)
	check(t, "worktree", wt)
	os.WriteFile(filepath.Join(wt, "b"), []byte("b"), 0o644)
	git(t, wt, "add", "b")
	git(t, wt, "commit", "-q", "-m", "b")
	check(t, "worktree after a commit", wt)
	check(t, "main repository still detached", repo)
}

func TestNotARepository(t *testing.T) {
	if _, _, err := Read(t.TempDir()); err == nil {
		t.Skip("the temporary directory is inside a repository")
	}
}
