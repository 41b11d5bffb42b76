package gitindex

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDirListNames lists directories with one DirList, as a walk does: every name but . and ..,
// a directory larger than the first buffer, names of the longest length, and a name read before
// still intact once copied.
func TestDirListNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 250)
	tests := []struct {
		name  string
		files []string
	}{
		{"empty", nil},
		{"few", []string{"a", ".gitignore", "sub", "é.txt"}},
		{"larger than the buffer", numbered("file-with-a-longer-name-%04d.txt", 2000)},
		{"longest names", numbered(long+"%04d", 40)},
	}
	var list DirList
	var kept []string
	for _, tt := range tests {
		dir := t.TempDir()
		for _, f := range tt.files {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := list.Names(d)
		d.Close()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got = slices.Sorted(slices.Values(got))
		want := slices.Sorted(slices.Values(tt.files))
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %d names %.80q, want %d %.80q", tt.name, len(got), got, len(want), want)
		}
		if len(got) > 0 {
			kept = append(kept, strings.Clone(got[0]))
		}
	}
	if want := []string{".gitignore", "file-with-a-longer-name-0000.txt", long + "0000"}; !slices.Equal(kept, want) {
		t.Errorf("copied names = %.80q, want %.80q", kept, want)
	}
}

func numbered(format string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}
