package gemini

import (
	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/toolcall"
	"sync"
)

// tools are Gemini CLI's tools as the normalized call sees them.
var tools = sync.OnceValue(func() map[string]agents.ToolShape {
	return map[string]agents.ToolShape{
		"write_file":        {Kind: toolcall.KindWrite, Files: []string{"file_path"}},
		"replace":           {Kind: toolcall.KindEdit, Files: []string{"file_path"}},
		"read_file":         {Kind: toolcall.KindRead, Files: []string{"file_path", "absolute_path"}},
		"read_many_files":   {Kind: toolcall.KindRead, Files: []string{"paths"}},
		"grep_search":       {Kind: toolcall.KindRead, Files: []string{"path", "dir_path"}},
		"glob":              {Kind: toolcall.KindRead, Files: []string{"path", "dir_path"}},
		"list_directory":    {Kind: toolcall.KindRead, Files: []string{"path", "dir_path"}},
		"web_fetch":         {Kind: toolcall.KindFetch},
		"google_web_search": {Kind: toolcall.KindFetch},
	}
})

// Tools implements agents.Agent.
func (Agent) Tools() map[string]agents.ToolShape { return tools() }
