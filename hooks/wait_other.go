//go:build !linux

package hooks

// awaitExit reports false: the caller waits for the process with Wait.
func awaitExit(int) bool { return false }
