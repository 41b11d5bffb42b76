//go:build linux

package process

import (
	"os"

	"golang.org/x/sys/unix"
)

// outputPipe is the pipe of a hook's stdout or stderr. The read end, ours, is non-blocking in the
// runtime's poller, so that closing it stops a read (see pipeDrain). The write end, the hook's,
// is a plain blocking descriptor, which os/exec hands over as it is: os.Pipe would register both
// ends with the poller and os/exec then make the hook's blocking again, six system calls a pipe
// on the per-hook path.
func outputPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := unix.SetNonblock(p[0], true); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

// inputPipe is the pipe of a hook's stdin when the payload is written whole before the hook
// starts (stdinPrefill): both ends plain blocking descriptors, since no write on it can block.
func inputPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}
