//go:build windows

package sessions

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// liveLockAt is the byte of a hold's file that holds lock: LockFileEx locks ranges, and a hold's
// file has no data.
func liveLockAt() *windows.Overlapped { return &windows.Overlapped{} }

// lockShared takes a shared LockFileEx lock on f, waiting for it (only while a process that ends
// or removes the session holds it exclusively, which takes moments).
func lockShared(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), 0, 0, 1, 0, liveLockAt())
}

// tryLockExclusive takes an exclusive LockFileEx lock on f if nobody holds one; free is false
// when a process holds it (shared or not).
func tryLockExclusive(f *os.File) (free bool, err error) {
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, liveLockAt())
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	}
	return false, err
}

func unlockFile(f *os.File) { _ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, liveLockAt()) }
