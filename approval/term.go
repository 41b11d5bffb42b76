package approval

// IsTerminal reports whether r is a terminal (an *os.File, or anything with an Fd, open on a tty).
// The caller decides with it whether to hand the local provider a Terminal.
func IsTerminal(r any) bool {
	f, ok := r.(interface{ Fd() uintptr })
	return ok && isTerminalFd(f.Fd())
}

// WithoutEcho runs fn with the echo of terminal r turned off (for typing a secret), and turns it
// back on after. When r is not a terminal, fn simply runs.
func WithoutEcho(r any, fn func() error) error {
	f, ok := r.(interface{ Fd() uintptr })
	if !ok || !isTerminalFd(f.Fd()) {
		return fn()
	}
	restore, err := echoOff(f.Fd())
	if err != nil {
		return fn()
	}
	defer restore()
	return fn()
}
