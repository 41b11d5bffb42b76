package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is what the error of OpenFile wraps for a path that is not a regular file of its
// own: a symbolic link (never followed), a named pipe, a device, a folder, or, opened for
// writing, a file with more than one hard link.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError is OpenFile's refusal of a path that is not a regular file of its own.
type NotRegularError struct {
	Path string
	What string // "a symbolic link", "a named pipe", "a file with 2 hard links", …
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s: agent-hooks opens only regular files of their own there, never through a link", e.Path, e.What)
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// OpenFile opens path as os.OpenFile does, but never through a symbolic link in its last element
// (O_NOFOLLOW; FILE_FLAG_OPEN_REPARSE_POINT on Windows), without waiting on a named pipe, and
// only when it is a regular file; opened for writing, the file must have no other hard link,
// since a write would change the file it is linked to. A refusal is a *NotRegularError. Files
// that the agent agent-hooks gates can replace (the sessions folder) are opened through it, so
// that a link planted there cannot make agent-hooks write, cut, create or lock a file elsewhere,
// nor hang it on a pipe. (A folder of the path that is a link is followed: that is where the
// user keeps the files.)
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, _, err := openFile(path, flag, perm)
	return f, err
}

// OpenFileStat is OpenFile, with what the opened file's fstat found: what StillAt holds the
// path against later.
func OpenFileStat(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	return openFile(path, flag, perm)
}

// StillAt reports whether path still names f, a file OpenFile opened for writing whose fstat
// then was opened, and is still a regular file with no other hard link: what OpenFile would open
// again. It returns path's lstat, which is f's own when ok. A file kept open across several
// writes is held against its path before each, so that nothing is written to a file that was
// replaced, removed or linked elsewhere since.
func StillAt(path string, f *os.File, opened fs.FileInfo) (fs.FileInfo, bool) {
	st, err := os.Lstat(path)
	if err != nil || !os.SameFile(opened, st) || !st.Mode().IsRegular() {
		return nil, false
	}
	if n, err := links(f, st); err != nil || n != 1 {
		return nil, false
	}
	return st, true
}

// openFile is OpenFile, with what the opened file's fstat found.
func openFile(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|noFollow, perm)
	if err != nil {
		if st, lerr := os.Lstat(path); lerr == nil && !st.Mode().IsRegular() {
			return nil, nil, &NotRegularError{Path: path, What: describeMode(st.Mode())}
		}
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, What: describeMode(st.Mode())}
	}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		n, err := links(f, st)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("count the links of %s: %w", path, err)
		}
		if n > 1 {
			f.Close()
			return nil, nil, &NotRegularError{Path: path, What: fmt.Sprintf("a file with %d hard links", n)}
		}
	}
	return f, st, nil
}

// ReadFile reads the regular file path as os.ReadFile does, through OpenFile: never through a
// symbolic link, nor from a pipe or a device (which could make a read wait, or never end).
func ReadFile(path string) ([]byte, error) {
	f, st, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, st.Size())
}

// ReadAll is io.ReadAll of a file fstat says holds size bytes: one read at that size, and one
// more that finds the end, where io.ReadAll grows from 512 bytes. The file may have grown or
// shrunk meanwhile; all of it is read either way.
func ReadAll(r io.Reader, size int64) ([]byte, error) {
	n := 512
	if size > 0 && size < 1<<30 {
		n = int(size) + 1 // one more byte, so that the read that finds the end needs no growth
	}
	b := make([]byte, 0, n)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeIrregular != 0:
		return "not a regular file (a reparse point or the like)"
	}
	return "not a regular file"
}
