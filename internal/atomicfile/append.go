package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
	open := func() (*os.File, error) {
		return os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, perm)
	}
	f, err := open()
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
			f, err = open()
		}
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if err := lock(f); err != nil {
		f.Close()
		return fmt.Errorf("lock %s: %w", path, err)
	}
	err = appendLines(f, data)
	_ = unlock(f) // closing the file releases the lock anyway
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return nil
}

// appendFile is what appendLines needs of an *os.File opened for reading and appending; tests
// hand it one that fills up like a full disk.
type appendFile interface {
	io.Writer
	io.ReaderAt
	Stat() (fs.FileInfo, error)
	Truncate(size int64) error
}

// appendLines is AppendLines on a locked file.
func appendLines(f appendFile, data []byte) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	buf := data
	if size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err != nil {
			return fmt.Errorf("read the last byte: %w", err)
		}
		if last[0] != '\n' {
			buf = append([]byte{'\n'}, data...) // isolate the torn fragment on its own line
		}
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
