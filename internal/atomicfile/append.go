package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// AppendLines appends data, one or more complete lines each ending in '\n', to the line-oriented
// file path (created with mode perm, and its folder with 0700, when missing), so that the file
// only ever grows by whole lines that readers can tell apart:
//
//   - The append holds an exclusive lock on the file itself, so appenders are serialised and a
//     reader (which takes no lock) never waits.
//   - A write cut short (a full disk, a quota) is undone: the file is truncated back to its size
//     before the write, which removes only this write's own partial line; the error is returned.
//     Nothing another writer wrote is lost, since no one else can append while the lock is held.
//   - A file that does not end in '\n' (a writer killed in the middle of its write, or one whose
//     undo failed) gets a '\n' before data, so the torn fragment stays on a line of its own,
//     where readers report and skip it, instead of being glued to — and losing — the next line.
//     The fragment is kept rather than truncated away: it is evidence of what happened, and
//     truncating a file another tool may append to without our lock could cut its lines.
func AppendLines(path string, data []byte, perm fs.FileMode) error {
	if len(data) == 0 {
		return nil
	}
	if data[len(data)-1] != '\n' {
		return fmt.Errorf("append to %s: data does not end in a newline", path)
	}
	return AppendLinesAfter(path, perm, func([]byte) ([]byte, error) { return data, nil }, nil)
}

// AppendLinesAfter is AppendLines with the lines made under the lock by build, which gets the
// file's last complete line (without its '\n'; nil for a file without one) so that what it
// appends can depend on it, as a hash chain does. A fragment after the last '\n' (a torn write)
// is not a line: build gets the line before it. The slice is valid only during the call. commit,
// when not nil, runs under the lock once the lines are written, for what must change with them
// (a note of the chain's head); its error undoes the write, as a failed write is undone.
//
// The file is opened through OpenFile: never through a symbolic link, and only when it is a
// regular file with no other hard link, so that lines never land in a file elsewhere.
func AppendLinesAfter(path string, perm fs.FileMode, build func(last []byte) ([]byte, error), commit func() error) error {
	a := NewAppender(path, perm)
	err := a.Append(build, commit)
	if cerr := a.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("append to %s: %w", path, cerr)
	}
	return err
}

// Appender makes the appends of AppendLinesAfter to one file, keeping the file open from one to
// the next: a run of appends (the audit lines of one event's hooks) costs each a lock, a stat, a
// read of the tail and a write, not also an open and a close. Each append is what
// AppendLinesAfter does, to the file path names when it is made: under the lock, before anything
// is read, the held file is checked against path (lstat: the same file, still a regular file with
// no other hard link), and a file that was replaced, removed or linked since is let go and path
// opened again through OpenFile, as AppendLinesAfter would. Nothing is buffered: an append has
// written its lines (and run its commit) when it returns. The lock is held only during an
// append. The appends of one Appender are serialised (a flock on one open file does not exclude
// the goroutines sharing it); Close releases the file.
type Appender struct {
	path string
	perm fs.FileMode

	mu   sync.Mutex
	f    *os.File    // nil until the first append, and after Close
	st   fs.FileInfo // f's, as it was opened: what path must still name
	tail []byte      // the last block of the file as the last append read it, reused
}

// NewAppender is an Appender to path, creating it with mode perm (and its folder with 0700) when
// missing. It opens nothing until the first append.
func NewAppender(path string, perm fs.FileMode) *Appender {
	return &Appender{path: path, perm: perm}
}

// Append is AppendLinesAfter of the Appender's file: build gets the file's last complete line and
// returns the lines to append, commit (when not nil) runs under the lock once they are written,
// and its error undoes them.
func (a *Appender) Append(build func(last []byte) ([]byte, error), commit func() error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	size, err := a.lockCurrent()
	if err != nil {
		return fmt.Errorf("append to %s: %w", a.path, err)
	}
	err = buildAndAppend(a.f, size, &a.tail, build, commit)
	_ = unlock(a.f) // closing the file releases the lock anyway
	if err != nil {
		return fmt.Errorf("append to %s: %w", a.path, err)
	}
	return nil
}

// lockCurrent locks the file path names, opening it when the one held is not that file any
// more (or none is held), and returns its size, read under the lock.
func (a *Appender) lockCurrent() (size int64, err error) {
	if a.f != nil {
		if err := lock(a.f); err != nil {
			return 0, fmt.Errorf("lock %s: %w", a.path, err)
		}
		// Under the lock: a stat of the path, which is the held file's own when it is the same.
		if st, ok := StillAt(a.path, a.f, a.st); ok {
			return st.Size(), nil
		}
		_ = unlock(a.f)
		a.f.Close()
		a.f, a.st = nil, nil
	}
	open := func() (*os.File, fs.FileInfo, error) {
		return openFile(a.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, a.perm)
	}
	f, st, err := open()
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(a.path), 0o700); err == nil {
			f, st, err = open()
		}
	}
	if err != nil {
		return 0, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return 0, fmt.Errorf("lock %s: %w", a.path, err)
	}
	cur, err := f.Stat() // under the lock: no one appends until it is released
	if err != nil {
		_ = unlock(f)
		f.Close()
		return 0, err
	}
	a.f, a.st = f, st
	return cur.Size(), nil
}

