//go:build unix

package configedit

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUpdateRefusesAFIFO: `config set-auto-*` on a config that is a FIFO hung in the read; it is
// refused with an error naming the file.
func TestUpdateRefusesAFIFO(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	must(t, syscall.Mkfifo(path, 0o600))
	_, err := Update(path, func(src []byte) ([]byte, bool, error) { return Set(src, commit, true) })
	if err == nil || !strings.Contains(err.Error(), path+": it is a named pipe") {
		t.Errorf("err = %v", err)
	}
}
