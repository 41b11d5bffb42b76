//go:build !unix && !windows

package sessions

import (
	"errors"
	"os"
	"runtime"
)

// lockFile fails: this platform has no file lock that agent-hooks knows how to take, and writing
// without one could lose updates.
func lockFile(*os.File) error {
	return errors.New("file locking is not supported on " + runtime.GOOS)
}

func unlockFile(*os.File) error { return nil }

func replaceFile(from, to string) error { return os.Rename(from, to) }

func syncDir(string) error { return nil }
