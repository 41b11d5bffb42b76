package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// ToolCall is an agent's tool call an approval can be about: the payload's "toolCall" object,
// as an agent adapter hands a PermissionRequest or a PreToolUse (and the git gates of its shell
// command) to the hooks:
//
//	{"tool": "Bash", "command": "…", "file": "…", "reason": "…", "cwd": "…", "input": {…}}
//
// Tool, Command, File and Reason are what the approver is shown; Input is the whole tool input
// (shown too when there is no command: a Write's content), and, with Cwd, part of what the
// request is for (Subject).
type ToolCall struct {
	Tool, Command, File, Reason, Cwd string
	Input                            map[string]any
}

// ToolCallOf reads the payload's toolCall (nil when there is none).
func ToolCallOf(p hooks.Payload) *ToolCall {
	m, ok := p["toolCall"].(map[string]any)
	if !ok {
		return nil
	}
	tc := &ToolCall{Tool: template.FormatValue(m["tool"]), Command: template.FormatValue(m["command"]),
		File: template.FormatValue(m["file"]), Reason: template.FormatValue(m["reason"]), Cwd: template.FormatValue(m["cwd"])}
	tc.Input, _ = m["input"].(map[string]any)
	if tc.Tool == "" && tc.Command == "" && tc.File == "" && tc.Reason == "" && len(tc.Input) == 0 {
		return nil
	}
	return tc
}

// MaxShown bounds each part of a tool call shown to the approver (a command, an input): a
// heredoc or a file's content can be larger than a pull-request comment may be. What is cut is
// said; the request is still for the whole call (Subject).
const MaxShown = 20000

// Shown is s as it is shown to the approver: at most MaxShown bytes, cut on a rune boundary, with
// a note saying how much was left out.
func Shown(s string) string {
	if len(s) <= MaxShown {
		return s
	}
	cut := MaxShown
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… (%d more bytes not shown)", len(s)-cut)
}

// InputText is the tool input as indented JSON, for a call whose command does not say what it
// does ("" when the call has a command or no input).
func (tc *ToolCall) InputText() string {
	if tc.Command != "" || len(tc.Input) == 0 {
		return ""
	}
	b, err := json.MarshalIndent(tc.Input, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}

// Text shows the call as plain text (the local provider's request): the tool, the file, the
// command or the input, the agent's reason.
func (tc *ToolCall) Text() string {
	var b strings.Builder
	if tc.Tool != "" {
		fmt.Fprintf(&b, "Tool: %s\n", tc.Tool)
	}
	if tc.File != "" {
		fmt.Fprintf(&b, "File: %s\n", tc.File)
	}
	if tc.Command != "" {
		fmt.Fprintf(&b, "Command:\n%s\n", indent(Shown(strings.TrimRight(tc.Command, "\n"))))
	}
	if in := tc.InputText(); in != "" {
		fmt.Fprintf(&b, "Input:\n%s\n", indent(Shown(in)))
	}
	if tc.Reason != "" {
		fmt.Fprintf(&b, "Reason: %s\n", tc.Reason)
	}
	return strings.TrimRight(b.String(), "\n")
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

// Subject is what an approval request asks about: for an agent's tool call, the event, the agent
// and its session, and the call itself (tool, whole input, working directory) — not the ids the
// agent gives each attempt (tool_use_id, prompt_id, turn_id) nor its transcript and modes, so
// that the agent's next identical call finds the same request, and any other call, however
// small the difference, is another request. For any other event, the payload's Subject.
func Subject(p hooks.Payload) hooks.Payload {
	if ToolCallOf(p) == nil {
		return p.Subject()
	}
	s := hooks.Payload{}
	for _, k := range []string{"eventName", "agent", "agentSessionId", "toolCall"} {
		if v, ok := p[k]; ok {
			s[k] = v
		}
	}
	return s
}

// RequestID names what a request asks to approve: the request text as the approver reads it and
// the payload's Subject, hashed. A request is for one decision: when either changes it is
// another request, asked anew, and the answers to the old one do not count for it.
func RequestID(text string, p hooks.Payload) (string, error) {
	b, err := json.Marshal(struct {
		Text    string        `json:"text"`
		Payload hooks.Payload `json:"payload"`
	}{text, Subject(p)})
	if err != nil {
		return "", fmt.Errorf("identify the request: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
