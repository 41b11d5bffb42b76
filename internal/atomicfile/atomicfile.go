// Package atomicfile owns how agent-hooks changes files that other processes read and write at
// the same time: session records, the approvals store, webhooks.json, per-session state of the
// seed formats, and the user's config when `config set-auto-*` rewrites it. A file is replaced
// whole (temporary file, fsync, rename, fsync of the folder), so a reader sees the old content or
// the new, never a mix; and read-modify-write cycles are serialised with an exclusive lock on a
// lock file (flock on Unix, LockFileEx on Windows), which the kernel releases if the holder dies.
// Line-oriented logs (the sessions' audit trails) grow by whole lines only (AppendLines), and the
// temporary files of writers that died before their rename are removed (RemoveStaleTemps).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
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
// missing). It excludes other processes and other goroutines that lock the same path. The lock
// file is opened through OpenFile: a link in its place is refused, never followed (which would
// create or lock a file elsewhere).
func WithLock(lockPath string, fn func() error) error {
	f, err := OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
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

// RemoveStaleTemps removes the temporary files that WriteFile made in dir (".<name>.<digits>.tmp")
// and that were last modified before cutoff: those of writers killed between creating the file and
// renaming it. A live writer's temporary file exists for the moments of one write, so a cutoff
// well in the past (an hour) spares every writer still running, whatever lock it holds. It
// returns the paths it removed; a file it could not remove is an error, the others are still
// removed.
func RemoveStaleTemps(dir string, cutoff time.Time) (removed []string, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remove stale temporary files: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if !e.Type().IsRegular() || !isTempName(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			continue // gone since the folder was read, or fresh
		}
		path := filepath.Join(dir, e.Name())
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove stale temporary file: %w", err))
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}

// isTempName reports whether name is one WriteFile gives its temporary files: "." + the target's
// name + "." + os.CreateTemp's random digits + ".tmp".
func isTempName(name string) bool {
	rest, ok := strings.CutSuffix(name, ".tmp")
	if !ok || !strings.HasPrefix(rest, ".") {
		return false
	}
	dot := strings.LastIndexByte(rest, '.')
	digits := rest[dot+1:]
	if dot <= 1 || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
