// Package lockfile changes the files git guards with a lock (the index, refs, HEAD,
// packed-refs) the way git changes them (lockfile.c): <file>.lock is created exclusively,
// written, and renamed over the file. A lock that exists means another git process is at work
// (or crashed), and nothing is changed.
package lockfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LockedError is a lock file held by another process (or left by one that crashed).
type LockedError struct {
	Path string // the .lock file
	What string // what was being updated: "index", "refs/heads/main", …
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("cannot update %s: unable to create %s: file exists; another git process seems to be running in this repository; if none is, a git process crashed earlier: remove the file and try again", e.What, e.Path)
}

// File is a held lock on a file; what is written to it replaces the file on Commit.
type File struct {
	path string // the file the lock guards
	f    *os.File
	done bool
}

// Lock creates path.lock (and the directories above it); what names the file in errors. A lock
// held by someone else is a *LockedError.
func Lock(path, what string) (*File, error) {
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
	return &File{path: path, f: f}, nil
}

// Path is the lock file's own path (<file>.lock).
func (l *File) Path() string { return l.f.Name() }

// Write writes to the lock file.
func (l *File) Write(p []byte) (int, error) { return l.f.Write(p) }

// Commit renames the lock, with what was written to it, over the file.
func (l *File) Commit() error {
	if err := l.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(l.f.Name(), l.path); err != nil {
		return err
	}
	l.done = true
	return nil
}

// CommitData writes data to the lock and renames it over the file.
func (l *File) CommitData(data []byte) error {
	if _, err := l.f.Write(data); err != nil {
		return err
	}
	return l.Commit()
}

// Release drops the lock unless it was committed, leaving the file as it was; it is safe to call
// more than once.
func (l *File) Release() {
	if l.done {
		return
	}
	l.done = true
	l.f.Close()
	os.Remove(l.f.Name())
}
