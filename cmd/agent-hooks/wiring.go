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
	"github.com/autoagent/agent-hooks/internal/runner"
	"github.com/autoagent/agent-hooks/notify"
)

// newRunner is the runner of this process: its environment, working directory, writers, home
// directories and registry.
func (a *app) newRunner() (*runner.Runner, error) {
	home, err := a.autoagentHome()
	if err != nil {
		return nil, err
	}
	userHome, _ := a.userHome()
	return &runner.Runner{
		Getenv: a.getenv, Environ: a.environ, Cwd: a.cwd, Stdout: a.stdout, Stderr: a.stderr,
		AutoagentHome: home, UserHome: userHome, NewRegistry: a.newRegistry,
		Executable: a.executable, Version: versionString(),
	}, nil
}

// newRegistry wires every built-in hook type, configuration format and extension into the hooks
// engine. It is the only place that knows all of them; each package exposes a constructor and
// this function registers it. The session's extensions (the runner's) come first: later
// extensions see a capped Stop as allowed.
func (a *app) newRegistry(session ...hooks.Extension) *hooks.Registry {
	reg := hooks.NewRegistry()
	for _, x := range session {
		reg.RegisterExtension(x)
	}
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
