//go:build unix

package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLoadRefusesAFIFOConfig: a user config that is a FIFO no one writes to made every run hang
// in the read for ever (SIGTERM included); it is refused with an error naming it.
func TestLoadRefusesAFIFOConfig(t *testing.T) {
	t.Parallel()
	env := writeConfig(t, `{"hooks": {"Stop": [{"command": "true"}]}}`, "")
	user := filepath.Join(env.AutoagentHome, UserConfigName)
	must(t, syscall.Mkfifo(user, 0o600))
	if _, err := Load(NewRegistry(), env); err == nil || !strings.Contains(err.Error(), user+": it is a named pipe (FIFO), not a regular file") {
		t.Errorf("FIFO user config: %v", err)
	}
	must(t, os.Remove(user))
	must(t, os.Symlink("/dev/zero", user))
	if _, err := Load(NewRegistry(), env); err == nil || !strings.Contains(err.Error(), user+": it is a character device") {
		t.Errorf("/dev/zero as user config: %v", err)
	}
}
