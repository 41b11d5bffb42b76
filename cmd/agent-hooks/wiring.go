package main

import "github.com/autoagent/agent-hooks/hooks"

// newRegistry wires every built-in hook type, configuration format and extension into the hooks
// engine. It is the only place that knows all of them; each package exposes a constructor and
// this function registers it.
func (a *app) newRegistry() *hooks.Registry {
	reg := hooks.NewRegistry()
	return reg
}
