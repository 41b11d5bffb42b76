package agents

import "github.com/autoagent/agent-hooks/hooks"

// asksAbout reports whether event is a question about one tool call the agent makes again when
// it is refused: its PreToolUse and PermissionRequest (the model tries a refused call again; the
// agent asks again for the same call).
func asksAbout(event string) bool {
	return event == hooks.PreToolUse || event == hooks.PermissionRequest
}

// toolCall is the payload's "toolCall" (see approval.ToolCall): what an approval shows the
// person who decides — the tool, its shell command (or the command-like text of another tool:
// Codex's apply_patch patch), the file it writes, the agent's description of the call — and what
// makes one call another: the whole input and the working directory.
func toolCall(h Agent, in *Input) map[string]any {
	tool, input := in.Tool(), in.ToolInput()
	tc := map[string]any{"tool": tool}
	command := h.ShellCommand(tool, input)
	if command == "" {
		command, _ = input["command"].(string)
	}
	if command != "" {
		tc["command"] = command
	}
	if files := FilePaths(input, "file_path", "notebook_path", "path"); len(files) > 0 {
		tc["file"] = files[0]
	}
	if reason, _ := input["description"].(string); reason != "" {
		tc["reason"] = reason
	}
	if cwd := in.Cwd(); cwd != "" {
		tc["cwd"] = cwd
	}
	if input != nil {
		tc["input"] = input
	}
	return tc
}
