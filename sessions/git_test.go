package sessions

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runGit runs the real git CLI in dir and returns its trimmed output.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestGitInfo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	runGit(t, repo, "init", "-q", "-b", "feature/login")
	sub := filepath.Join(repo, "src", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}

	if b, c := GitInfo(sub); b != "feature/login" || c != "" {
		t.Errorf("unborn branch: GitInfo = %q, %q; want feature/login and no commit", b, c)
	}

	runGit(t, repo, "commit", "-q", "--allow-empty", "-m", "one")
	head := runGit(t, repo, "rev-parse", "HEAD")
	if b, c := GitInfo(sub); b != "feature/login" || c != head {
		t.Errorf("from a subfolder: GitInfo = %q, %q; want feature/login %s", b, c, head)
	}

	runGit(t, repo, "commit", "-q", "--allow-empty", "-m", "two")
	runGit(t, repo, "checkout", "-q", "--detach", "HEAD~1")
	if b, c := GitInfo(repo); b != "" || c != head {
		t.Errorf("detached: GitInfo = %q, %q; want no branch and %s", b, c, head)
	}

	// A linked worktree: .git is a file pointing into the main repository.
	wt := filepath.Join(t.TempDir(), "wt")
	runGit(t, repo, "worktree", "add", "-q", "-b", "other", wt, "feature/login")
	tip := runGit(t, repo, "rev-parse", "feature/login")
	if b, c := GitInfo(wt); b != "other" || c != tip {
		t.Errorf("worktree: GitInfo = %q, %q; want other %s", b, c, tip)
	}

	if b, c := GitInfo(t.TempDir()); b != "" || c != "" {
		t.Errorf("outside a repository: GitInfo = %q, %q; want nothing", b, c)
	}
}
