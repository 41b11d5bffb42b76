//go:build windows

package seedfmt

import (
	"os"

	"golang.org/x/sys/windows"
)

// lock takes an exclusive LockFileEx lock on the first byte of f, waiting for it.
func lock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, new(windows.Overlapped))
}

func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}
