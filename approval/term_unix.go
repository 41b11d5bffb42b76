//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package approval

import "golang.org/x/sys/unix"

func isTerminalFd(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), ioctlGetTermios)
	return err == nil
}

// echoOff turns the terminal's echo off and returns what turns it back on.
func echoOff(fd uintptr) (restore func(), err error) {
	t, err := unix.IoctlGetTermios(int(fd), ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	old := *t
	t.Lflag &^= unix.ECHO
	t.Lflag |= unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(int(fd), ioctlSetTermios, t); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(int(fd), ioctlSetTermios, &old) }, nil
}
