package gitops

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/gitops/internal/gittest"
)

// testEnv is an isolated environment for the real git CLI and for gitops: its own HOME, no
// system or user git config unless a test writes one.
type testEnv struct {
	home string
	vars map[string]string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	home := t.TempDir()
	return &testEnv{home: home, vars: map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"PATH":                os.Getenv("PATH"),
		"LANG":                "C",
	}}
}

func (e *testEnv) getenv(k string) string { return e.vars[k] }

func (e *testEnv) environ() []string {
	var out []string
	for k, v := range e.vars {
		out = append(out, k+"="+v)
	}
	return out
}

func (e *testEnv) gitops() Env { return Env{Getenv: e.getenv, Environ: e.environ()} }

// git runs the real git CLI in dir and returns its trimmed stdout.
func (e *testEnv) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := e.gitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// gitStdout runs the real git CLI in dir and returns its stdout alone (git's warnings go to
// stderr).
func (e *testEnv) gitStdout(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = e.environ()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(b))
}

func (e *testEnv) gitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = e.environ()
	b, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(b)), err
}

// newRepo makes a repository with an identity in its config and one commit of files.
func (e *testEnv) newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	e.git(t, "", "init", "-q", "-b", "main", dir)
	e.git(t, dir, "config", "user.name", "Repo User")
	e.git(t, dir, "config", "user.email", "repo@example.com")
	writeFiles(t, dir, files)
	e.git(t, dir, "add", "-A")
	e.git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial")
	return dir
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	gittest.WriteFiles(t, dir, files)
}

// fsck fails the test unless `git fsck --strict` finds the repository clean.
func (e *testEnv) fsck(t *testing.T, dir string) {
	t.Helper()
	(&gittest.Env{Home: e.home, Vars: e.vars}).Fsck(t, dir)
}

// copyTree copies a directory (a repository and its work tree) with cp -a.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v\n%s", err, out)
	}
	return dst
}

func openRepo(t *testing.T, e *testEnv, dir string) *Repo {
	t.Helper()
	r, err := Open(dir, e.gitops())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// repoWithRemote makes a repository (newRepo with one file) and an empty bare repository
// configured as its remote name.
func (e *testEnv) repoWithRemote(t *testing.T, name string) (dir, bare string) {
	t.Helper()
	dir = e.newRepo(t, map[string]string{"a.txt": "a\n"})
	bare = e.newBare(t, filepath.Join(t.TempDir(), "remote.git"))
	e.git(t, dir, "remote", "add", name, bare)
	return dir, bare
}

// wantRef fails the test unless ref of repo is at want, and checks repo with git fsck --strict.
func (e *testEnv) wantRef(t *testing.T, repo, ref, want string) {
	t.Helper()
	if got := e.git(t, repo, "rev-parse", ref); got != want {
		t.Errorf("%s in %s = %s, want %s", ref, repo, got, want)
	}
	e.fsck(t, repo)
}

// wantClean fails the test unless `git status --porcelain` in dir is empty.
func (e *testEnv) wantClean(t *testing.T, dir string) {
	t.Helper()
	if st := e.git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status in %s:\n%s", dir, st)
	}
}

// unsetIdentity removes user.name and user.email from dir's config.
func (e *testEnv) unsetIdentity(t *testing.T, dir string) {
	t.Helper()
	e.git(t, dir, "config", "--unset", "user.name")
	e.git(t, dir, "config", "--unset", "user.email")
}
