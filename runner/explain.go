package runner

import (
	"github.com/autoagent/agent-hooks/hooks"
)

// Explain works out what firing req would do — every rule and hook of its event, whether it
// applies and why, and the rules' decision — without running a hook, attaching a session or
// writing anything (`agent-hooks explain`).
func (r *Runner) Explain(req Request) (*hooks.Explanation, error) {
	env, err := r.LoadEnv(req.Workspace, req.LoopFile)
	if err != nil {
		return nil, err
	}
	env.ExtraConfig = req.ConfigFile
	env.Agent, env.AgentRuns = req.Agent, req.AgentRuns
	cfg, err := r.loadConfig(r.registry(), env)
	if err != nil {
		return nil, err
	}
	data := req.Data
	if data == nil {
		data = hooks.Payload{}
	}
	eng := &hooks.Engine{Config: cfg, Workspace: env.Workspace, Getenv: r.Getenv, CanAsk: req.CanAsk, Now: r.Now}
	return eng.Explain(req.Event, data)
}
