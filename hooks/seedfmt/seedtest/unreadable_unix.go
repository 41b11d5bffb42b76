//go:build unix

package seedtest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// CheckUnreadableConfig makes file (a configuration file of a format, absolute) a symbolic link
// to a missing file, then a FIFO no one writes to, and fails the test unless loading reports each
// as an error naming the file: neither may read as "no config", nor hang the load.
func (w *Workspace) CheckUnreadableConfig(file string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Symlink("gone", file); err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.Load(); err == nil || !strings.Contains(err.Error(), file+": it is a symbolic link to gone, which does not exist") {
		w.t.Errorf("%s as a dangling link: %v", file, err)
	}
	if err := os.Remove(file); err != nil {
		w.t.Fatal(err)
	}
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.Load(); err == nil || !strings.Contains(err.Error(), file+": it is a named pipe") {
		w.t.Errorf("%s as a FIFO: %v", file, err)
	}
}
