package hooks

import (
	"strings"
	"testing"
)

// TestToolMatcher: Claude Code's matcher syntax (its `mam`, and Codex's matches_matcher): an exact
// list when the pattern is letters, digits, _ and | only, else an unanchored regular expression.
func TestToolMatcher(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		names   []string
		want    bool
	}{
		{"", []string{"Bash"}, true},
		{"*", []string{"mcp__github__create_issue"}, true},
		{"Bash", []string{"Bash"}, true},
		{"Bash", []string{"BashOutput"}, false}, // exact, not a prefix
		{"Bash", []string{"bash"}, false},
		{"Edit|Write", []string{"Write"}, true},
		{"Edit|Write", []string{"MultiEdit"}, false},
		{"Edit|Write", []string{"apply_patch", "Write", "Edit"}, true}, // an alias matches
		{"Notebook.*", []string{"NotebookEdit"}, true},
		{"Edit.*", []string{"MultiEdit"}, true}, // unanchored, as the hosts do
		{"^Edit$", []string{"MultiEdit"}, false},
		{"mcp__.*", []string{"mcp__github__create_issue"}, true},
		{"mcp__.*", []string{"Bash"}, false},
		{"Bash", nil, false},
		{"*", nil, false},
	}
	for _, tt := range tests {
		m, err := CompileTools(tt.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		if got := m.Match(tt.names...); got != tt.want {
			t.Errorf("tools %q, names %v: %v, want %v", tt.pattern, tt.names, got, tt.want)
		}
	}
	if _, err := CompileTools("Bash("); err == nil {
		t.Error("a bad regex compiled")
	}
}

// TestToolsShorthandSelectsHooks: "tools" runs a hook only for the tools it names, by toolName (or
// the hosts' tool_name) and toolAliases; on an event without a tool the hook does not run.
func TestToolsShorthandSelectsHooks(t *testing.T) {
	t.Parallel()
	e, out := engineFor(t, hooksJSON("PreToolUse",
		cmdHook("bash", "echo bash ran", `"tools": "Bash"`),
		cmdHook("edits", "echo edits ran", `"tools": "Edit|Write"`),
		cmdHook("mcp", "echo mcp ran", `"tools": "mcp__.*"`),
		cmdHook("all", "echo all ran", "")), nil, nil)
	for _, tc := range []struct {
		payload Payload
		want    string
	}{
		{Payload{"toolName": "Bash"}, "bash all"},
		{Payload{"tool_name": "Write"}, "edits all"},
		{Payload{"toolName": "apply_patch", "toolAliases": []any{"Write", "Edit"}}, "edits all"},
		{Payload{"toolName": "mcp__github__create_issue"}, "mcp all"},
		{Payload{}, "all"},
	} {
		out.Reset()
		res, err := e.Fire(t.Context(), PreToolUse, tc.payload)
		must(t, err)
		got := strings.Join(strings.Fields(strings.ReplaceAll(out.String(), " ran", "")), " ")
		if got != tc.want {
			t.Errorf("payload %v: ran %q, want %q (%s)", tc.payload, got, tc.want, statuses(res))
		}
	}
}
