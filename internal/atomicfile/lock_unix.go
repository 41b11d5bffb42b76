//go:build unix

package atomicfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive flock(2) on f, waiting for it. flock locks belong to the open file
// description, so two goroutines that each open the lock file exclude each other as two
// processes do.
func lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

func unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// replace renames from over to; rename(2) is atomic.
func replace(from, to string) error { return os.Rename(from, to) }

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOTSUP) {
		return err
	}
	return nil
}
