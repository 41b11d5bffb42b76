package configfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	link := func(name, target string) string {
		path := filepath.Join(dir, name)
		if err := os.Symlink(target, path); err != nil {
			t.Skipf("symlink: %v", err)
		}
		return path
	}
	regular := write("config.json", `{"hooks": {}}`)
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxSize+1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	atMax := filepath.Join(dir, "max.json")
	if err := os.WriteFile(atMax, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(atMax, MaxSize); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, path string
		want       string // "" reads; else the error contains it
		notExist   bool   // the error matches fs.ErrNotExist
	}{
		{name: "regular", path: regular},
		{name: "through a link", path: link("link.json", regular)},
		{name: "through a link to a link", path: link("link2.json", filepath.Join(dir, "link.json"))},
		{name: "in a folder reached through a link", path: filepath.Join(link("dirlink", dir), filepath.Base(regular))},
		{name: "missing in a folder reached through a link", path: filepath.Join(dir, "dirlink", "missing.json"), want: "missing.json", notExist: true},
		{name: "at the limit", path: atMax},
		{name: "missing", path: filepath.Join(dir, "missing.json"), want: "missing.json", notExist: true},
		{name: "dangling link", path: link("dangling.json", "gone.json"), want: "dangling.json: it is a symbolic link to gone.json, which does not exist"},
		{name: "folder", path: dir, want: "it is a folder, not a regular file"},
		{name: "over the limit", path: big, want: "big.json: larger than 16 MiB"},
		{name: "over the limit through a link", path: link("big-link.json", big), want: "big-link.json: larger than 16 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkRead(t, tc.path, tc.want, tc.notExist) })
	}
}

// checkRead reads path and wants its content (want "") or an error containing want.
func checkRead(t *testing.T, path, want string, notExist bool) {
	t.Helper()
	got, err := Read(path)
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(path); int64(len(got)) != st.Size() {
			t.Errorf("read %d bytes, want %d", len(got), st.Size())
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
	if errors.Is(err, fs.ErrNotExist) != notExist {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) = %v, want %v", err, !notExist, notExist)
	}
}
