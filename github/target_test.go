package github

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
		// REST under /api/v3, GraphQL (the edits of the request and the answer) at /api/graphql.
		graphQL := false
		for _, rq := range s.Requests() {
			graphQL = graphQL || rq.Path == "/api/graphql"
			if rq.Path != "/api/graphql" && (!strings.HasPrefix(rq.Path, "/api/v3/") || strings.HasPrefix(rq.Path, "/api/v3/api/v3")) {
				t.Errorf("%s: request to %s", suffix, rq.Path)
			}
		}
		if !graphQL {
			t.Errorf("%s: no request to /api/graphql: %+v", suffix, s.Requests())
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

// TestResolveTarget: on events that carry no pull request, the pull request is found on
// GitHub, by the run's commit first, then by its branch; several candidates are an error that
// names them, none is an error that says what to do.
func TestResolveTarget(t *testing.T) {
	t.Parallel()
	events, _ := filepath.Abs(filepath.Join("testdata", "events"))
	const pushed = "6113728f27ae82c7b1a177c8d03f9e96e0adf246" // push.json's "after", on refs/heads/master
	const run = "3484a3fb816e0859fd6e1cea078d76385ff50625"    // workflow_run.completed.json's head_sha on master of octo-org
	push := env{"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": filepath.Join(events, "push.json")}
	wrun := env{"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": filepath.Join(events, "workflow_run.completed.json")}
	for _, tt := range []struct {
		name    string
		env     env
		setup   func(s *githubtest.Server)
		want    int
		wantErr string
		queries []string // the lookups made, in order
	}{
		{"push: the pull request whose head is the commit", push, func(s *githubtest.Server) {
			s.AddPR(3, pushed)
			s.AddPR(4, "1111111111111111111111111111111111111111")
		}, 3, "", []string{"/repos/octo/hello/commits/" + pushed + "/pulls"}},
		{"push: an older commit of one pull request", push, func(s *githubtest.Server) {
			s.AddPR(5, pushed)
			s.AddPR(5, "2222222222222222222222222222222222222222")
		}, 5, "", nil},
		{"push: two pull requests of the commit, told apart by the branch", push, func(s *githubtest.Server) {
			s.AddPR(6, pushed)
			s.AddPR(7, pushed)
			s.SetPRBranch(7, "master")
		}, 7, "", nil},
		{"push: two pull requests of the commit, from other branches", push, func(s *githubtest.Server) {
			s.AddPR(6, pushed)
			s.AddPR(7, pushed)
		}, 0, "it is in several open pull requests (#6, #7); pass prNumber", nil},
		{"push: closed pull requests do not count", push, func(s *githubtest.Server) {
			s.AddPR(8, pushed)
			s.SetPRState(8, "closed")
		}, 0, "find the pull request of commit 6113728 or branch octo:master in octo/hello (the push event names none): there is no open pull request for it", nil},
		{"push: found by the branch", push, func(s *githubtest.Server) {
			s.AddPR(9, "3333333333333333333333333333333333333333")
			s.SetPRBranch(9, "master")
		}, 9, "", []string{"/repos/octo/hello/commits/" + pushed + "/pulls", "/repos/octo/hello/pulls"}},
		{"workflow_run: the fork's branch", wrun, func(s *githubtest.Server) {
			s.AddPR(10, "4444444444444444444444444444444444444444")
			s.SetPRBranch(10, "master")
			s.SetPRFork(10, "octo-org/octo-repo")
			s.AddPR(11, "5555555555555555555555555555555555555555")
			s.SetPRBranch(11, "master")
		}, 10, "", nil},
		{"workflow_run: the commit", wrun, func(s *githubtest.Server) { s.AddPR(12, run) }, 12, "", nil},
		{"schedule: GITHUB_SHA and GITHUB_REF", env{"GITHUB_EVENT_NAME": "schedule", "GITHUB_SHA": pushed, "GITHUB_REF": "refs/heads/main"},
			func(s *githubtest.Server) { s.AddPR(13, pushed) }, 13, "", nil},
		{"a token that may not read pull requests", push, func(s *githubtest.Server) {
			s.AddPR(3, pushed)
			s.SetTokenPermissions("issues=write")
		}, 0, "403 from GET /repos/octo/hello/commits/" + pushed + "/pulls", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := githubtest.New("octo", "hello", testToken, "")
			t.Cleanup(s.Close)
			tt.setup(s)
			e := serverEnv(s)
			maps.Copy(e, tt.env)
			c, err := NewClientFromEnv(e.get, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := ResolveTarget(context.Background(), c, e.get, "", nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %+v, %v; want the error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != (Target{"octo", "hello", tt.want}) {
				t.Fatalf("got %+v, %v; want octo/hello#%d", got, err, tt.want)
			}
			if tt.queries != nil {
				var paths []string
				for _, r := range s.Requests() {
					paths = append(paths, r.Path)
				}
				if !slices.Equal(paths, tt.queries) {
					t.Errorf("requests %v, want %v", paths, tt.queries)
				}
			}
		})
	}
}

// TestResolveTargetWithoutLookups: a pull request the event or payload names, a workflow_run
// that lists the target's pull request, and a push that deletes a branch ask GitHub nothing.
func TestResolveTargetWithoutLookups(t *testing.T) {
	t.Parallel()
	events, _ := filepath.Abs(filepath.Join("testdata", "events"))
	dir := t.TempDir()
	wr, err := os.ReadFile(filepath.Join(events, "workflow_run.completed.json"))
	if err != nil {
		t.Fatal(err)
	}
	listed := strings.Replace(string(wr), `"pull_requests": []`, `"pull_requests": [{"number": 21, "base": {"repo": {"url": "https://api.github.com/repos/octo/hello"}}}, {"number": 22, "base": {"repo": {"url": "https://api.github.com/repos/other/repo"}}}]`, 1)
	deleted := `{"ref": "refs/heads/gone", "after": "0000000000000000000000000000000000000000", "deleted": true}`
	for name, body := range map[string]string{"listed.json": listed, "deleted.json": deleted} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := githubtest.New("octo", "hello", testToken, "")
	t.Cleanup(s.Close)
	for _, tt := range []struct {
		name    string
		env     env
		payload hooks.Payload
		want    int
		wantErr string
	}{
		{"the payload's prNumber", env{"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": filepath.Join(events, "push.json")}, hooks.Payload{"prNumber": 4}, 4, ""},
		{"a workflow_run's own pull request", env{"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": filepath.Join(dir, "listed.json")}, nil, 21, ""},
		{"a deleted branch", env{"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": filepath.Join(dir, "deleted.json")}, nil, 0, "no pull request"},
		{"a tag", env{"GITHUB_EVENT_NAME": "push", "GITHUB_SHA": "6113728f27ae82c7b1a177c8d03f9e96e0adf246", "GITHUB_REF": "refs/tags/v1"}, nil, 0, "no pull request"},
		{"a comment on an issue", env{"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": filepath.Join(events, "issue_comment.created.json"),
			"GITHUB_SHA": "6113728f27ae82c7b1a177c8d03f9e96e0adf246", "GITHUB_REF": "refs/heads/main"}, nil, 0, "no pull request: run on a pull_request"},
	} {
		e := serverEnv(s)
		maps.Copy(e, tt.env)
		c, err := NewClientFromEnv(e.get, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ResolveTarget(context.Background(), c, e.get, "", tt.payload)
		if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) || tt.wantErr == "" && (err != nil || got.Number != tt.want) {
			t.Errorf("%s: got %+v, %v; want #%d %q", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
	if r := s.Requests(); len(r) != 0 {
		t.Errorf("GitHub was asked %+v", r)
	}
}
