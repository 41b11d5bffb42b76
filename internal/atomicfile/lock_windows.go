//go:build windows

package atomicfile

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// lockAt is the byte that lock locks: far beyond the end of any file, because Windows locks are
// mandatory and a lock on the data would make readers of an appended file (which take no lock)
// fail while an append is under way.
func lockAt() *windows.Overlapped {
	return &windows.Overlapped{Offset: 0xFFFFFFFE, OffsetHigh: 0x7FFFFFFF}
}

// lock takes an exclusive LockFileEx lock on one byte of f beyond its data, waiting for it.
func lock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, lockAt())
}

func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockAt())
}

// replace renames from over to (MoveFileEx with MOVEFILE_REPLACE_EXISTING). A reader that has the
// old file open makes the rename fail for a moment on Windows, so it is retried briefly.
func replace(from, to string) error {
	var err error
	for delay := time.Millisecond; delay < 512*time.Millisecond; delay *= 2 {
		if err = os.Rename(from, to); err == nil {
			return nil
		}
		if !errors.Is(err, windows.ERROR_ACCESS_DENIED) && !errors.Is(err, windows.ERROR_SHARING_VIOLATION) {
			return err
		}
		time.Sleep(delay)
	}
	return err
}

// syncDir is a no-op: Windows cannot open a folder to flush it; NTFS journals the rename.
func syncDir(string) error { return nil }
