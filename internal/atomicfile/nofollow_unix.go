//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// noFollow makes open(2) refuse a symbolic link in the last element of the path (ELOOP, and no
// file is created at the link's target), and not wait for a writer or a reader of a named pipe.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// links is the number of hard links of f.
func links(_ *os.File, st fs.FileInfo) (uint64, error) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Nlink), nil
	}
	return 1, nil
}
