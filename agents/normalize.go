package agents

import (
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/toolcall"
)

// ToolShape is how one of an agent's tools touches files: its kind (toolcall.KindWrite, …), the
// input keys that name the files it writes (write, edit) or reads (read), and the keys that may
// hold an apply_patch patch, whose files it writes.
type ToolShape struct {
	Kind  string
	Files []string
	Patch []string
}

// normalizedCall is the agent's tool call in the shape every agent shares: its kind, the files it
// writes and reads (normalized: relative to the workspace inside it), and the simple commands of a
// shell call. nil when the input is about no tool.
func normalizedCall(h Agent, in *Input, dir, workspace, home string) *toolcall.Call {
	return callOf(h, in.Tool(), in.ToolInput(), dir, workspace, home)
}

// callOf is the normalized call of a tool and its input.
func callOf(h Agent, tool string, input map[string]any, dir, workspace, home string) *toolcall.Call {
	if tool == "" {
		return nil
	}
	pl := toolcall.NewPlace(dir, workspace, home)
	if command := h.ShellCommand(tool, input); command != "" {
		vars := map[string]string{}
		if home != "" {
			vars["HOME"] = home
		}
		simples, unreadable := shellSimples(command, vars)
		c := toolcall.FromShell(tool, simples, unreadable, pl)
		if HasPatch(command) {
			for _, f := range PatchFiles(command) {
				c.Writes = appendNew(c.Writes, pl.Normalize(filepath.FromSlash(f)))
			}
		}
		return c
	}
	c := &toolcall.Call{Tool: tool, Kind: toolcall.KindOther}
	// A tool the agent does not name is "other", an MCP server's tool (mcp__server__tool) "mcp".
	shape, known := h.Tools()[tool]
	switch {
	case known:
		c.Kind = shape.Kind
	case strings.HasPrefix(tool, "mcp__") || strings.HasPrefix(tool, "mcp_"):
		c.Kind = toolcall.KindMCP
	}
	for _, k := range shape.Files {
		for _, f := range fileValues(input[k]) {
			p := pl.Normalize(filepath.FromSlash(f))
			if c.Kind == toolcall.KindRead {
				c.Reads = appendNew(c.Reads, p)
			} else {
				c.Writes = appendNew(c.Writes, p)
			}
		}
	}
	for _, k := range shape.Patch {
		if s, ok := input[k].(string); ok && HasPatch(s) {
			for _, f := range PatchFiles(s) {
				c.Writes = appendNew(c.Writes, pl.Normalize(filepath.FromSlash(f)))
			}
		}
	}
	if c.Kind == toolcall.KindFetch {
		if u, ok := input["url"].(string); ok {
			c.URL = u
		}
	}
	return c
}

// fileValues are the paths of an input value: a string, or a list of strings (or of objects
// with a path, as Cline's read_files gives them).
func fileValues(v any) []string {
	switch v := v.(type) {
	case string:
		if v != "" {
			return []string{v}
		}
	case []any:
		var out []string
		for _, x := range v {
			switch x := x.(type) {
			case string:
				out = append(out, x)
			case map[string]any:
				for _, k := range []string{"path", "file_path", "filePath"} {
					if s, ok := x[k].(string); ok && s != "" {
						out = append(out, s)
						break
					}
				}
			}
		}
		return out
	}
	return nil
}

func appendNew(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
