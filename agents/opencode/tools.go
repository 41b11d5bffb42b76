package opencode

import (
	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/toolcall"
	"sync"
)

// tools are OpenCode's tools (1.18.33) as the normalized call sees them: files are filePath,
// apply_patch's input is patchText (the tool OpenCode gives GPT models instead of edit and
// write).
var tools = sync.OnceValue(func() map[string]agents.ToolShape {
	return map[string]agents.ToolShape{
		"write":       {Kind: toolcall.KindWrite, Files: []string{"filePath"}},
		"edit":        {Kind: toolcall.KindEdit, Files: []string{"filePath"}},
		"multiedit":   {Kind: toolcall.KindEdit, Files: []string{"filePath"}},
		"apply_patch": {Kind: toolcall.KindEdit, Patch: []string{"patchText"}},
		"patch":       {Kind: toolcall.KindEdit, Patch: []string{"patchText"}},
		"read":        {Kind: toolcall.KindRead, Files: []string{"filePath"}},
		"grep":        {Kind: toolcall.KindRead, Files: []string{"path"}},
		"glob":        {Kind: toolcall.KindRead, Files: []string{"path"}},
		"list":        {Kind: toolcall.KindRead, Files: []string{"path"}},
		"webfetch":    {Kind: toolcall.KindFetch},
		"websearch":   {Kind: toolcall.KindFetch},
		"codesearch":  {Kind: toolcall.KindFetch},
	}
})

// Tools implements agents.Agent.
func (Agent) Tools() map[string]agents.ToolShape { return tools() }
