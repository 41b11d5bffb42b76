package sibling

import (
	"os"
	"path/filepath"
	"testing"
)

// A program installed beside agent-hooks is found by its name on that system: on Windows,
// agent-hooks.exe's sibling is agent-hooks-otel.exe.
func TestFindBesideTheExecutable(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // nothing on PATH: only the sibling can be found
	for _, tt := range []struct{ goos, exe, shipper string }{
		{"linux", "agent-hooks", "agent-hooks-otel"},
		{"darwin", "agent-hooks", "agent-hooks-otel"},
		{"windows", "agent-hooks.exe", "agent-hooks-otel.exe"},
	} {
		dir := t.TempDir()
		want := filepath.Join(dir, tt.shipper)
		if err := os.WriteFile(want, nil, 0o755); err != nil {
			t.Fatal(err)
		}
		if got := find(filepath.Join(dir, tt.exe), "agent-hooks-otel", tt.goos); got != want {
			t.Errorf("%s: find = %q, want %q", tt.goos, got, want)
		}
	}
	if got := find(filepath.Join(t.TempDir(), "agent-hooks"), "agent-hooks-otel", "linux"); got != "" {
		t.Errorf("no shipper anywhere: find = %q, want none", got)
	}
}
