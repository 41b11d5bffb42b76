// Package toolcall is an agent's tool call in one shape for every agent: what kind of call it is,
// the files it writes and reads, and the simple commands of a shell call. The agent adapters build
// it (each agent knows its own tools; a shell command is read by the project's shell walker), the
// payload of every tool event carries it in "toolCall", rules match on it, and the audit trail
// records it, so that a gate means the same under every agent.
//
// Paths are normalized: inside the workspace they are relative to it, with forward slashes, after
// resolving ".", "..", symbolic links inside the workspace and absolute paths that point into it;
// outside it they are absolute. Contents (a Write's text, a patch's lines) are never part of it.
package toolcall

import (
	"encoding/json"
	"slices"
	"strconv"
)

// The kinds of tool call.
const (
	KindShell = "shell" // runs a shell command
	KindWrite = "write" // writes a whole file
	KindEdit  = "edit"  // changes part of a file (an edit, a patch)
	KindRead  = "read"  // reads files or lists folders
	KindFetch = "fetch" // reaches the network (web fetch, web search)
	KindMCP   = "mcp"   // an MCP server's tool
	KindOther = "other" // anything else (a todo list, a sub-agent)
)

// Call is one tool call in the shape every agent shares.
type Call struct {
	Tool string `json:"tool"`
	Kind string `json:"kind"`
	// Writes are the files the call writes (creates, changes, deletes, moves, links, changes the
	// mode of), normalized.
	Writes []string `json:"writes,omitempty"`
	// Reads are the files it reads, normalized.
	Reads []string `json:"reads,omitempty"`
	// Names are paths a shell call hands to programs that are not known to leave files alone:
	// they may read or write them (a script, an interpreter, a build tool). Rules on writes and
	// reads match them too.
	Names []string `json:"names,omitempty"`
	// Commands are the simple commands a shell call runs, wrappers and nested scripts unwrapped.
	Commands []Command `json:"commands,omitempty"`
	// Unreadable says why part of a shell call could not be read (it does not parse, it runs a
	// script named by an expansion, it changes to a directory named by one): what it runs or
	// touches there is unknown. "" when all of it was read.
	Unreadable string `json:"unreadable,omitempty"`
	// AnyFile says why the call may write or read any file: part of its shell command could not
	// be read at all (it does not parse, it is past the walker's bounds). "" otherwise.
	AnyFile string `json:"anyFile,omitempty"`
	// URL is the address a fetch reaches.
	URL string `json:"url,omitempty"`
}

// Command is one simple command of a shell call.
type Command struct {
	// Argv are its words, quotes removed; a word named by an expansion ($X, $(…)) is kept as its
	// source text and listed in Dynamic.
	Argv []string `json:"argv"`
	// Dynamic are the indexes in Argv of words named by an expansion: their value is known only
	// when the command runs.
	Dynamic []int `json:"dynamic,omitempty"`
	// Split are those of Dynamic that are not quoted: they may become any number of words.
	Split []int `json:"split,omitempty"`
	// MoreArgs says the command gets further arguments only at run time (xargs, find -exec … {}).
	MoreArgs bool `json:"moreArgs,omitempty"`
	// Via says how the command is reached when not directly ("sudo", "sh -c", "xargs", …).
	Via string `json:"via,omitempty"`
	// Unread, when set, says why this part of the shell command could not be read at all (a
	// script from an expansion, a script that does not parse, one past the walker's bounds):
	// it stands for any program with any arguments, and Argv is empty.
	Unread string `json:"unread,omitempty"`
}

// IsDynamic reports whether word i is named by an expansion.
func (c Command) IsDynamic(i int) bool { return slices.Contains(c.Dynamic, i) }

// IsSplit reports whether word i is an unquoted expansion, which may be several words.
func (c Command) IsSplit(i int) bool { return slices.Contains(c.Split, i) }

// Program is the command's program as written ("" when there are no words).
func (c Command) Program() string {
	if len(c.Argv) == 0 {
		return ""
	}
	return c.Argv[0]
}

