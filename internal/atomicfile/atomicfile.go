// Package atomicfile owns how agent-hooks changes files that other processes read and write at
// the same time: session records, the approvals store, webhooks.json, per-session state of the
// seed formats, and the user's config when `config set-auto-*` rewrites it. A file is replaced
// whole (temporary file, fsync, rename, fsync of the folder), so a reader sees the old content or
// the new, never a mix; and read-modify-write cycles are serialised with an exclusive lock on a
// lock file (flock on Unix, LockFileEx on Windows), which the kernel releases if the holder dies.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data. The new file has mode perm from its first byte: it never
// exists with a wider mode, so secrets stay private.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := replace(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return syncDir(dir)
}

// WithLock runs fn while holding an exclusive lock on lockPath (created with mode 0600 when
// missing). It excludes other processes and other goroutines that lock the same path.
func WithLock(lockPath string, fn func() error) error {
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open lock %s: %w", lockPath, err)
	}
	defer f.Close()
	if err := lock(f); err != nil {
		return fmt.Errorf("lock %s: %w", lockPath, err)
	}
	defer unlock(f) //nolint:errcheck // closing the file releases the lock anyway
	return fn()
}

// Rename moves from over to atomically and durably (for a link or a file the caller prepared),
// retrying briefly where Windows refuses while a reader has the old file open.
func Rename(from, to string) error {
	if err := replace(from, to); err != nil {
		return err
	}
	return syncDir(filepath.Dir(to))
}

// WriteTemp writes data to a new private (0600) temporary file in dir ("" for the system's
// temporary folder, created if missing) named after pattern (as os.CreateTemp), for handing data
// to another process; cleanup removes it.
func WriteTemp(dir, pattern string, data []byte) (path string, cleanup func(), err error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", nil, fmt.Errorf("write temporary file: %w", err)
		}
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", nil, fmt.Errorf("write temporary file: %w", err)
	}
	cleanup = func() { os.Remove(f.Name()) }
	if _, err := f.Write(data); err != nil {
		f.Close()
		cleanup()
		return "", nil, fmt.Errorf("write temporary file %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("write temporary file %s: %w", f.Name(), err)
	}
	return f.Name(), cleanup, nil
}
