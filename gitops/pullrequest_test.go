package gitops

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// prEvent is what the tests take from a real pull_request webhook payload (the github package
// turns the whole Actions context into a PullRequestCheckout; see its tests).
type prEvent struct {
	number           int
	headRef, baseRef string
	headRepo, base   string
}

func loadPREvent(t *testing.T, name string) prEvent {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "github", "testdata", "events", name))
	must(t, err)
	var ev struct {
		PullRequest struct {
			Number int `json:"number"`
			Head   struct {
				Ref  string `json:"ref"`
				Repo struct {
					FullName string `json:"full_name"`
				} `json:"repo"`
			} `json:"head"`
			Base struct {
				Ref  string `json:"ref"`
				Repo struct {
					FullName string `json:"full_name"`
				} `json:"repo"`
			} `json:"base"`
		} `json:"pull_request"`
	}
	must(t, json.Unmarshal(b, &ev))
	pr := ev.PullRequest
	return prEvent{pr.Number, pr.Head.Ref, pr.Base.Ref, pr.Head.Repo.FullName, pr.Base.Repo.FullName}
}

// prRemote makes the base repository of the payload's pull request as GitHub holds it: the base
// branch, the pull request's branch, and refs/pull/N/merge, the synthetic merge of the two. It
// returns the bare repository and the ids of the head and merge commits.
func prRemote(t *testing.T, e *testEnv, ev prEvent, root string) (bare, head, merge string) {
	t.Helper()
	seed := e.newRepo(t, map[string]string{"README.md": "hello\n"})
	e.git(t, seed, "branch", "-m", ev.baseRef)
	e.git(t, seed, "checkout", "-q", "-b", ev.headRef)
	writeFiles(t, seed, map[string]string{"feature.txt": "the pull request\n"})
	e.git(t, seed, "add", "-A")
	e.git(t, seed, "commit", "-q", "-m", "the pull request")
	head = e.git(t, seed, "rev-parse", "HEAD")
	e.git(t, seed, "checkout", "-q", ev.baseRef)
	writeFiles(t, seed, map[string]string{"base.txt": "the base moved on\n"})
	e.git(t, seed, "add", "-A")
	e.git(t, seed, "commit", "-q", "-m", "base")
	e.git(t, seed, "checkout", "-q", "--detach")
	e.git(t, seed, "merge", "-q", "--no-ff", "-m", "Merge "+head+" into "+ev.baseRef, ev.headRef)
	merge = e.git(t, seed, "rev-parse", "HEAD")
	bare = e.newBare(t, filepath.Join(root, filepath.FromSlash(ev.base)+".git"))
	pull := "refs/pull/" + strconv.Itoa(ev.number)
	e.git(t, seed, "push", "-q", bare, ev.baseRef, ev.headRef, merge+":"+pull+"/merge", head+":"+pull+"/head")
	return bare, head, merge
}

// checkout clones bare into a new work tree as actions/checkout does: fetch refspec (with depth
// 1 when shallow), then check out what.
func checkout(t *testing.T, e *testEnv, bare string, shallow bool, refspec, what string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "work")
	e.git(t, "", "init", "-q", dir)
	e.git(t, dir, "config", "user.name", "Agent")
	e.git(t, dir, "config", "user.email", "agent@example.com")
	e.git(t, dir, "remote", "add", "origin", "file://"+bare)
	args := []string{"fetch", "-q", "--no-tags", "origin", refspec}
	if shallow {
		args = append(args, "--depth=1")
	}
	e.git(t, dir, args...)
	e.git(t, dir, "checkout", "-q", what)
	return dir
}

// prEnv is the environment of an Actions run for the pull request.
func prEnv(e *testEnv, ev prEvent, merge string) {
	e.vars["GITHUB_ACTIONS"] = "true"
	e.vars["GITHUB_EVENT_NAME"] = "pull_request"
	e.vars["GITHUB_HEAD_REF"] = ev.headRef
	e.vars["GITHUB_REF"] = "refs/pull/" + strconv.Itoa(ev.number) + "/merge"
	e.vars["GITHUB_REF_NAME"] = strconv.Itoa(ev.number) + "/merge"
	e.vars["GITHUB_SHA"] = merge
}