// Into adds the call's fields to a payload's "toolCall" object tc (tool, command, … already set).
// The keys it owns are kind, writes, reads, names, commands, unreadable, anyFile and url; the others
// (tool, command, file, reason, cwd, input) are the adapter's (see approval.ToolCall).
func (c *Call) Into(tc map[string]any) {
	tc["kind"] = c.Kind
	if c.Tool != "" {
		if _, ok := tc["tool"]; !ok {
			tc["tool"] = c.Tool
		}
	}
	set := func(k string, v []string) {
		if len(v) > 0 {
			tc[k] = toAny(v)
		}
	}
	set("writes", c.Writes)
	set("reads", c.Reads)
	set("names", c.Names)
	if len(c.Commands) > 0 {
		cmds := make([]any, len(c.Commands))
		for i, cmd := range c.Commands {
			m := map[string]any{"argv": toAny(cmd.Argv)}
			if len(cmd.Dynamic) > 0 {
				m["dynamic"] = intsToAny(cmd.Dynamic)
			}
			if len(cmd.Split) > 0 {
				m["split"] = intsToAny(cmd.Split)
			}
			if cmd.MoreArgs {
				m["moreArgs"] = true
			}
			if cmd.Via != "" {
				m["via"] = cmd.Via
			}
			if cmd.Unread != "" {
				m["unread"] = cmd.Unread
			}
			cmds[i] = m
		}
		tc["commands"] = cmds
	}
	if c.Unreadable != "" {
		tc["unreadable"] = c.Unreadable
	}
	if c.AnyFile != "" {
		tc["anyFile"] = c.AnyFile
	}
	if c.URL != "" {
		tc["url"] = c.URL
	}
}

func toAny(v []string) []any {
	out := make([]any, len(v))
	for i, s := range v {
		out[i] = s
	}
	return out
}

func intsToAny(v []int) []any {
	out := make([]any, len(v))
	for i, n := range v {
		out[i] = n
	}
	return out
}

// FromPayload reads the call of a payload's "toolCall" (nil when the payload has none, or the
// object has no kind: a payload from before calls were normalized, or not about a tool call).
// It accepts the object as the adapters build it and as JSON decodes it.
func FromPayload(p map[string]any) *Call {
	tc, ok := p["toolCall"].(map[string]any)
	if !ok {
		return nil
	}
	kind, _ := tc["kind"].(string)
	if kind == "" {
		return nil
	}
	c := &Call{Kind: kind}
	c.Tool, _ = tc["tool"].(string)
	c.Writes = stringsOf(tc["writes"])
	c.Reads = stringsOf(tc["reads"])
	c.Names = stringsOf(tc["names"])
	c.Unreadable, _ = tc["unreadable"].(string)
	c.AnyFile, _ = tc["anyFile"].(string)
	c.URL, _ = tc["url"].(string)
	if list, ok := tc["commands"].([]any); ok {
		for _, x := range list {
			m, ok := x.(map[string]any)
			if !ok {
				continue
			}
			cmd := Command{Argv: stringsOf(m["argv"]), Dynamic: ints(m["dynamic"]), Split: ints(m["split"])}
			cmd.MoreArgs, _ = m["moreArgs"].(bool)
			cmd.Via, _ = m["via"].(string)
			cmd.Unread, _ = m["unread"].(string)
			c.Commands = append(c.Commands, cmd)
		}
	}
	return c
}

func stringsOf(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func ints(v any) []int {
	switch v := v.(type) {
	case []int:
		return v
	case []any:
		out := make([]int, 0, len(v))
		for _, x := range v {
			switch n := x.(type) {
			case int:
				out = append(out, n)
			case float64:
				out = append(out, int(n))
			case json.Number:
				if i, err := strconv.Atoi(string(n)); err == nil {
					out = append(out, i)
				}
			}
		}
		return out
	}
	return nil
}
