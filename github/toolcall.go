package github

import (
	"fmt"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
)

// ToolCall is an agent's tool call an approval can be about: the payload's "toolCall" object
// ({"tool": "Bash", "command": "…", "file": "…", "reason": "…"}), as an agent adapter hands a
// PermissionRequest or PreToolUse to an approval hook. The request shows it below its message,
// and, being in the payload, it is part of what the request is for (requestID): another call is
// another request, the same call finds the same request again.
type ToolCall struct {
	Tool, Command, File, Reason string
}

// toolCallOf reads the payload's toolCall (nil when there is none).
func toolCallOf(p hooks.Payload) *ToolCall {
	m, ok := p["toolCall"].(map[string]any)
	if !ok {
		return nil
	}
	tc := &ToolCall{Tool: hooks.FormatValue(m["tool"]), Command: hooks.FormatValue(m["command"]),
		File: hooks.FormatValue(m["file"]), Reason: hooks.FormatValue(m["reason"])}
	if *tc == (ToolCall{}) {
		return nil
	}
	return tc
}

// Markdown shows the call to the approver: the tool, the command in a code block no backtick
// in it can close, the file, the agent's reason. Nothing in it can hide a marker or break out of
// its block.
func (tc *ToolCall) Markdown() string {
	var b strings.Builder
	if tc.Tool != "" {
		fmt.Fprintf(&b, "**Tool:** %s\n", inlineCode(tc.Tool))
	}
	if tc.File != "" {
		fmt.Fprintf(&b, "**File:** %s\n", inlineCode(tc.File))
	}
	if tc.Command != "" {
		fence := strings.Repeat("`", max(3, longestRun(tc.Command, '`')+1))
		fmt.Fprintf(&b, "\n%s\n%s\n%s\n", fence, strings.TrimRight(tc.Command, "\n"), fence)
	}
	if tc.Reason != "" {
		fmt.Fprintf(&b, "\n**Reason:** %s\n", cell(tc.Reason, 2000))
	}
	return strings.ReplaceAll(strings.TrimSpace(b.String()), "<!--", "&lt;!--")
}

// inlineCode is s as inline code that no backtick in s can end.
func inlineCode(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	return ticks + " " + s + " " + ticks
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
