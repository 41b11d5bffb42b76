package approval

import (
	"errors"

	"golang.org/x/term"
)

// IsTerminal reports whether r is a terminal (an *os.File, or anything with an Fd, open on a tty
// or a console). The caller decides with it whether to hand the local provider a Terminal.
func IsTerminal(r any) bool {
	f, ok := r.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// ReadSecret reads one line from terminal r with its echo off (for typing a secret), and turns
// the echo back on after; the line end is not part of the result. r must be a terminal
// (IsTerminal).
func ReadSecret(r any) (string, error) {
	f, ok := r.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", errors.New("read a secret: not a terminal")
	}
	b, err := term.ReadPassword(int(f.Fd()))
	return string(b), err
}
