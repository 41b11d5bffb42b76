//go:build linux

package process

import (
	"os"

	"golang.org/x/sys/unix"
)

// awaitExit returns once process pid (a child of this process) has exited, leaving it to be
// reaped by the caller's Wait, which then returns at once. It waits in the runtime's network
// poller, on a pidfd: a goroutine blocked in wait(2) instead holds a thread in a system call, and
// for as long as it does the runtime's monitor thread wakes every 20 µs to 10 ms to see whether to
// take its processor back, some 60 context switches a hook. It reports false where it cannot
// (Linux before 5.10: no non-blocking pidfd), and the caller waits as before.
func awaitExit(pid int) bool {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	exited := false
	err = rc.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			return false
		}
		// An error (the child was reaped elsewhere) is for the caller's Wait to report.
		exited = err != nil || info.Signo != 0
		return exited
	})
	return err == nil && exited
}
