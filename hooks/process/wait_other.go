//go:build !linux

package process

// awaitExit reports false: the caller waits for the process with Wait.
func awaitExit(int) bool { return false }
