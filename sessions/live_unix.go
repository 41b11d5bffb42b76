//go:build unix

package sessions

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockShared takes a shared flock(2) on f, waiting for it (only while a process that ends or
// removes the session holds it exclusively, which takes moments).
func lockShared(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_SH)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// tryLockExclusive takes an exclusive flock(2) on f if nobody holds one; free is false when a
// process holds it (shared or not).
func tryLockExclusive(f *os.File) (free bool, err error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, unix.EINTR):
			return false, err
		}
	}
}

func unlockFile(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }
