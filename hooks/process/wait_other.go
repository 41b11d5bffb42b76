//go:build !linux

package process

import (
	"errors"
	"os"
	"time"
)

// awaitExit reports false: the caller waits for the process with Wait.
func awaitExit(int) bool { return false }

// pidfdPolls reports false: copier goroutines read a hook's output.
func pidfdPolls() bool { return false }

// The poll loop of Linux, never used here (pidfdPolls).

func pollOutput(*os.Process, *[2]rawStream) bool { return false }

func pollStreams(*[2]rawStream, int, time.Time) {}

func rawPipe() (int, *os.File, error) { return -1, nil, errors.New("no plain pipes here") }

func pollerFiles(*[2]rawStream) (out, errOut *os.File) { return nil, nil }

func readFD(int, []byte) (int, error) { return 0, errors.New("no plain descriptors here") }

func retryable(error) bool { return false }

func closeFDs(...int) {}
