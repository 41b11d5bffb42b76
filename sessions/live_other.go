//go:build !unix && !windows

package sessions

import (
	"errors"
	"os"
	"runtime"
)

// Without file locks nothing tells a session an event is running in: none is ended as idle or
// pruned (tryLockExclusive says so), rather than one be ended under a running event.

func lockShared(*os.File) error { return nil }

func tryLockExclusive(*os.File) (bool, error) {
	return false, errors.New("cannot tell whether a process is firing an event in it: no file locks on " + runtime.GOOS)
}

func unlockFile(*os.File) {}
