package hostsettings

// Gemini is Gemini CLI (0.61.0). Its settings.json has Claude Code's shape, but its own event
// names, and timeouts in milliseconds.
var Gemini = &Host{
	Name:  "gemini",
	Title: "Gemini CLI",
	// Not BeforeModel, AfterModel, BeforeToolSelection: no canonical event (AfterModel fires on
	// every chunk of every answer).
	Events: []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent",
		"PreCompress", "Notification", "SessionEnd"},
	Known: []string{"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel",
		"AfterModel", "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification"},
	HookTypes: []string{"command"},
	Millis:    true,
}

// GeminiSwitches are the keys of Gemini's "hooks" object that are switches, not events.
var GeminiSwitches = map[string]bool{"enabled": true, "disabled": true, "notifications": true}

// geminiTools are Gemini CLI's tool names, which its BeforeTool and AfterTool matchers (an
// unanchored JavaScript regular expression) are tested against.
var geminiTools = []string{"run_shell_command", "write_file", "replace", "read_file", "read_many_files",
	"grep_search", "glob", "list_directory", "web_fetch", "google_web_search", "write_todos", "save_memory"}

// claudeTools are Claude Code's tool names, written by mistake in a Gemini matcher.
var claudeTools = []string{"Bash", "Write", "Edit", "MultiEdit", "Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "TodoWrite", "Task"}
