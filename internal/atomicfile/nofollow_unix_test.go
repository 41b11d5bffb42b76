//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenFileRefusesPipes: a named pipe where a file should be is refused at once, for reading
// and for writing, instead of waiting forever for the other end.
func TestOpenFileRefusesPipes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.head")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY, os.O_RDWR | os.O_CREATE} {
		f, err := OpenFile(path, flag, 0o600)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("OpenFile(pipe, %#x) = %v, want ErrNotRegular", flag, err)
		}
	}
	if _, err := ReadFile(path); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(pipe) = %v, want ErrNotRegular", err)
	}
}
