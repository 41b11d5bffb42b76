//go:build unix

package webhooks

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadStoreRefusesWhatCannotBeRead: webhooks.json as a link to nothing used to read as an
// empty store (every webhook silently off), and as a FIFO hung every run; both are errors naming
// the file.
func TestReadStoreRefusesWhatCannotBeRead(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), StoreFile)
	if err := os.Symlink("dotfiles/webhooks.json", path); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadStore(path); err == nil || !strings.Contains(err.Error(), path+": it is a symbolic link to dotfiles/webhooks.json, which does not exist") {
		t.Errorf("dangling link: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadStore(path); err == nil || !strings.Contains(err.Error(), path+": it is a named pipe") {
		t.Errorf("FIFO: %v", err)
	}
}
