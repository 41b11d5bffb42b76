package claude

import (
	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/toolcall"
	"sync"
)

// tools are Claude Code's tools as the normalized call sees them.
var tools = sync.OnceValue(func() map[string]agents.ToolShape {
	return map[string]agents.ToolShape{
		"Write":        {Kind: toolcall.KindWrite, Files: []string{"file_path"}},
		"Edit":         {Kind: toolcall.KindEdit, Files: []string{"file_path"}},
		"MultiEdit":    {Kind: toolcall.KindEdit, Files: []string{"file_path"}},
		"NotebookEdit": {Kind: toolcall.KindEdit, Files: []string{"notebook_path"}},
		"Read":         {Kind: toolcall.KindRead, Files: []string{"file_path"}},
		"Grep":         {Kind: toolcall.KindRead, Files: []string{"path"}},
		"Glob":         {Kind: toolcall.KindRead, Files: []string{"path"}},
		"LS":           {Kind: toolcall.KindRead, Files: []string{"path"}},
		"WebFetch":     {Kind: toolcall.KindFetch},
		"WebSearch":    {Kind: toolcall.KindFetch},
	}
})

// Tools implements agents.Agent.
func (Agent) Tools() map[string]agents.ToolShape { return tools() }
