package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// anonymousFile is a file in memory (memfd_create): nothing is written to a disk.
func anonymousFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("agent-hooks-stdin", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "agent-hooks-stdin"), nil
}
