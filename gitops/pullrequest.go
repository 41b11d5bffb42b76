package gitops

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/autoagent/agent-hooks/internal/redact"
)

// A GitHub Actions run for a pull request checks out, with actions/checkout's defaults, the
// synthetic merge commit refs/pull/N/merge (the base branch merged into the pull request) on a
// detached HEAD, from the base repository, even when the pull request comes from a fork. Pushing
// from there puts GitHub's test merge on the pull request's branch, and for a fork creates or
// moves a branch of the same name in the base repository. Push refuses both unless told to.

// PullRequestCheckout is the pull request an Actions run was started for.
type PullRequestCheckout struct {
	Event    string // pull_request, pull_request_target, pull_request_review, …
	Number   int
	HeadRef  string // the pull request's branch
	HeadRepo string // owner/repo of that branch; "" when its repository was deleted
	BaseRepo string // owner/repo the pull request is made to
	// MergeCommits are the synthetic merge commits of the pull request: GITHUB_SHA when
	// GITHUB_REF is refs/pull/N/merge, and the payload's merge_commit_sha.
	MergeCommits []string
}

// fromFork reports whether the pull request's branch lives in another repository.
func (p *PullRequestCheckout) fromFork() bool { return !strings.EqualFold(p.HeadRepo, p.BaseRepo) }

// checkPullRequestPush refuses pushing t to the remote at rawURL when that is not what the pull
// request's author or a maintainer would mean (see PullRequestCheckout), unless o allows it.
func (r *Repo) checkPullRequestPush(o PushOptions, t target, rawURL string) error {
	pr := o.PullRequest
	if pr == nil {
		return nil
	}
	if !o.AllowSyntheticMerge {
		for _, m := range pr.MergeCommits {
			h := plumbing.NewHash(m)
			if h.IsZero() {
				continue
			}
			on, err := r.builtOn(t.hash, h)
			if err != nil {
				return err
			}
			if on {
				return fmt.Errorf("the commit to push is built on %s, the synthetic merge commit of pull request #%d (refs/pull/%d/merge: its base branch merged into it) that actions/checkout checks out by default; pushing it would put that merge on %s. "+
					"Check out the pull request's branch instead (actions/checkout with `ref: ${{ github.head_ref }}`%s), or set \"allowSyntheticMerge\": true; nothing was pushed",
					m[:min(7, len(m))], pr.Number, pr.Number, t.dst.Short(), forkHint(pr))
			}
		}
	}
	if pr.fromFork() && !o.AllowForkToBase && t.dst.Short() == pr.HeadRef && !urlNamesRepo(rawURL, pr.HeadRepo) {
		from := "the fork " + pr.HeadRepo
		if pr.HeadRepo == "" {
			from = "a fork that was deleted"
		}
		return fmt.Errorf("pull request #%d comes from %s: pushing to %s (%s) would create or move a branch %s there, not the pull request's branch. "+
			"Push to the fork instead (actions/checkout with `repository: ${{ github.event.pull_request.head.repo.full_name }}` and `ref: ${{ github.head_ref }}`, or the fork as \"remote\"), or set \"allowForkToBase\": true; nothing was pushed",
			pr.Number, from, o.Remote, redact.URL(rawURL), pr.HeadRef)
	}
	return nil
}

func forkHint(pr *PullRequestCheckout) string {
	if pr.fromFork() {
		return " and `repository: ${{ github.event.pull_request.head.repo.full_name }}`, since it comes from a fork"
	}
	return ""
}

// urlNamesRepo reports whether a remote URL (https, ssh or scp-like) names the repository
// owner/repo.
func urlNamesRepo(raw, repo string) bool {
	if repo == "" {
		return false
	}
	p := ""
	if hasScheme().MatchString(raw) {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		p = u.Path
	} else if scpLike().MatchString(raw) {
		_, p, _ = strings.Cut(raw, ":")
	} else {
		return false
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	return strings.EqualFold(p, repo)
}

// ancestrySlop is how much older than a commit its descendants may claim to be (clock skew);
// the walk looking for the commit stops at commits older than that.
const ancestrySlop = 24 * time.Hour

// builtOn reports whether commit h is base or descends from it. A base the repository does not
// have cannot be an ancestor; the walk ends at a shallow clone's boundary.
func (r *Repo) builtOn(h, base plumbing.Hash) (bool, error) {
	if h == base {
		return true, nil
	}
	bc, err := object.GetCommit(r.repo.Storer, base)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read commit %s: %w", base, err)
	}
	cutoff := bc.Committer.When.Add(-ancestrySlop)
	seen := map[plumbing.Hash]bool{h: true}
	queue := []plumbing.Hash{h}
	for len(queue) > 0 {
		c, err := object.GetCommit(r.repo.Storer, queue[0])
		queue = queue[1:]
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			continue // beyond a shallow clone's boundary
		}
		if err != nil {
			return false, fmt.Errorf("read commit: %w", err)
		}
		if c.Committer.When.Before(cutoff) {
			continue
		}
		for _, p := range c.ParentHashes {
			if p == base {
				return true, nil
			}
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false, nil
}
