package github

import (
	"fmt"
	"strings"

	"github.com/autoagent/agent-hooks/approval"
)

// toolCallMarkdown shows an agent's tool call (approval.ToolCall) to the approver: the tool,
// the command (or, without one, the tool input) in a code block no backtick in it can close, the
// file, the agent's reason. Nothing in it can hide a marker or break out of its block.
func toolCallMarkdown(tc *approval.ToolCall) string {
	var b strings.Builder
	if tc.Tool != "" {
		fmt.Fprintf(&b, "**Tool:** %s\n", inlineCode(tc.Tool))
	}
	if tc.File != "" {
		fmt.Fprintf(&b, "**File:** %s\n", inlineCode(tc.File))
	}
	block := func(lang, text string) {
		text = approval.Shown(strings.TrimRight(text, "\n"))
		fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
		fmt.Fprintf(&b, "\n%s%s\n%s\n%s\n", fence, lang, text, fence)
	}
	if tc.Command != "" {
		block("", tc.Command)
	}
	if in := tc.InputText(); in != "" {
		block("json", in)
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
