package hooks

// Config is the effective hook configuration of one workspace: the native project and user
// configs plus every registered format, validated and ready to run.
type Config struct {
	// Hooks maps a canonical event to its hooks in run order: project, user, then other formats.
	Hooks map[string][]*Hook
	// CustomEvents are the extra event names the configs declare.
	CustomEvents []string
	// DisableUserHooks is the project's "disableUserHooks".
	DisableUserHooks bool
	// StopBlockLimit is "stopBlockLimit": consecutive blocked Stop events allowed before the next
	// Stop is let through (nil: the default, 8; 0: unlimited).
	StopBlockLimit *int
	// Files are the configuration files that were read, in order.
	Files []string
	// Warnings are non-fatal diagnostics found while loading.
	Warnings []Diagnostic
	// Extensions are the formats' extensions bound to what they loaded, in the order of the
	// formats (Loaded.Extension).
	Extensions []Extension
}
