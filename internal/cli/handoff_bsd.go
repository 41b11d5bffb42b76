//go:build unix && !linux

package cli

import "os"

// anonymousFile is a temporary file already removed: only its descriptor names it.
func anonymousFile() (*os.File, error) {
	f, err := os.CreateTemp("", "agent-hooks-stdin-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
