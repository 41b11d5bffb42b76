package github

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/github/githubtest"
	"github.com/autoagent/agent-hooks/hooks"
)

func TestFindTarget(t *testing.T) {
	t.Parallel()
	events, _ := filepath.Abs(filepath.Join("testdata", "events"))
	repo := gitRepo(t, "git@github.com:octo/from-origin.git")
	tests := []struct {
		name      string
		env       env
		workspace string
		payload   hooks.Payload
		want      Target
		wantErr   string
	}{
		{"pull_request event", env{"GITHUB_REPOSITORY": "Codertocat/Hello-World", "GITHUB_EVENT_PATH": filepath.Join(events, "pull_request.opened.json")},
			"", nil, Target{"Codertocat", "Hello-World", 2}, ""},
		{"the event's repository without GITHUB_REPOSITORY", env{"GITHUB_EVENT_PATH": filepath.Join(events, "pull_request.opened.json")},
			"", nil, Target{"Codertocat", "Hello-World", 2}, ""},
		{"pull_request_review event wins over the payload", env{"GITHUB_REPOSITORY": "Codertocat/Hello-World", "GITHUB_EVENT_PATH": filepath.Join(events, "pull_request_review.submitted.json")},
			"", hooks.Payload{"prNumber": 9}, Target{"Codertocat", "Hello-World", 2}, ""},
		{"issue_comment on an issue falls back to the payload", env{"GITHUB_REPOSITORY": "Codertocat/Hello-World", "GITHUB_EVENT_PATH": filepath.Join(events, "issue_comment.created.json")},
			"", hooks.Payload{"pullRequest": "#5"}, Target{"Codertocat", "Hello-World", 5}, ""},
		{"payload URL names the repository", env{}, "", hooks.Payload{"pullRequest": "https://github.com/octo/hello/pull/77"}, Target{"octo", "hello", 77}, ""},
		{"a payload URL's repository goes with its number", env{"GITHUB_REPOSITORY": "octo/hello"}, "", hooks.Payload{"pullRequest": "https://github.com/other/agent-target/pull/77"}, Target{"other", "agent-target", 77}, ""},
		{"a payload object's html_url names its repository", env{"GITHUB_REPOSITORY": "octo/hello"}, "", hooks.Payload{"pullRequest": map[string]any{"number": float64(78), "html_url": "https://github.com/other/agent-target/pull/78"}}, Target{"other", "agent-target", 78}, ""},
		{"payload object", env{"GITHUB_REPOSITORY": "octo/hello"}, "", hooks.Payload{"pullRequest": map[string]any{"number": float64(3)}}, Target{"octo", "hello", 3}, ""},
		{"origin remote of the workspace", env{}, filepath.Join(repo, "sub"), hooks.Payload{"prNumber": "41"}, Target{"octo", "from-origin", 41}, ""},
		{"no pull request", env{"GITHUB_REPOSITORY": "octo/hello"}, "", hooks.Payload{}, Target{}, "no pull request"},
		{"bad pullRequest", env{"GITHUB_REPOSITORY": "octo/hello"}, "", hooks.Payload{"pullRequest": "soon"}, Target{}, `payload pullRequest "soon" is not a pull request number or URL`},
		{"no repository anywhere", env{}, t.TempDir(), hooks.Payload{"prNumber": 1}, Target{}, "no GITHUB_REPOSITORY and no git repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := FindTarget(tt.env.get, tt.workspace, tt.payload)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestFindTargetInLinkedWorktree reads the origin remote from a `git worktree add` checkout,
// where agents commonly work: its .git is a file naming a private git directory, and the config
// holding the remotes lives in the main repository's.
func TestFindTargetInLinkedWorktree(t *testing.T) {
	t.Parallel()
	repo := gitRepo(t, "https://github.com/octo/from-worktree.git")
	wt := filepath.Join(t.TempDir(), "wt")
	for _, args := range [][]string{
		{"-C", repo, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "init"},
		{"-C", repo, "worktree", "add", "-q", "-b", "agent", wt},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.Mkdir(filepath.Join(wt, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ws := range []string{wt, filepath.Join(wt, "pkg")} {
		got, err := FindTarget(env{}.get, ws, hooks.Payload{"prNumber": 7})
		if want := (Target{"octo", "from-worktree", 7}); err != nil || got != want {
			t.Errorf("workspace %s: got %+v, %v; want %+v", ws, got, err, want)
		}
	}
}

// TestFindTargetNeverShowsOriginCredentials: an origin URL that names no owner/repo is quoted in
// the error without the token it carries (actions/checkout-style remotes hold one).
func TestFindTargetNeverShowsOriginCredentials(t *testing.T) {
	t.Parallel()
	repo := gitRepo(t, "https://x-access-token:ghs_origin_secret@github.com/only-one-part")
	_, err := FindTarget(env{}.get, repo, hooks.Payload{"prNumber": 7})
	if err == nil || !strings.Contains(err.Error(), "cannot read owner/repo from origin") {
		t.Fatalf("err = %v, want the origin named as unreadable", err)
	}
	if strings.Contains(err.Error(), "ghs_origin_secret") {
		t.Errorf("the error shows the token: %v", err)
	}
}

// gitRepo makes a repository with the real git CLI, with origin set to remote.
func gitRepo(t *testing.T, remote string) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", dir}, {"-C", dir, "remote", "add", "origin", remote}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestParseRemoteURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, owner, repo string }{
		{"https://github.com/octo/hello.git", "octo", "hello"},
		{"https://x-access-token:secret@github.com/octo/hello", "octo", "hello"},
		{"ssh://git@github.example.com:22/octo/hello.git", "octo", "hello"},
		{"git@github.com:octo/hello.git", "octo", "hello"},
		{"git@github.com:octo/hello/", "octo", "hello"},
		{"/srv/git/hello.git", "", ""},
		{"https://github.com/hello", "", ""},
	} {
		o, r, ok := ParseRemoteURL(tt.in)
		if o != tt.owner || r != tt.repo || ok != (tt.owner != "") {
			t.Errorf("ParseRemoteURL(%q) = %q, %q, %v", tt.in, o, r, ok)
		}
	}
}

// TestEnterpriseAPIURL: GITHUB_API_URL of GitHub Enterprise Server ends in /api/v3, with or
// without a slash; requests must go below it, not to /api/v3/api/v3.
func TestEnterpriseAPIURL(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"/api/v3", "/api/v3/"} {
		s := newServer(t, "agent-bot")
		answerRequest(s, func(s *githubtest.Server) { s.AddComment(prNumber, "alice", "/approve", time.Time{}) })
		e := serverEnv(s)
		e["GITHUB_API_URL"] = s.URL + suffix
		inv, _ := invocation(e, hooks.PreExecutionStart, 10*time.Second, nil)
		if out := configureApproval(t, Options{}, `{"pollInterval": 10}`).Run(context.Background(), inv); out.Status != hooks.StatusOK {
			t.Fatalf("%s: got %s %q", suffix, out.Status, out.Reason)
		}
		for _, rq := range s.Requests() {
			if !strings.HasPrefix(rq.Path, "/api/v3/") || strings.HasPrefix(rq.Path, "/api/v3/api/v3") {
				t.Errorf("%s: request to %s", suffix, rq.Path)
			}
		}
	}
}

func TestApprovalErrorsAreOneLine(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	tests := []struct {
		name string
		env  env
		prep func()
		want string
	}{
		{"missing token", env{"GITHUB_API_URL": s.URL, "GITHUB_REPOSITORY": "octo/hello"}, nil,
			"github approval could not be decided: no GitHub token: set GITHUB_TOKEN or GH_TOKEN"},
		{"401", env{"GITHUB_TOKEN": "ghp_wrong_secret", "GITHUB_API_URL": s.URL, "GITHUB_REPOSITORY": "octo/hello"}, nil,
			"get pull request octo/hello#12: 401 from GET /repos/octo/hello/pulls/12 (Bad credentials): the GitHub token is invalid or expired"},
		{"403", serverEnv(s), func() {
			s.Fail(githubtest.Fault{Method: "POST", PathSuffix: "/issues/12/comments", Count: 1, Status: 403,
				Body: `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment"}`})
		}, "comment on octo/hello#12: 403 from POST /repos/octo/hello/issues/12/comments (Resource not accessible by integration): GitHub refused the token; it needs pull-requests: write and issues: write"},
		{"404", env{"GITHUB_TOKEN": testToken, "GITHUB_API_URL": s.URL, "GITHUB_REPOSITORY": "octo/nope"}, nil,
			"get pull request octo/nope#12: 404 from GET /repos/octo/nope/pulls/12 (Not Found): check the repository and pull request number"},
		{"bad API URL", env{"GITHUB_TOKEN": testToken, "GITHUB_API_URL": "api.github.com", "GITHUB_REPOSITORY": "octo/hello"}, nil,
			`GITHUB_API_URL "api.github.com" is not an absolute URL`},
	}
	for _, tt := range tests {
		// Sequential: the 403 fault is queued on the shared server.
		if tt.prep != nil {
			tt.prep()
		}
		inv, _ := invocation(tt.env, hooks.PreExecutionStart, time.Second, nil)
		out := configureApproval(t, Options{}, `{"pollInterval": 10}`).Run(context.Background(), inv)
		if out.Status != hooks.StatusBlocked || !strings.Contains(out.Reason, tt.want) {
			t.Errorf("%s: got %s %q, want a block whose reason contains %q", tt.name, out.Status, out.Reason, tt.want)
		}
		if strings.Contains(out.Reason, "\n") || strings.Contains(out.Reason, testToken) || strings.Contains(out.Reason, "ghp_wrong_secret") {
			t.Errorf("%s: reason is not one line without the token: %q", tt.name, out.Reason)
		}
	}
}
