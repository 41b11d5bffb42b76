package github

import (
	"context"
	"fmt"
	"slices"
	"strings"

	gh "github.com/google/go-github/v60/github"
	"github.com/sethvargo/go-githubactions"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// ResolveTarget is FindTarget, and when neither the event nor the payload names a pull request —
// a push, workflow_run, schedule or workflow_dispatch run — the open pull request of the run's
// commit (GET /repos/{owner}/{repo}/commits/{sha}/pulls) or else of its branch (GET
// /repos/{owner}/{repo}/pulls?head=OWNER:BRANCH&state=open), asked of GitHub with c.
func ResolveTarget(ctx context.Context, c *Client, getenv func(string) string, workspace string, p hooks.Payload) (Target, error) {
	t, actx, err := findTarget(getenv, workspace, p)
	if err != nil || t.Number != 0 {
		return t, err
	}
	ref := runCommit(actx, getenv, t)
	if ref.sha == "" && ref.branch == "" || prEvents[ref.event] {
		return t, errNoPR
	}
	if n := ref.listed; n != 0 {
		t.Number = n
		return t, nil
	}
	t.Number, err = c.findPR(ctx, t, ref)
	return t, err
}

// prEvents are the events about an issue or a pull request: one that names no pull request is
// about an issue, and its commit (the default branch's) says nothing of a pull request.
var prEvents = map[string]bool{"issues": true, "issue_comment": true, "pull_request": true, "pull_request_target": true,
	"pull_request_review": true, "pull_request_review_comment": true}

// commitRef is what a run is about when its event names no pull request: a commit and the
// branch it is on, in the repository of owner (another one than the target's for a fork).
type commitRef struct {
	event, sha, branch, owner string
	listed                    int // the one pull request of the target a workflow_run event lists
}

func (r commitRef) String() string {
	var parts []string
	if r.sha != "" {
		parts = append(parts, "commit "+short(r.sha))
	}
	if r.branch != "" {
		parts = append(parts, "branch "+r.owner+":"+r.branch)
	}
	return strings.Join(parts, " or ")
}

// runCommit reads the commit and branch of a run: a workflow_run event's head commit and
// branch (and its pull requests, when exactly one is the target's), a push event's new commit
// and branch, else GITHUB_SHA and the branch of GITHUB_REF. A push that deletes a branch, and a
// tag's, are about no commit of a pull request.
func runCommit(actx *githubactions.GitHubContext, getenv func(string) string, t Target) commitRef {
	ref := commitRef{event: getenv("GITHUB_EVENT_NAME"), owner: t.Owner}
	ev := map[string]any{}
	if actx != nil && actx.Event != nil {
		ev = actx.Event
	}
	if wr, ok := ev["workflow_run"].(map[string]any); ok {
		ref.event = "workflow_run"
		ref.sha, ref.branch = template.FormatValue(wr["head_sha"]), template.FormatValue(wr["head_branch"])
		if repo, ok := wr["head_repository"].(map[string]any); ok {
			if owner, ok := repo["owner"].(map[string]any); ok && template.FormatValue(owner["login"]) != "" {
				ref.owner = template.FormatValue(owner["login"])
			}
		}
		var mine []int
		prs, _ := wr["pull_requests"].([]any)
		for _, pr := range prs {
			m, _ := pr.(map[string]any)
			base, _ := m["base"].(map[string]any)
			repo, _ := base["repo"].(map[string]any)
			if strings.HasSuffix(strings.ToLower(template.FormatValue(repo["url"])), strings.ToLower("/repos/"+t.Repository())) {
				mine = append(mine, toInt(m["number"]))
			}
		}
		if len(mine) == 1 {
			ref.listed = mine[0]
		}
		return ref
	}
	ref.sha = getenv("GITHUB_SHA")
	gitRef := getenv("GITHUB_REF")
	if after := template.FormatValue(ev["after"]); ev["after"] != nil {
		ref.sha, gitRef = after, template.FormatValue(ev["ref"])
	}
	if strings.Trim(ref.sha, "0") == "" || strings.HasPrefix(gitRef, "refs/tags/") {
		ref.sha = "" // a deleted branch, a tag
	}
	if b, ok := strings.CutPrefix(gitRef, "refs/heads/"); ok && ref.sha != "" {
		ref.branch = b
	}
	return ref
}

// findPR asks GitHub for the open pull request of ref's commit, else of its branch. Several
// open pull requests of one commit are told apart by their branch; when that does not settle it,
// it is an error naming them, not a guess.
func (c *Client) findPR(ctx context.Context, t Target, ref commitRef) (int, error) {
	what := fmt.Sprintf("find the pull request of %s in %s (the %s event names none)", ref, t.Repository(), ref.event)
	var open []*gh.PullRequest
	if ref.sha != "" {
		opts := &gh.ListOptions{PerPage: pageSize}
		prs, err := collect(ctx, c, what, opts, func() ([]*gh.PullRequest, *gh.Response, error) {
			return c.gh.PullRequests.ListPullRequestsWithCommit(ctx, t.Owner, t.Repo, ref.sha, opts)
		})
		if err != nil {
			return 0, err
		}
		for _, pr := range prs {
			if pr.GetState() == "open" {
				open = append(open, pr)
			}
		}
		if n, err := pickPR(what, open, ref); n != 0 || err != nil {
			return n, err
		}
	}
	if ref.branch != "" && len(open) == 0 {
		opts := &gh.PullRequestListOptions{State: "open", Head: ref.owner + ":" + ref.branch, ListOptions: gh.ListOptions{PerPage: pageSize}}
		prs, err := collect(ctx, c, what, &opts.ListOptions, func() ([]*gh.PullRequest, *gh.Response, error) {
			return c.gh.PullRequests.List(ctx, t.Owner, t.Repo, opts)
		})
		if err != nil {
			return 0, err
		}
		if n, err := pickPR(what, prs, commitRef{branch: ref.branch, owner: ref.owner}); n != 0 || err != nil {
			return n, err
		}
	}
	return 0, fmt.Errorf("%s: there is no open pull request for it; open one, or pass prNumber in the payload", what)
}

// pickPR chooses among open pull requests, narrowing them down: those whose head is the commit,
// of those the ones whose head is the branch (of owner); what remains must be one.
func pickPR(what string, prs []*gh.PullRequest, ref commitRef) (int, error) {
	for _, keep := range []func(pr *gh.PullRequest) bool{
		func(pr *gh.PullRequest) bool { return strings.EqualFold(pr.GetHead().GetSHA(), ref.sha) },
		func(pr *gh.PullRequest) bool {
			return pr.GetHead().GetRef() == ref.branch && strings.EqualFold(pr.GetHead().GetRepo().GetOwner().GetLogin(), ref.owner)
		},
	} {
		if kept := slices.DeleteFunc(slices.Clone(prs), func(pr *gh.PullRequest) bool { return !keep(pr) }); len(kept) > 0 {
			prs = kept
		}
	}
	switch len(prs) {
	case 0:
		return 0, nil
	case 1:
		return prs[0].GetNumber(), nil
	}
	var numbers []string
	for _, pr := range prs {
		numbers = append(numbers, fmt.Sprintf("#%d", pr.GetNumber()))
	}
	return 0, fmt.Errorf("%s: it is in several open pull requests (%s); pass prNumber in the payload to name one", what, strings.Join(numbers, ", "))
}
