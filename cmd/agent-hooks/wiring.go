package main

import (
	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/github"
	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/babysitter"
	"github.com/autoagent/agent-hooks/hooks/fresher"
	"github.com/autoagent/agent-hooks/hooks/iteratr"
	"github.com/autoagent/agent-hooks/hooks/pipelines"
	"github.com/autoagent/agent-hooks/notify"
)

// newRegistry wires every built-in hook type, configuration format and extension into the hooks
// engine. It is the only place that knows all of them; each package exposes a constructor and
// this function registers it.
func (a *app) newRegistry() *hooks.Registry {
	reg := hooks.NewRegistry()
	reg.RegisterExtension(a.newStopLimit()) // first: later extensions see a capped Stop as allowed
	reg.Register(gitops.TypeCommit, gitops.CommitType{})
	reg.Register(gitops.TypePush, gitops.PushType{PullRequest: github.PullRequestCheckout})
	reg.Register(approval.TypeName, approval.NewType(map[string]approval.Provider{"github": github.ApprovalProvider{}, "local": a.localApprovals(), "http-poll": approval.HTTPPoll{}}))
	reg.Register(notify.TypeName, notify.NewType(a.webhooksFile()))
	reg.RegisterFormat(notify.NewFormat())
	reg.Register(github.TypeReview, github.ReviewType{})
	reg.Register(github.TypeComment, github.CommentType{})
	reg.RegisterFormat(fresher.New())
	reg.RegisterFormat(iteratr.New())
	reg.RegisterFormat(pipelines.New())
	reg.RegisterFormat(babysitter.New())
	reg.RegisterExtension(fresher.NewExtension())
	reg.RegisterExtension(iteratr.NewExtension())
	reg.RegisterExtension(pipelines.NewExtension())
	reg.RegisterExtension(babysitter.NewExtension())
	return reg
}
