//go:build unix

package pipelines_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUnreadableConfig: loop.yaml or the global hooks.sh as a link to nothing used to read as "no
// config" (their hooks silently off), and a FIFO hung the load; both are errors naming the file.
func TestUnreadableConfig(t *testing.T) {
	t.Parallel()
	for _, rel := range []string{"loop.yaml", ".config/agent-pipelines/hooks.sh", ".config/agent-pipelines/webhooks.yaml"} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, "", "")
			file := filepath.Join(w.Dir, rel)
			if rel != "loop.yaml" {
				file = filepath.Join(w.Home, rel)
			}
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("gone", file); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Load(); err == nil || !strings.Contains(err.Error(), file+": it is a symbolic link to gone, which does not exist") {
				t.Errorf("dangling link: %v", err)
			}
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(file, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Load(); err == nil || !strings.Contains(err.Error(), file+": it is a named pipe") {
				t.Errorf("FIFO: %v", err)
			}
		})
	}
}
