package main

import (
	"github.com/autoagent/agent-hooks/agents/all"
	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/github"
	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/babysitter"
	"github.com/autoagent/agent-hooks/hooks/fresher"
	"github.com/autoagent/agent-hooks/hooks/iteratr"
	"github.com/autoagent/agent-hooks/hooks/pipelines"
	"github.com/autoagent/agent-hooks/notify"
	"github.com/autoagent/agent-hooks/notify/webhooks"
	"github.com/autoagent/agent-hooks/rules"
	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/runner/remote"
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
		AutoagentHome: home, UserHome: userHome, ManagedConfig: a.managedConfig(), NewRegistry: a.newRegistry,
		Executable: a.executable, Version: currentVersion().Version, AtSessionEnd: remote.AtEnd,
	}, nil
}

// newRegistry wires every built-in hook type and configuration format into the hooks engine. It
// is the only place that knows all of them; each package exposes a constructor and this function
// registers it. A format brings its own extension with what it loads.
func (a *app) newRegistry() *hooks.Registry {
	reg := hooks.NewRegistry()
	userHome, _ := a.userHome()
	reg.Register(rules.TypeName, rules.Type{Home: userHome})
	for _, set := range rules.Sets() {
		reg.RegisterRuleSet(set.Name, set.Rules)
	}
	reg.Register(gitops.TypeCommit, gitops.CommitType{GitHubAPI: github.CommitViaAPI(github.Options{})})
	reg.Register(gitops.TypePush, gitops.PushType{PullRequest: github.PullRequestCheckout})
	reg.Register(approval.TypeName, approval.NewType(map[string]approval.Provider{
		"github": github.ApprovalProvider{}, "local": a.localApprovals(), "http-poll": approval.HTTPPoll{},
		"callback": &approval.Callback{}, "input": a.inputApprovals(),
	}))
	reg.Register(notify.TypeName, notify.NewType(a.webhooksFile()))
	reg.RegisterFormat(webhooks.NewFormat())
	reg.Register(github.TypeReview, github.ReviewType{})
	reg.Register(github.TypeComment, github.CommentType{})
	reg.RegisterFormat(fresher.New())
	reg.RegisterFormat(iteratr.New())
	reg.RegisterFormat(pipelines.New())
	reg.RegisterFormat(babysitter.New())
	for _, f := range all.Formats() {
		reg.RegisterFormat(f)
	}
	if testRegistry != nil {
		testRegistry(reg)
	}
	return reg
}

// testRegistry, when set (only by the tests' re-executed binary), adds to every registry: it is
// how end-to-end scripts reach what no real configuration can, such as a built-in type that
// panics.
var testRegistry func(*hooks.Registry)
