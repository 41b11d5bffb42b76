package approval

// IsTerminal reports whether r is a terminal (an *os.File, or anything with an Fd, open on a tty).
// The caller decides with it whether to hand the local provider a Terminal.
func IsTerminal(r any) bool {
	f, ok := r.(interface{ Fd() uintptr })
	return ok && isTerminalFd(f.Fd())
}
