package gitops

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Files git guards with a lock (the index, refs, HEAD, packed-refs) are changed as git changes
// them: <file>.lock is created exclusively, written, and renamed over the file; a lock that
// exists means another git process is at work, and nothing is changed.

// LockedError is a lock file held by another process (or left by one that crashed).
type LockedError struct {
	Path string // the .lock file
	What string // what was being updated: "index", "refs/heads/main", …
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("cannot update %s: unable to create %s: file exists; another git process seems to be running in this repository; if none is, a git process crashed earlier: remove the file and try again", e.What, e.Path)
}

// lockFile is a held lock on path.
type lockFile struct {
	path string // the file the lock guards
	f    *os.File
	done bool
}

// lock creates path.lock (and the directories above it); what names the file in errors.
func lock(path, what string) (*lockFile, error) {
	lp := path + ".lock"
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(lp), 0o777); err != nil {
			return nil, fmt.Errorf("update %s: %w", what, err)
		}
		f, err = os.OpenFile(lp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	}
	if errors.Is(err, fs.ErrExist) {
		return nil, &LockedError{Path: lp, What: what}
	}
	if err != nil {
		return nil, fmt.Errorf("update %s: %w", what, err)
	}
	return &lockFile{path: path, f: f}, nil
}

// commit writes data to the lock and renames it over the file.
func (l *lockFile) commit(data []byte) error {
	if _, err := l.f.Write(data); err != nil {
		return err
	}
	if err := l.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(l.f.Name(), l.path); err != nil {
		return err
	}
	l.done = true
	return nil
}

// release drops the lock unless it was committed; it is safe to call more than once.
func (l *lockFile) release() {
	if l.done {
		return
	}
	l.done = true
	l.f.Close()
	os.Remove(l.f.Name())
}
