//go:build unix

package iteratr_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/iteratr"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

// TestUnreadableConfig: a .iteratr.hooks.yml that is a link to nothing used to read as "no
// config" (every hook silently off), and a FIFO hung the load; both are errors naming the file.
func TestUnreadableConfig(t *testing.T) {
	t.Parallel()
	w := seedtest.New(t, []hooks.Format{iteratr.New()}, iteratr.NewExtension())
	file := filepath.Join(w.Dir, iteratr.FileName)
	if err := os.Symlink("shared/hooks.yml", file); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Load(); err == nil || !strings.Contains(err.Error(), file+": it is a symbolic link to shared/hooks.yml, which does not exist") {
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
}
