package codex

import (
	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/toolcall"
	"sync"
)

// tools are Codex's tools as the normalized call sees them: apply_patch's input is the patch.
var tools = sync.OnceValue(func() map[string]agents.ToolShape {
	return map[string]agents.ToolShape{
		"apply_patch": {Kind: toolcall.KindEdit, Patch: []string{"command", "input", "patch"}},
	}
})

// Tools implements agents.Agent.
func (Agent) Tools() map[string]agents.ToolShape { return tools() }
