//go:build !linux

package process

import "os"

// outputPipe is the pipe of a hook's stdout or stderr.
func outputPipe() (r, w *os.File, err error) { return os.Pipe() }

// inputPipe is the pipe of a hook's stdin when the payload is written whole before it starts.
func inputPipe() (r, w *os.File, err error) { return os.Pipe() }
