package copilot

import (
	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/toolcall"
	"sync"
)

// tools are Copilot CLI's tools (and the PascalCase dialect's) as the normalized call sees them.
var tools = sync.OnceValue(func() map[string]agents.ToolShape {
	return map[string]agents.ToolShape{
		"create":             {Kind: toolcall.KindWrite, Files: []string{"path", "file_path"}},
		"Write":              {Kind: toolcall.KindWrite, Files: []string{"path", "file_path"}},
		"edit":               {Kind: toolcall.KindEdit, Files: []string{"path", "file_path"}},
		"Edit":               {Kind: toolcall.KindEdit, Files: []string{"path", "file_path"}},
		"str_replace_editor": {Kind: toolcall.KindEdit, Files: []string{"path", "file_path"}},
		"apply_patch":        {Kind: toolcall.KindEdit, Patch: []string{"input", "patch", "command"}},
		"view":               {Kind: toolcall.KindRead, Files: []string{"path", "file_path"}},
		"Read":               {Kind: toolcall.KindRead, Files: []string{"path", "file_path"}},
		"grep":               {Kind: toolcall.KindRead, Files: []string{"path"}},
		"glob":               {Kind: toolcall.KindRead, Files: []string{"path"}},
		"web_fetch":          {Kind: toolcall.KindFetch},
	}
})

// Tools implements agents.Agent.
func (Agent) Tools() map[string]agents.ToolShape { return tools() }