// Close releases the file; the Appender opens it again if it is used after.
func (a *Appender) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f, a.st = nil, nil
	return err
}

// appendFile is what appendLines needs of an *os.File opened for reading and appending; tests
// hand it one that fills up like a full disk.
type appendFile interface {
	io.Writer
	io.ReaderAt
	Stat() (fs.FileInfo, error)
	Truncate(size int64) error
}

// appendLines is AppendLines on a locked file; size is the file's size before the write.
func appendLines(f appendFile, data []byte) (size int64, err error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size = st.Size()
	var last [1]byte
	if size > 0 {
		if _, err := f.ReadAt(last[:], size-1); err != nil {
			return size, fmt.Errorf("read the last byte: %w", err)
		}
	}
	return size, appendLinesAt(f, data, size, last[0])
}

// appendLinesAt is appendLines on a locked file of size bytes whose last byte is lastByte.
func appendLinesAt(f appendFile, data []byte, size int64, lastByte byte) error {
	buf := data
	if size > 0 && lastByte != '\n' {
		buf = append([]byte{'\n'}, data...) // isolate the torn fragment on its own line
	}
	// One write: an appender that does not take the lock still never interleaves with this one.
	n, err := f.Write(buf)
	if err == nil {
		return nil
	}
	if n > 0 {
		if terr := f.Truncate(size); terr != nil {
			return fmt.Errorf("%w (and removing the %d bytes written failed: %v; the next append puts them on a line of their own)", err, n, terr)
		}
	}
	return err
}

// buildAndAppend appends build's lines to f, locked and of size bytes, then runs commit. scratch
// is lastLine's.
func buildAndAppend(f *os.File, size int64, scratch *[]byte, build func(last []byte) ([]byte, error), commit func() error) error {
	last, lastByte, err := lastLine(f, size, scratch)
	if err != nil {
		return err
	}
	data, err := build(last)
	if err != nil || len(data) == 0 {
		return err
	}
	if data[len(data)-1] != '\n' {
		return errors.New("data does not end in a newline")
	}
	if err := appendLinesAt(f, data, size, lastByte); err != nil || commit == nil {
		return err
	}
	if err := commit(); err != nil {
		if terr := f.Truncate(size); terr != nil {
			return fmt.Errorf("%w (and removing the lines written failed: %v)", err, terr)
		}
		return fmt.Errorf("%w (the lines were not appended)", err)
	}
	return nil
}

// LastLine returns the last complete line of f (without its '\n'), reading back from the end
// in blocks: nil when f holds no '\n'. A fragment after the last '\n' is skipped.
func LastLine(f io.ReaderAt) ([]byte, error) {
	size, err := sizeOf(f)
	if err != nil {
		return nil, err
	}
	line, _, err := lastLine(f, size, nil)
	return line, err
}

// lastLine is LastLine of f, of size bytes, with its last byte (0 for an empty file). It reads
// the last firstBlock bytes first, which hold the last line of an audit trail as a rule, then
// further back in blocks of block bytes. scratch, when not nil, holds the buffer of the first
// read from one call to the next (an Appender's appends read one block each, as a rule): the line
// may be in it, and is valid until the next call with the same scratch.
func lastLine(f io.ReaderAt, size int64, scratch *[]byte) (line []byte, lastByte byte, err error) {
	const firstBlock, block = 1024, 4096
	var tail []byte // the bytes from some offset to the end of the file
	end := size     // the end of the last complete line, once found
	found := false
	for off := size; off > 0; {
		var buf []byte
		if tail == nil {
			n := min(firstBlock, off)
			if scratch != nil {
				if cap(*scratch) < firstBlock {
					*scratch = make([]byte, firstBlock)
				}
				buf = (*scratch)[:n]
			} else {
				buf = make([]byte, n)
			}
		} else {
			n := min(block, off)
			buf = make([]byte, n, n+int64(len(tail)))
		}
		n := int64(len(buf))
		off -= n
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, fmt.Errorf("read the last line: %w", err)
		}
		if off+n == size {
			lastByte = buf[n-1]
		}
		tail = append(buf, tail...)
		for hi := int(n); ; { // the new block only
			i := bytes.LastIndexByte(tail[:hi], '\n')
			if i < 0 {
				break
			}
			pos := off + int64(i) // a newline at pos
			if !found {
				found, end, hi = true, pos, i
				continue
			}
			return tail[i+1 : end-off], lastByte, nil
		}
		if off == 0 && found {
			return tail[:end], lastByte, nil
		}
	}
	return nil, lastByte, nil
}

func sizeOf(f io.ReaderAt) (int64, error) {
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		fi, err := st.Stat()
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	if s, ok := f.(interface{ Size() int64 }); ok {
		return s.Size(), nil
	}
	return 0, errors.New("last line: cannot tell the size")
}

// ReadLocked runs fn with path open for reading while holding the lock AppendLines takes, so
// that fn sees no append half done. A missing file is fs.ErrNotExist.
// The file is opened through OpenFile (never through a link).
func ReadLocked(path string, fn func(f *os.File) error) error {
	f, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lock(f); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer unlock(f) //nolint:errcheck // closing the file releases the lock anyway
	return fn(f)
}
