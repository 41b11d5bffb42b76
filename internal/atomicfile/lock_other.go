//go:build !unix && !windows

package atomicfile

import (
	"errors"
	"os"
	"runtime"
)

// lock fails: writing shared files without a lock could lose updates silently.
func lock(*os.File) error { return errors.New("file locking is not supported on " + runtime.GOOS) }

func unlock(*os.File) error { return nil }

func replace(from, to string) error { return os.Rename(from, to) }

func syncDir(string) error { return nil }
