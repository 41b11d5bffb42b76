// Package configfile owns how agent-hooks reads a configuration file, whatever its format
// (config.json, loop.yaml, .iteratr.hooks.yml, …): as a regular file of bounded size, so that a
// config pointing at a FIFO, a device or an ever-growing file cannot hang or exhaust a run, and
// with a symbolic link that leads nowhere reported as an error rather than read as "no config",
// which would silently disable every hook.
package configfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// MaxSize is the largest configuration file read: 16 MiB, thousands of times a large real config,
// small enough that reading and parsing it costs a run well under a second.
const MaxSize = 16 << 20

// Read returns the content of the configuration file path. A missing file is an error that
// matches fs.ErrNotExist (callers decide whether that means "no config"); a symbolic link to a
// missing file, a file that is not a regular file (a FIFO, a device, a folder) and a file over
// MaxSize are errors that name the file and do not match it. Nothing blocks: the file is opened
// without waiting for a FIFO's writer and checked before it is read.
func Read(path string) ([]byte, error) {
	// Most of the files looked for do not exist. Opened without following a link at the name
	// first, a missing one is told apart from a link to nothing without a readlink: only a name
	// that is a link (ELOOP; EMLINK on FreeBSD), or another failure, is opened again, following it.
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags|noFollow, 0)
	maybeLink := noFollow == 0
	if err != nil && noFollow != 0 && !errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(path, os.O_RDONLY|openFlags, 0)
		maybeLink = true
	}
	if err != nil {
		if maybeLink && errors.Is(err, fs.ErrNotExist) {
			if target, lerr := os.Readlink(path); lerr == nil {
				return nil, fmt.Errorf("read %s: it is a symbolic link to %s, which does not exist", path, target)
			}
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: it is %s, not a regular file", path, kind(st.Mode()))
	}
	tooBig := func() error {
		return fmt.Errorf("read %s: larger than %d MiB, the most a configuration file may be", path, MaxSize>>20)
	}
	if st.Size() > MaxSize {
		return nil, tooBig()
	}
	// Read at the size fstat gave, in one read, not ReadAll's doubling from 512 bytes; the file may
	// grow while it is read.
	data, err := atomicfile.ReadAll(io.LimitReader(f, MaxSize+1), st.Size())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxSize {
		return nil, tooBig()
	}
	return data, nil
}

// kind names what a file that is not a regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file (" + m.Type().String() + ")"
}
