package hostsettings

import "github.com/autoagent/agent-hooks/configedit"

// Cursor is Cursor's hooks.json (from its documentation: cursor.com/docs/hooks). Its hooks are
// flat command objects under camelCase events, with timeouts in seconds, and fail open unless
// they say "failClosed": true.
var Cursor = &Host{
	Name:  "cursor",
	Title: "Cursor",
	// The generic tool events only: the specific ones (beforeShellExecution, afterFileEdit, …)
	// fire for the same calls, so agent-hooks would run twice for them.
	Events: []string{"sessionStart", "beforeSubmitPrompt", "preToolUse", "postToolUse",
		"postToolUseFailure", "subagentStart", "subagentStop", "stop", "preCompact", "sessionEnd"},
	Known: []string{"sessionStart", "sessionEnd", "beforeSubmitPrompt", "preToolUse", "postToolUse",
		"postToolUseFailure", "beforeShellExecution", "afterShellExecution", "beforeMCPExecution",
		"afterMCPExecution", "beforeReadFile", "afterFileEdit", "subagentStart", "subagentStop", "stop",
		"preCompact", "afterAgentResponse", "afterAgentThought", "beforeTabFileRead", "afterTabFileEdit",
		"workspaceOpen"},
	HookTypes:  []string{"command", "prompt"},
	shape:      configedit.CursorShape,
	FailClosed: []string{"preToolUse", "beforeSubmitPrompt", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile"},
}