// TestPushFromPullRequestCheckout: the default actions/checkout of a pull_request run (the
// synthetic merge, shallow or not) is refused, with what to check out instead; the pull
// request's branch, or its head commit, is pushed.
func TestPushFromPullRequestCheckout(t *testing.T) {
	t.Parallel()
	ev := loadPREvent(t, "pull_request.opened.json")
	for _, tc := range []struct {
		name     string
		shallow  bool
		refspec  func(head, merge string) string
		what     string
		allow    bool
		refused  bool
		onBranch bool
	}{
		{name: "default checkout", shallow: true, refspec: func(_, m string) string { return "+" + m + ":refs/remotes/pull/2/merge" }, what: "refs/remotes/pull/2/merge", refused: true},
		{name: "default checkout, full history", refspec: func(_, _ string) string { return "+refs/pull/2/merge:refs/remotes/pull/2/merge" }, what: "refs/remotes/pull/2/merge", refused: true},
		{name: "default checkout, allowed", refspec: func(_, _ string) string { return "+refs/pull/2/merge:refs/remotes/pull/2/merge" }, what: "refs/remotes/pull/2/merge", allow: true},
		{name: "ref: head_ref", shallow: true, refspec: func(_, _ string) string { return "+refs/heads/changes:refs/remotes/origin/changes" }, what: "changes", onBranch: true},
		{name: "ref: head sha", shallow: true, refspec: func(h, _ string) string { return "+" + h + ":refs/remotes/pull/2/head" }, what: "refs/remotes/pull/2/head"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.git(t, "", "config", "--global", "uploadpack.allowAnySHA1InWant", "true")
			bare, head, merge := prRemote(t, e, ev, t.TempDir())
			dir := checkout(t, e, bare, tc.shallow, tc.refspec(head, merge), tc.what)
			prEnv(e, ev, merge)
			sha := commitFile(t, e, dir, "fix.txt", "the agent's fix\n")

			pr := &PullRequestCheckout{Event: "pull_request", Number: ev.number, HeadRef: ev.headRef, HeadRepo: ev.headRepo, BaseRepo: ev.base, MergeCommits: []string{merge}}
			res, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Branch: "current", PullRequest: pr, AllowSyntheticMerge: tc.allow})
			if tc.refused {
				var pe *PushError
				if !errors.As(err, &pe) {
					t.Fatalf("err = %v, want the push refused", err)
				}
				for _, want := range []string{merge[:7], "synthetic merge commit of pull request #2", "ref: ${{ github.head_ref }}", `"allowSyntheticMerge": true`, "nothing was pushed"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("message %q does not say %q", err, want)
					}
				}
				e.wantRef(t, bare, ev.headRef, head)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.RemoteRef != "refs/heads/"+ev.headRef {
				t.Errorf("pushed to %s", res.RemoteRef)
			}
			e.wantRef(t, bare, ev.headRef, sha)
			if tc.allow {
				return
			}
			if got := e.git(t, bare, "rev-parse", ev.headRef+"~"); got != head {
				t.Errorf("the pushed commit's parent is %s, want the pull request's head %s", got, head)
			}
		})
	}
}

// TestPushFromForkPullRequest: for a pull request from a fork, the base repository's branch of
// the same name is not the pull request's; the fork's is.
func TestPushFromForkPullRequest(t *testing.T) {
	t.Parallel()
	ev := loadPREvent(t, "pull_request.opened.json")
	ev.headRepo = "forker/" + strings.Split(ev.base, "/")[1]
	const token = "ghs_ForkPushToken0123456789"
	e := newTestEnv(t)
	root := t.TempDir()
	bare, head, merge := prRemote(t, e, ev, root)
	e.git(t, bare, "update-ref", "-d", "refs/heads/"+ev.headRef) // it lives in the fork
	fork := e.newBare(t, filepath.Join(root, filepath.FromSlash(ev.headRepo)+".git"))
	e.git(t, bare, "push", "-q", fork, "refs/pull/2/head:refs/heads/"+ev.headRef)
	srv, _ := smartHTTP(t, e, root, token, 0)

	// actions/checkout with `ref: ${{ github.event.pull_request.head.sha }}`: the commit is right,
	// the repository is not.
	dir := checkout(t, e, bare, false, "+refs/pull/2/head:refs/remotes/pull/2/head", "refs/remotes/pull/2/head")
	prEnv(e, ev, merge)
	e.vars["GITHUB_SERVER_URL"] = srv.URL
	e.vars["GITHUB_TOKEN"] = token
	sha := commitFile(t, e, dir, "fix.txt", "the agent's fix\n")
	pr := &PullRequestCheckout{Event: "pull_request", Number: ev.number, HeadRef: ev.headRef, HeadRepo: ev.headRepo, BaseRepo: ev.base, MergeCommits: []string{merge}}

	_, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Branch: "current", PullRequest: pr})
	if err == nil {
		t.Fatal("pushed the fork's branch to the base repository")
	}
	for _, want := range []string{"pull request #2 comes from the fork " + ev.headRepo, "repository: ${{ github.event.pull_request.head.repo.full_name }}", `"allowForkToBase": true`, "nothing was pushed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
	if out, err := e.gitErr(bare, "rev-parse", "--verify", "-q", "refs/heads/"+ev.headRef); err == nil {
		t.Errorf("the base repository got a branch %s: %s", ev.headRef, out)
	}

	// The fork as the remote: pushed there.
	e.git(t, dir, "remote", "add", "fork", srv.URL+"/"+ev.headRepo+".git")
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Remote: "fork", Branch: "current", PullRequest: pr}); err != nil {
		t.Fatal(err)
	}
	e.wantRef(t, fork, ev.headRef, sha)
	if got := e.git(t, fork, "rev-parse", ev.headRef+"~"); got != head {
		t.Errorf("parent = %s, want %s", got, head)
	}

	// Asked for: the base repository's branch.
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Branch: "current", PullRequest: pr, AllowForkToBase: true}); err != nil {
		t.Fatal(err)
	}
	e.wantRef(t, bare, ev.headRef, sha)

	// A deleted fork: nowhere to push it but on purpose.
	pr.HeadRepo = ""
	if _, err := openRepo(t, e, dir).Push(context.Background(), PushOptions{Remote: "fork", Branch: "current", PullRequest: pr}); err == nil || !strings.Contains(err.Error(), "a fork that was deleted") {
		t.Errorf("deleted fork: err = %v", err)
	}
}

func TestURLNamesRepo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"https://github.com/Forker/Hello-World.git", true},
		{"https://x-access-token:tok@github.com/forker/hello-world", true},
		{"https://github.com/forker/Hello-World/", true},
		{"ssh://git@github.com/forker/Hello-World.git", true},
		{"git@github.com:forker/Hello-World.git", true},
		{"https://github.com/Codertocat/Hello-World.git", false},
		{"https://github.com/forker/Hello-World-2.git", false},
		{"/srv/git/forker/Hello-World.git", false},
		{"file:///srv/forker/Hello-World.git", false},
	} {
		if got := urlNamesRepo(tc.url, "forker/Hello-World"); got != tc.want {
			t.Errorf("urlNamesRepo(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}
