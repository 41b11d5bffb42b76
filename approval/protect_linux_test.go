package approval

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestProtectMemory: after ProtectMemory the process is not dumpable, so that other processes of
// the user can neither ptrace it nor read /proc/<pid>/mem, where a callback token lives.
func TestProtectMemory(t *testing.T) {
	if err := ProtectMemory(); err != nil {
		t.Fatal(err)
	}
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v != 0 {
		t.Errorf("PR_GET_DUMPABLE = %d after ProtectMemory, want 0", v)
	}
}
