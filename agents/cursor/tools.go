package cursor

import (
	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/toolcall"
	"sync"
)

// tools are Cursor's tools as the normalized call sees them (its documentation's names).
var tools = sync.OnceValue(func() map[string]agents.ToolShape {
	return map[string]agents.ToolShape{
		"Write": {Kind: toolcall.KindWrite, Files: []string{"file_path"}},
		"Read":  {Kind: toolcall.KindRead, Files: []string{"file_path"}},
	}
})

// Tools implements agents.Agent.
func (Agent) Tools() map[string]agents.ToolShape { return tools() }
