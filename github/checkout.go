package github

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/sethvargo/go-githubactions"

	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/hooks/template"
)

var pullMergeRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^refs/pull/\d+/merge$`) })

// PullRequestCheckout reads the pull request a GitHub Actions run was started for, for git-push's
// checks: from the event payload at GITHUB_EVENT_PATH (pull_request, pull_request_target,
// pull_request_review and pull_request_review_comment events carry one), GITHUB_REF and
// GITHUB_SHA. It is nil outside Actions and for other events; an error when the run is for a pull
// request that the payload does not describe.
func PullRequestCheckout(getenv func(string) string) (*gitops.PullRequestCheckout, error) {
	if getenv("GITHUB_ACTIONS") != "true" {
		return nil, nil
	}
	actx, err := githubactions.New(githubactions.WithGetenv(getenv)).Context()
	if err != nil {
		return nil, fmt.Errorf("read the Actions context: %w", err)
	}
	pr, ok := actx.Event["pull_request"].(map[string]any)
	if !ok {
		if strings.HasPrefix(actx.EventName, "pull_request") {
			return nil, fmt.Errorf("the %s event payload (GITHUB_EVENT_PATH %q) holds no pull request", actx.EventName, actx.EventPath)
		}
		return nil, nil
	}
	head, _ := pr["head"].(map[string]any)
	base, _ := pr["base"].(map[string]any)
	out := &gitops.PullRequestCheckout{
		Event:    actx.EventName,
		Number:   toInt(pr["number"]),
		HeadRef:  template.FormatValue(head["ref"]),
		HeadRepo: repoName(head),
		BaseRepo: repoName(base),
	}
	if out.HeadRef == "" || out.BaseRepo == "" {
		return nil, fmt.Errorf("the %s event payload (GITHUB_EVENT_PATH %q) lacks pull_request.head.ref or pull_request.base.repo", actx.EventName, actx.EventPath)
	}
	if pullMergeRef().MatchString(actx.Ref) && actx.SHA != "" {
		out.MergeCommits = append(out.MergeCommits, actx.SHA)
	}
	if m, ok := pr["merge_commit_sha"].(string); ok && m != "" && m != actx.SHA {
		out.MergeCommits = append(out.MergeCommits, m)
	}
	return out, nil
}

// repoName is the full_name of a pull request side's repository; "" when it is gone (a deleted
// fork's head.repo is null).
func repoName(side map[string]any) string {
	repo, _ := side["repo"].(map[string]any)
	return template.FormatValue(repo["full_name"])
}
