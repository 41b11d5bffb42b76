package github

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/github/githubtest"
	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/hooks"
)

// apiRepo is a local repository whose origin is the fake GitHub's repository (served over smart
// HTTP), both at the same first commit, for git-commit "via": "github-api".
type apiRepo struct {
	s          *githubtest.Server
	dir, bare  string
	env        env
	home, auth string
}

// git runs the git CLI in dir (with the token for the fake's smart HTTP) and returns its
// trimmed stdout; a failure fails the test.
func (a *apiRepo) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := a.gitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (a *apiRepo) gitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "http.extraHeader=Authorization: Basic " + a.auth}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + a.home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"), "LANG=C",
		"GIT_COMMITTER_NAME=Someone", "GIT_COMMITTER_EMAIL=someone@example.com", "GIT_AUTHOR_NAME=Someone", "GIT_AUTHOR_EMAIL=someone@example.com"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return strings.TrimSpace(string(out) + stderr.String()), err
	}
	return strings.TrimSpace(string(out)), nil
}

func (a *apiRepo) write(t *testing.T, name, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(a.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// newAPIRepo starts a fake GitHub for octo/hello whose token's account is login ("": an
// installation token) and clones it.
func newAPIRepo(t *testing.T, login string) *apiRepo {
	t.Helper()
	s := githubtest.New("octo", "hello", testToken, login)
	t.Cleanup(s.Close)
	bare, err := s.ServeGit(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := &apiRepo{s: s, bare: bare, home: t.TempDir(), dir: filepath.Join(t.TempDir(), "work"),
		auth: base64.StdEncoding.EncodeToString([]byte("x-access-token:" + testToken))}
	a.git(t, "", "init", "-q", "-b", "main", a.dir)
	a.git(t, a.dir, "config", "user.name", "Agent")
	a.git(t, a.dir, "config", "user.email", "agent@example.com")
	a.write(t, "a.txt", "a\n", 0o644)
	a.write(t, "gone.txt", "gone\n", 0o644)
	a.write(t, "run.sh", "#!/bin/sh\n", 0o644)
	a.write(t, "dir/b.txt", "b\n", 0o644)
	a.git(t, a.dir, "add", "-A")
	a.git(t, a.dir, "commit", "-q", "-m", "first")
	a.git(t, a.dir, "remote", "add", "origin", s.GitURL())
	a.git(t, a.dir, "push", "-q", "-u", "origin", "main")
	a.env = env{
		"GITHUB_TOKEN": testToken, "GITHUB_API_URL": s.URL, "GITHUB_SERVER_URL": s.URL,
		"HOME": a.home, "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.Getenv("PATH"),
	}
	return a
}

// change makes every kind of change: a modified file, a binary new file in a new directory, a
// deleted file, an executable bit, a symbolic link.
func (a *apiRepo) change(t *testing.T) {
	t.Helper()
	a.write(t, "a.txt", "a, changed\n", 0o644)
	a.write(t, "new/bin.dat", "\x00\x01\x02\xff binary\n", 0o644)
	a.write(t, "run.sh", "#!/bin/sh\n", 0o755)
	if err := os.Remove(filepath.Join(a.dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir/b.txt", filepath.Join(a.dir, "link")); err != nil {
		t.Fatal(err)
	}
}

// commit runs a git-commit hook with options through the real hook type.
func (a *apiRepo) commit(t *testing.T, options string) hooks.Outcome {
	t.Helper()
	r, err := gitops.CommitType{GitHubAPI: CommitViaAPI(Options{})}.Configure(&hooks.Hook{Name: "commit"}, json.RawMessage(options))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	return r.Run(context.Background(), &hooks.Invocation{
		Hook: &hooks.Hook{Name: "commit", Type: gitops.TypeCommit}, Event: hooks.PostExecutionEnd,
		Payload: hooks.Payload{"issueNumber": 7, "issueTitle": "Login"}, Workspace: a.dir,
		Getenv: a.env.get, Environ: a.env.environ(), Stdout: &stdout, Stderr: &stderr,
	})
}

func (e env) environ() []string {
	var out []string
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}

// TestCommitViaAPI: the commit is made on GitHub (blobs, tree, commit, ref) and signed there;
// the local branch is then that very object — the same id and bytes as GitHub's, so git status
// is clean, the branch is level with origin/main and a push has nothing to do — and its tree is
// the one a local commit would have made.
func TestCommitViaAPI(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, login string
		verified    bool
		fetched     bool
	}{
		{"an installation token: signed, the object rebuilt from GitHub's payload", "", true, false},
		{"a user's token: unsigned, the object fetched", "octocat", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newAPIRepo(t, tt.login)
			a.change(t)
			// The tree a local commit would make, for comparison.
			a.git(t, a.dir, "add", "-A")
			wantTree := a.git(t, a.dir, "write-tree")
			a.git(t, a.dir, "reset", "-q")
			parent := a.git(t, a.dir, "rev-parse", "HEAD")

			out := a.commit(t, `{"via": "github-api"}`)
			if out.Status != hooks.StatusOK {
				t.Fatalf("git-commit: %s %q\n%s", out.Status, out.Reason, out.Stderr)
			}
			sha, _ := out.Details["commitSha"].(string)
			if out.Details["via"] != "github-api" || out.Details["verified"] != tt.verified {
				t.Errorf("details %v, want via github-api, verified %v", out.Details, tt.verified)
			}
			if got := a.git(t, a.bare, "rev-parse", "refs/heads/main"); got != sha {
				t.Fatalf("GitHub's main is %s, the hook reports %s", got, sha)
			}
			if got := a.git(t, a.dir, "rev-parse", "HEAD"); got != sha {
				t.Fatalf("local HEAD %s, want GitHub's commit %s", got, sha)
			}
			local, remote := a.git(t, a.dir, "cat-file", "commit", sha), a.git(t, a.bare, "cat-file", "commit", sha)
			if local != remote {
				t.Fatalf("git cat-file differs:\nlocal:\n%s\nGitHub:\n%s", local, remote)
			}
			if signed := strings.Contains(local, "\ngpgsig -----BEGIN PGP SIGNATURE-----"); signed != tt.verified {
				t.Errorf("signed %v, want %v:\n%s", signed, tt.verified, local)
			}
			if got := a.git(t, a.dir, "rev-parse", "HEAD^{tree}"); got != wantTree {
				t.Errorf("tree %s, want %s as a local commit makes", got, wantTree)
			}
			if got := a.git(t, a.dir, "rev-parse", "HEAD^"); got != parent {
				t.Errorf("parent %s, want %s", got, parent)
			}
			if got := a.git(t, a.dir, "log", "-1", "--format=%s"); got != "Complete issue #7: Login" {
				t.Errorf("subject %q", got)
			}
			if got := a.git(t, a.dir, "status", "--porcelain=v2", "--branch"); !strings.Contains(got, "# branch.oid "+sha) ||
				!strings.Contains(got, "# branch.ab +0 -0") || strings.Contains(got, "\n1 ") || strings.Contains(got, "\n?") {
				t.Errorf("git status:\n%s\nwant clean and level with origin/main", got)
			}
			a.git(t, a.dir, "fsck", "--strict", "--no-progress")
			if got := a.git(t, a.dir, "reflog", "-1", "--format=%gs", "main"); got != "commit: Complete issue #7: Login" {
				t.Errorf("reflog %q", got)
			}
			// A push afterwards has nothing to do: with git, and with git-push.
			if got, err := a.gitErr(a.dir, "push", "--porcelain", "origin", "main"); err != nil || !strings.Contains(got, "[up to date]") {
				t.Errorf("git push: %v\n%s", err, got)
			}
			r, err := gitops.Open(a.dir, gitops.Env{Getenv: a.env.get})
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Push(context.Background(), gitops.PushOptions{Remote: "origin", Branch: "main"})
			if err != nil || !res.UpToDate {
				t.Errorf("git-push after the commit: %+v %v, want up to date", res, err)
			}
			if got := a.git(t, a.bare, "rev-parse", "refs/heads/main"); got != sha {
				t.Errorf("GitHub's main moved to %s after the pushes", got)
			}
		})
	}
}

// TestCommitViaAPIRefuses: where GitHub cannot take the commit, or it would not follow the
// branch, nothing is committed, locally or on GitHub, and the reason says why.
func TestCommitViaAPIRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, a *apiRepo)
		want  string
	}{
		{"a remote that is not GitHub", func(t *testing.T, a *apiRepo) {
			a.git(t, a.dir, "remote", "set-url", "origin", "https://gitlab.com/octo/hello.git")
		}, "the remote origin (https://gitlab.com/octo/hello.git) is not on GitHub"},
		{"a local remote", func(t *testing.T, a *apiRepo) {
			a.git(t, a.dir, "remote", "set-url", "origin", a.bare)
		}, "is not a repository URL"},
		{"another GitHub than the run's", func(t *testing.T, a *apiRepo) {
			a.git(t, a.dir, "remote", "set-url", "origin", "https://github.com/octo/hello.git")
		}, "is on github.com, but this run's GitHub is 127.0.0.1 (GITHUB_SERVER_URL)"},
		{"a token that cannot write contents", func(t *testing.T, a *apiRepo) {
			a.s.SetTokenPermissions("contents=read,pull_requests=write")
		}, "403 from POST /repos/octo/hello/git/blobs (Resource not accessible by integration): the token lacks contents: write; add `permissions: contents: write` to the job"},
		{"GitHub's branch ahead of the local one", func(t *testing.T, a *apiRepo) {
			other := a.git(t, a.bare, "commit-tree", "-p", "main", "-m", "elsewhere", "main^{tree}")
			a.git(t, a.bare, "update-ref", "refs/heads/main", other)
		}, "main on GitHub is at "},
		{"GitHub's branch moving while committing", func(t *testing.T, a *apiRepo) {
			a.s.Before("PATCH", "/git/refs/heads/main", 1, func() {
				other := a.git(t, a.bare, "commit-tree", "-p", "main", "-m", "elsewhere", "main^{tree}")
				a.git(t, a.bare, "update-ref", "refs/heads/main", other)
			})
		}, "422 from PATCH /repos/octo/hello/git/refs/heads/main (Update is not a fast forward): main moved on GitHub since it was checked (someone pushed), and the new commit would not follow it"},
		{"a detached HEAD", func(t *testing.T, a *apiRepo) {
			a.git(t, a.dir, "checkout", "-q", "--detach")
		}, "HEAD is detached"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newAPIRepo(t, "")
			a.change(t)
			tt.setup(t, a)
			head := a.git(t, a.dir, "rev-parse", "HEAD")
			remote := a.git(t, a.bare, "rev-parse", "refs/heads/main")
			out := a.commit(t, `{"via": "github-api"}`)
			if out.Status != hooks.StatusError || !strings.Contains(out.Reason, tt.want) {
				t.Fatalf("got %s %q, want an error %q", out.Status, out.Reason, tt.want)
			}
			if strings.Contains(out.Reason, testToken) {
				t.Errorf("the token leaked: %q", out.Reason)
			}
			if got := a.git(t, a.dir, "rev-parse", "HEAD"); got != head {
				t.Errorf("local HEAD moved to %s", got)
			}
			if got := a.git(t, a.bare, "rev-parse", "refs/heads/main"); got != remote && tt.name != "GitHub's branch moving while committing" {
				t.Errorf("GitHub's main moved to %s", got)
			}
			if got := a.git(t, a.dir, "status", "--porcelain"); !strings.Contains(got, "a.txt") {
				t.Errorf("the work tree's changes are gone:\n%s", got)
			}
		})
	}
}
