//go:build linux

package process

import (
	"os"
	"sync"
	"time"

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

// pidfdPolls reports whether this system gives a pidfd for a child (pidfd_open, Linux 5.3; and
// then os/exec holds one for each child it starts, from clone3), which poll(2) reports readable
// once the child has exited: then pollOutput reads a hook's output and waits for its exit in one
// goroutine.
var pidfdPolls = sync.OnceValue(func() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
})

// pollOutput reads the hook's output streams from this goroutine, in poll(2) with the pidfd of
// process p (a child of this process, not yet waited for), until the process has exited
// (leaving it to be reaped by Wait) or both streams have ended and it exited. The pidfd is the
// one os.StartProcess got from clone3 (CLONE_PIDFD) and Wait waits on, borrowed through
// WithHandle: no pidfd_open and close of a descriptor of our own for every hook. It reports
// false, having read nothing, when the process has no pidfd (a kernel or a system call filter
// without clone3's, where os/exec waits by pid).
func pollOutput(p *os.Process, streams *[2]rawStream) bool {
	err := p.WithHandle(func(pidfd uintptr) { pollStreams(streams, int(pidfd), time.Time{}) })
	return err == nil
}

// pollStreams reads the open streams as they become readable: with a pidfd (>= 0), until it is
// readable (the process exited); without, until both streams have ended or the deadline has
// passed. A poll that fails ends it (the caller's Wait then waits for the exit, and the streams
// are closed unread).
func pollStreams(streams *[2]rawStream, pidfd int, deadline time.Time) {
	buf := chunks.Get().(*[32 << 10]byte)
	defer chunks.Put(buf)
	var fds [3]unix.PollFd
	var which [3]int // the stream of each polled descriptor
	for {
		n := 0
		for i := range streams {
			if streams[i].fd >= 0 {
				fds[n], which[n] = unix.PollFd{Fd: int32(streams[i].fd), Events: unix.POLLIN}, i
				n++
			}
		}
		timeout := -1
		if pidfd >= 0 {
			fds[n] = unix.PollFd{Fd: int32(pidfd), Events: unix.POLLIN}
			n++
		} else {
			left := time.Until(deadline)
			if n == 0 || left <= 0 {
				return
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		_, err := unix.Poll(fds[:n], timeout)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return
		}
		exited := false
		for k := range fds[:n] {
			switch {
			case fds[k].Revents == 0:
			case pidfd >= 0 && k == n-1:
				exited = true
			default:
				streams[which[k]].read(buf[:])
			}
		}
		if exited {
			return
		}
	}
}

// rawPipe is the pipe of a hook's stdout or stderr for pollOutput: our end a plain blocking
// descriptor (read only once poll says it is readable), the hook's an *os.File for os/exec.
func rawPipe() (r int, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, nil, os.NewSyscallError("pipe2", err)
	}
	return p[0], os.NewFile(uintptr(p[1]), "|1"), nil
}

// pollerFiles hands the streams' descriptors over to the runtime's poller, for the copier
// goroutines (pollOutput could have no pidfd): the streams are left closed (-1).
func pollerFiles(streams *[2]rawStream) (out, errOut *os.File) {
	var f [2]*os.File
	for i := range streams {
		_ = unix.SetNonblock(streams[i].fd, true) // non-blocking: closing it stops a read
		f[i] = os.NewFile(uintptr(streams[i].fd), "|0")
		streams[i].fd = -1
	}
	return f[0], f[1]
}

func readFD(fd int, p []byte) (int, error) { return unix.Read(fd, p) }

// retryable is an error of a read that may succeed later.
func retryable(err error) bool { return err == unix.EINTR || err == unix.EAGAIN }

// closeFDs closes plain descriptors; -1 is none.
func closeFDs(fds ...int) {
	for _, fd := range fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}
