package cline

import (
	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/toolcall"
	"sync"
)

// tools are Cline's tools as the normalized call sees them.
var tools = sync.OnceValue(func() map[string]agents.ToolShape {
	return map[string]agents.ToolShape{
		"write_to_file":       {Kind: toolcall.KindWrite, Files: []string{"path", "file_path"}},
		"replace_in_file":     {Kind: toolcall.KindEdit, Files: []string{"path", "file_path"}},
		"editor":              {Kind: toolcall.KindEdit, Files: []string{"path", "file_path"}},
		"apply_patch":         {Kind: toolcall.KindEdit, Patch: []string{"input"}},
		"read_file":           {Kind: toolcall.KindRead, Files: []string{"path", "file_path"}},
		"read_files":          {Kind: toolcall.KindRead, Files: []string{"paths", "files", "file_paths"}},
		"list_files":          {Kind: toolcall.KindRead, Files: []string{"path"}},
		"search_files":        {Kind: toolcall.KindRead, Files: []string{"path"}},
		"use_mcp_tool":        {Kind: toolcall.KindMCP},
		"access_mcp_resource": {Kind: toolcall.KindMCP},
		"web_fetch":           {Kind: toolcall.KindFetch},
		"browser_action":      {Kind: toolcall.KindFetch},
	}
})

// Tools implements agents.Agent.
func (Agent) Tools() map[string]agents.ToolShape { return tools() }
