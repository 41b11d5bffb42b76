package gitindex

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Names lists the entries of the open directory dir, but . and .., in the order the system
// gives them. The names are read with getdents into the list's buffer and point into it: they
// hold until the next call with the same list, and a name kept longer must be copied
// (strings.Clone). A walk of a large tree reads every directory into one reused buffer instead of
// allocating a string for each of its files.
func (l *DirList) Names(dir *os.File) ([]string, error) {
	if cap(l.buf) == 0 {
		l.buf = make([]byte, 0, 8<<10)
	}
	l.buf, l.names = l.buf[:0], l.names[:0]
	fd := int(dir.Fd())
	for {
		if cap(l.buf)-len(l.buf) < 1<<10 { // room for a record of the longest name
			nb := make([]byte, len(l.buf), 2*cap(l.buf))
			copy(nb, l.buf)
			l.buf = nb
		}
		free := l.buf[len(l.buf):cap(l.buf)]
		n, err := unix.Getdents(fd, free)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "getdents", Path: dir.Name(), Err: err}
		}
		if n <= 0 {
			break
		}
		l.buf = l.buf[:len(l.buf)+n]
	}
	// struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name (NUL-terminated).
	const nameOff = 19
	b := l.buf
	for len(b) > 0 {
		if len(b) < nameOff {
			return nil, fmt.Errorf("getdents %s: short record", dir.Name())
		}
		reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
		if reclen < nameOff || reclen > len(b) {
			return nil, fmt.Errorf("getdents %s: bad record length %d", dir.Name(), reclen)
		}
		name := b[nameOff:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		b = b[reclen:]
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		l.names = append(l.names, unsafe.String(&name[0], len(name)))
	}
	return l.names, nil
}
