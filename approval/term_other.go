//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package approval

import "errors"

// isTerminalFd reports false where terminals are not detected: requests are then decided only
// with `agent-hooks approvals approve|reject`.
func isTerminalFd(uintptr) bool { return false }

func echoOff(uintptr) (func(), error) { return nil, errors.New("not supported") }
