//go:build unix

package cli

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// run replaces this process with the program at path. With replay, its stdin is a file holding
// stdin: what this process read of its own.
func run(path string, argv, env []string, stdin string, replay bool) (int, error) {
	if replay {
		f, err := replayFile(stdin)
		if err != nil {
			return 0, fmt.Errorf("keep the input for it: %w", err)
		}
		if err := unix.Dup2(int(f.Fd()), 0); err != nil {
			return 0, fmt.Errorf("give it the input: %w", err)
		}
		f.Close()
	}
	err := unix.Exec(path, argv, env)
	return 0, err // Exec returns only when it failed
}

// replayFile is an unnamed file holding s, read from its start.
func replayFile(s string) (*os.File, error) {
	f, err := anonymousFile()
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
