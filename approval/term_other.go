//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package approval

// isTerminalFd reports false where terminals are not detected: requests are then decided only
// with `agent-hooks approvals approve|reject`.
func isTerminalFd(uintptr) bool { return false }
