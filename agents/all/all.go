// Package all is the one list of the coding agents agent-hooks speaks to. Every command that
// names agents (hook, install, uninstall, doctor, explain, rules test, completion, help) and the
// registry of configuration formats derive from it: adding an agent is its folder under agents/
// and one line here.
package all

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/claude"
	"github.com/autoagent/agent-hooks/agents/cline"
	"github.com/autoagent/agent-hooks/agents/codex"
	"github.com/autoagent/agent-hooks/agents/copilot"
	"github.com/autoagent/agent-hooks/agents/cursor"
	"github.com/autoagent/agent-hooks/agents/droid"
	"github.com/autoagent/agent-hooks/agents/gemini"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/agents/opencode"
	"github.com/autoagent/agent-hooks/hooks"
)

// list is every agent, in the order their own hook files load as formats.
var list = []agents.Agent{
	claude.Agent{},
	codex.Agent{},
	gemini.Agent{},
	cursor.Agent{},
	copilot.Agent{},
	cline.Agent{},
	opencode.Agent{},
	droid.Agent{},
}

// Agents lists every agent, in the order their formats load.
func Agents() []agents.Agent { return list }

// Names are the agents' names, sorted.
func Names() []string {
	names := make([]string, len(list))
	for i, a := range list {
		names[i] = a.Name()
	}
	slices.Sort(names)
	return names
}

// Lookup finds an agent by name; an unknown name is an error that lists the agents, with the
// nearest as a suggestion.
func Lookup(name string) (agents.Agent, error) {
	for _, a := range list {
		if a.Name() == name {
			return a, nil
		}
	}
	msg := fmt.Sprintf("unknown agent %q", name)
	if s := hooks.Suggest(name, Names()); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return nil, fmt.Errorf("%s (agents: %s)", msg, strings.Join(Names(), ", "))
}

// Settings finds an agent's hook settings by name, nil for no agent of that name
// (hostsettings.DoctorOptions.Lookup).
func Settings(name string) *hostsettings.Spec {
	if a, err := Lookup(name); err == nil {
		return a.Settings()
	}
	return nil
}

// Formats are the agents' own hook files as formats, in load order.
func Formats() []hooks.Format {
	out := make([]hooks.Format, len(list))
	for i, a := range list {
		out[i] = a.Format()
	}
	return out
}
