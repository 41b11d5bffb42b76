//go:build unix

package refs

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// walkLoose calls fn with the name (prefix and the path below dir) and content of every loose
// ref below dir. Each file is opened relative to its folder's descriptor and read with plain
// system calls: three a ref, no path resolved again from the root, nothing registered with
// the poller. A folder or file removed meanwhile (a ref deleted or packed) is passed over.
func walkLoose(dir, prefix string, fn func(name string, content []byte)) error {
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return err
	}
	fd := int(d.Fd())
	buf := make([]byte, 256)
	for _, e := range entries {
		name := e.Name()
		if skipLoose(name) {
			continue
		}
		if e.IsDir() {
			if err := walkLoose(dir+"/"+name, prefix+name+"/", fn); err != nil {
				return err
			}
			continue
		}
		content, err := readAt(fd, name, buf[:0])
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EISDIR) {
			continue // gone, or a symbolic link to a folder
		}
		if err != nil {
			return &fs.PathError{Op: "read", Path: dir + "/" + name, Err: err}
		}
		fn(prefix+name, content)
		buf = content[:0]
	}
	return nil
}

// readAt reads the file name in the folder dirfd into buf.
func readAt(dirfd int, name string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
