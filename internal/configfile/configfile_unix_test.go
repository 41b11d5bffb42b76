//go:build unix

package configfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadRefusesWhatNeverEnds: a FIFO without a writer (which blocks an open or a read for
// ever) and /dev/zero (which never ends) are refused at once, before any read.
func TestReadRefusesWhatNeverEnds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	checkRead(t, fifo, "fifo.json: it is a named pipe (FIFO), not a regular file", false)
	checkRead(t, zero, "zero.json: it is a character device, not a regular file", false)
}
