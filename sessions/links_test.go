package sessions

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReplaceLinkNeverWritesThroughATemporaryLink: where links cannot be made, the `current`
// link is a file written new under a temporary name; a link someone put there is never written
// through.
func TestReplaceLinkNeverWritesThroughATemporaryLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, ".current.tmp")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := writeNew(filepath.Join(dir, ".current.tmp"), []byte("session-1-a.json\n")); err == nil {
		t.Error("wrote over a link")
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep\n" {
		t.Errorf("the file outside is %q", b)
	}
}
