package notify

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data: it writes a temporary file with mode perm in the same
// directory, syncs it and renames it over path, so a reader sees the old content or the new,
// never a mix, and the file never exists with a wider mode than perm. The webhooks file and the
// approvals store (package approval) are written with it.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return nil
}

// Locked runs fn while holding an exclusive lock on lockPath (created with mode 0600 if missing),
// which excludes other processes and other goroutines that lock the same path. On systems
// without flock(2) it runs fn unlocked.
func Locked(lockPath string, fn func() error) error {
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open lock %s: %w", lockPath, err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return fmt.Errorf("lock %s: %w", lockPath, err)
	}
	defer unlockFile(f) //nolint:errcheck // closing the file releases the lock anyway
	return fn()
}
