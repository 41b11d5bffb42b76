package configedit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
	"github.com/autoagent/agent-hooks/internal/configfile"
)

// lockWait is how long Update waits for another process's lock on the same file.
const lockWait = 5 * time.Second

// Update rewrites the file at path with edit, atomically: under a lock file (path.lock) so that
// concurrent updates do not lose each other's changes, through a temporary file renamed over the
// original, keeping its permissions. A missing file (and its directory) is created when edit
// changes the empty content. A symlink is followed, so the file it points to is updated.
func Update(path string, edit func(src []byte) ([]byte, bool, error)) (changed bool, err error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return false, fmt.Errorf("follow %s: %w", path, err)
		}
		path = target
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", dir, err)
	}
	unlock, err := lock(path + ".lock")
	if err != nil {
		return false, err
	}
	defer unlock()

	mode := fs.FileMode(0o644)
	src, err := configfile.Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		src = nil
	case err != nil:
		return false, err
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	out, changed, err := edit(src)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return false, fmt.Errorf("%s:%w", path, err)
		}
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if !changed {
		return false, nil
	}
	return true, atomicfile.WriteFile(path, out, mode)
}

// lock takes path as a lock file created exclusively and removed on unlock, rather than the
// flock of package atomicfile: the lock sits next to the user's config (often in their
// repository), and a lock file that outlived every run would show up in git status.
func lock(path string) (unlock func(), err error) {
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock %s: another agent-hooks process holds it (remove the file if none does)", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
