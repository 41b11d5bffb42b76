//go:build unix

package seedfmt

import (
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive flock on f, waiting for it.
func lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

func unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
