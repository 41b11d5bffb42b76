package telemetry

import (
	"os"
	"path/filepath"
	"testing"
)

// The shipper installed beside agent-hooks is found by its name on that system: on Windows,
// agent-hooks.exe's sibling is agent-hooks-otel.exe.
func TestFindShipperBesideTheExecutable(t *testing.T) {
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
		if got := findShipper(filepath.Join(dir, tt.exe), tt.goos); got != want {
			t.Errorf("%s: findShipper = %q, want %q", tt.goos, got, want)
		}
	}
	if got := findShipper(filepath.Join(t.TempDir(), "agent-hooks"), "linux"); got != "" {
		t.Errorf("no shipper anywhere: findShipper = %q, want none", got)
	}
}
