//go:build !unix && !windows

package seedfmt

import (
	"errors"
	"os"
	"runtime"
)

// lock fails: without a file lock, concurrent updates of session state could be lost.
func lock(*os.File) error { return errors.New("file locking is not supported on " + runtime.GOOS) }

func unlock(*os.File) error { return nil }
