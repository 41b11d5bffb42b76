package hooks

import (
	"fmt"
	"regexp"
	"strings"
)

// ToolMatcher is a hook's "tools": the tool names it runs for, in Claude Code's matcher syntax
// (Codex matches the same way). "" and "*" match every tool; a pattern of letters, digits, _ and
// | only is a list of exact names ("Bash", "Edit|Write"); anything else is a regular expression
// matched anywhere in the name, unanchored, as the hosts do ("mcp__.*", "Notebook"). A pattern
// that does not compile is a configuration error here, where the hosts silently match nothing.
type ToolMatcher struct {
	pattern string
	all     bool
	names   []string       // the exact list
	re      *regexp.Regexp // the regular expression
}

// CompileTools parses a "tools" pattern.
func CompileTools(pattern string) (*ToolMatcher, error) {
	m := &ToolMatcher{pattern: pattern}
	switch {
	case pattern == "" || pattern == "*":
		m.all = true
	case exactToolList(pattern):
		m.names = strings.Split(pattern, "|")
	default:
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, fmt.Errorf("bad regex %q: %v", pattern, err)
		}
		m.re = re
	}
	return m, nil
}

func exactToolList(p string) bool {
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '|') {
			return false
		}
	}
	return true
}

// String is the pattern as written.
func (m *ToolMatcher) String() string { return m.pattern }

// Match reports whether the tool known by any of names (its name, then its aliases: Codex's
// apply_patch also answers to Write and Edit) is one the pattern selects.
func (m *ToolMatcher) Match(names ...string) bool {
	for _, n := range names {
		switch {
		case n == "":
		case m.all:
			return true
		case m.re != nil:
			if m.re.MatchString(n) {
				return true
			}
		default:
			for _, x := range m.names {
				if x == n {
					return true
				}
			}
		}
	}
	return false
}

// ToolNames are the names a payload gives its tool: toolName (else the hosts' tool_name), then
// the toolAliases an agent adapter adds.
func ToolNames(p Payload) []string {
	var names []string
	if n, ok := p["toolName"].(string); ok && n != "" {
		names = append(names, n)
	} else if n, ok := p["tool_name"].(string); ok && n != "" {
		names = append(names, n)
	}
	if aliases, ok := p["toolAliases"].([]any); ok {
		for _, a := range aliases {
			if s, ok := a.(string); ok && s != "" {
				names = append(names, s)
			}
		}
	} else if aliases, ok := p["toolAliases"].([]string); ok {
		names = append(names, aliases...)
	}
	return names
}
