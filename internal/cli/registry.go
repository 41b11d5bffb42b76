package cli

import (
	"github.com/autoagent/agent-hooks/agents/all"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/babysitter"
	"github.com/autoagent/agent-hooks/hooks/fresher"
	"github.com/autoagent/agent-hooks/hooks/iteratr"
	"github.com/autoagent/agent-hooks/hooks/pipelines"
	"github.com/autoagent/agent-hooks/notify/webhooks"
	"github.com/autoagent/agent-hooks/rules"
	"github.com/autoagent/agent-hooks/runner"
)

// NewRunner is the runner of this process: its environment, working directory, writers, home
// directories and registry. The lean program's is lean (runner.Runner.Lean).
func (a *App) NewRunner() (*runner.Runner, error) {
	home, err := a.AutoagentHome()
	if err != nil {
		return nil, err
	}
	userHome, _ := a.UserHome()
	return &runner.Runner{
		Getenv: a.Getenv, Environ: a.Environ, Cwd: a.Cwd, Stdout: a.Stdout, Stderr: a.Stderr,
		AutoagentHome: home, UserHome: userHome, ManagedConfig: a.ManagedConfig(), NewRegistry: a.Registry,
		Executable: a.Executable, Version: a.Version.Version, Lean: a.Lean, Progress: a.Progress,
	}, nil
}

// Registry wires every hook type and configuration format of this program into the hooks
// engine. Both programs know every format, so that both load the same configuration; the lean
// one knows the rule type and command hooks, the full one adds its types through App.Types. A
// format brings its own extension with what it loads.
func (a *App) Registry() *hooks.Registry {
	reg := hooks.NewRegistry()
	userHome, _ := a.UserHome()
	reg.Register(rules.TypeName, rules.Type{Home: userHome})
	for _, set := range rules.Sets() {
		reg.RegisterRuleSet(set.Name, set.Rules)
	}
	reg.RegisterFormat(webhooks.NewFormat())
	reg.RegisterFormat(fresher.New())
	reg.RegisterFormat(iteratr.New())
	reg.RegisterFormat(pipelines.New())
	reg.RegisterFormat(babysitter.New())
	for _, f := range all.Formats() {
		reg.RegisterFormat(f)
	}
	if a.Types != nil {
		a.Types(a, reg)
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

// SetTestRegistry sets what every registry of this process gets besides its own; only the
// end-to-end tests' binary calls it, before it runs a program.
func SetTestRegistry(f func(*hooks.Registry)) { testRegistry = f }
