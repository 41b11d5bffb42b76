package main

import (
	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/github"
	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/notify"
	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/runner/remote"
)

// newRunner is the runner of this process (cli.App.NewRunner), which pushes a session at its
// end when the configuration says so.
func (a *app) newRunner() (*runner.Runner, error) {
	r, err := a.NewRunner()
	if err != nil {
		return nil, err
	}
	r.AtSessionEnd = remote.AtEnd
	return r, nil
}

// registerTypes adds the full program's hook types to the registry both programs share
// (cli.App.Registry): git, GitHub, approvals and notifications. It is the only place that knows
// all of them; each package exposes a constructor and this function registers it.
func (a *app) registerTypes(_ *cli.App, reg *hooks.Registry) {
	reg.Register(gitops.TypeCommit, gitops.CommitType{GitHubAPI: github.CommitViaAPI(github.Options{})})
	reg.Register(gitops.TypePush, gitops.PushType{PullRequest: github.PullRequestCheckout})
	reg.Register(approval.TypeName, approval.NewType(map[string]approval.Provider{
		"github": github.ApprovalProvider{}, "local": a.localApprovals(), "http-poll": approval.HTTPPoll{},
		"callback": &approval.Callback{}, "input": a.inputApprovals(),
	}))
	reg.Register(notify.TypeName, notify.NewType(a.webhooksFile()))
	reg.Register(github.TypeReview, github.ReviewType{})
	reg.Register(github.TypeComment, github.CommentType{})
}
