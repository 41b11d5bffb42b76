package droid

import (
	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/toolcall"
	"sync"
)

// tools are Droid's tools (0.215.0) as the normalized call sees them; ApplyPatch's input is the
// patch (the tool Droid gives GPT models).
var tools = sync.OnceValue(func() map[string]agents.ToolShape {
	return map[string]agents.ToolShape{
		"Create":     {Kind: toolcall.KindWrite, Files: []string{"file_path"}},
		"Edit":       {Kind: toolcall.KindEdit, Files: []string{"file_path"}},
		"MultiEdit":  {Kind: toolcall.KindEdit, Files: []string{"file_path"}},
		"ApplyPatch": {Kind: toolcall.KindEdit, Patch: []string{"input"}},
		"Read":       {Kind: toolcall.KindRead, Files: []string{"file_path"}},
		"LS":         {Kind: toolcall.KindRead, Files: []string{"directory_path"}},
		"Grep":       {Kind: toolcall.KindRead, Files: []string{"path"}},
		"Glob":       {Kind: toolcall.KindRead, Files: []string{"folder"}},
		"FetchUrl":   {Kind: toolcall.KindFetch},
		"WebSearch":  {Kind: toolcall.KindFetch},
	}
})

// Tools implements agents.Agent.
func (Agent) Tools() map[string]agents.ToolShape { return tools() }
