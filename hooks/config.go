package hooks

import "encoding/json"

// Config is the effective hook configuration of one workspace: the native project and user
// configs plus every registered format, validated and ready to run.
type Config struct {
	// Hooks maps a canonical event to its hooks in run order: project, user, then other formats.
	Hooks map[string][]*Hook
	// CustomEvents are the extra event names the configs declare.
	CustomEvents []string
	// DisableUserHooks is the project's "disableUserHooks".
	DisableUserHooks bool
	// Protected are the files and folders the agent may not write (see protect.go): every
	// configuration agent-hooks reads for this workspace, the hook scripts it runs from it, the
	// agents' hook settings and $AUTOAGENT_HOME. Empty when protection is off.
	Protected []string
	// Unprotected names the file and line:column of the "protectConfig": false that turned the
	// protection off ("" when it is on), for doctor and config show.
	Unprotected string
	// StopBlockLimit is "stopBlockLimit": consecutive blocked Stop events allowed before the next
	// Stop is let through (nil: the default, 8; 0: unlimited).
	StopBlockLimit *int
	// Files are the configuration files that were read, in order.
	Files []string
	// Warnings are non-fatal diagnostics found while loading.
	Warnings []Diagnostic
	// Sections are the top-level keys of the native files that are not the hooks' (such as
	// "telemetry" and "sessions", which other packages read), in file order: project, extra,
	// user.
	Sections map[string][]Section
	// Extensions are the formats' extensions bound to what they loaded, in the order of the
	// formats (Loaded.Extension).
	Extensions []Extension
}

// Section is one top-level key of a native config file that the hooks do not own, as written,
// with where it is, so that its owner can name the file and line:column of a bad value.
type Section struct {
	Key   string
	Value json.RawMessage
	File  string
	Scope string // project, extra or user
	Line  int    // of the value
	Col   int
}
