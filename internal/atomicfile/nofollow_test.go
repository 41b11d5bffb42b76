package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plant makes what the agent gated could leave at path in a folder of agent-hooks': the kinds of
// files OpenFile must refuse. It returns the outside file a link points at ("" for none).
type plant func(t *testing.T, path string) (outside string)

func symlinkTo(content string) plant {
	return func(t *testing.T, path string) string {
		outside := filepath.Join(t.TempDir(), "outside.txt")
		if content != "" {
			if err := os.WriteFile(outside, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(outside, path); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		return outside
	}
}

func hardLinkTo(content string) plant {
	return func(t *testing.T, path string) string {
		outside := filepath.Join(filepath.Dir(path), "..", "outside.txt")
		if err := os.WriteFile(outside, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(outside, path); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
		return outside
	}
}

func folder(t *testing.T, path string) string {
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	return ""
}

// openCases are the planted files and whether OpenFile refuses them for reading and for writing.
func openCases() []struct {
	name                    string
	plant                   plant
	refuseRead, refuseWrite bool
} {
	return []struct {
		name                    string
		plant                   plant
		refuseRead, refuseWrite bool
	}{
		{"symbolic link to a file", symlinkTo("the user's file\n"), true, true},
		{"symbolic link to nothing", symlinkTo(""), true, true},
		{"hard link", hardLinkTo("the user's file\n"), false, true},
		{"folder", folder, true, true},
	}
}

// TestOpenFileRefusesLinks: OpenFile opens a regular file of its own and refuses a link (leaving
// what it points at as it was, and creating nothing there), a folder, and a hard-linked file
// opened for writing.
func TestOpenFileRefusesLinks(t *testing.T) {
	t.Parallel()
	for _, tc := range openCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "sessions")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "x.head")
			outside := tc.plant(t, path)
			var before []byte
			if outside != "" {
				before, _ = os.ReadFile(outside)
			}
			for _, open := range []struct {
				flag   int
				refuse bool
			}{{os.O_RDONLY, tc.refuseRead}, {os.O_RDWR | os.O_CREATE, tc.refuseWrite}} {
				f, err := OpenFile(path, open.flag, 0o600)
				if err == nil {
					f.Close()
				}
				if open.refuse && !errors.Is(err, ErrNotRegular) {
					t.Errorf("OpenFile(flag %#x) = %v, want ErrNotRegular", open.flag, err)
				}
				if !open.refuse && err != nil {
					t.Errorf("OpenFile(flag %#x) = %v", open.flag, err)
				}
			}
			if outside != "" {
				after, err := os.ReadFile(outside)
				if string(after) != string(before) || (before == nil) != errors.Is(err, os.ErrNotExist) {
					t.Errorf("the file outside is %q (%v), was %q", after, err, before)
				}
			}
		})
	}
	path := filepath.Join(t.TempDir(), "plain")
	f, err := OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatalf("a new regular file: %v", err)
	}
	f.Close()
}

// TestWritesNeverGoThroughLinks: a lock file, an appended file and a read that are links are
// refused, and the file they point at is left as it was.
func TestWritesNeverGoThroughLinks(t *testing.T) {
	t.Parallel()
	ops := []struct {
		name string
		do   func(path string) error
	}{
		{"WithLock", func(path string) error { return WithLock(path, func() error { return nil }) }},
		{"AppendLines", func(path string) error { return AppendLines(path, []byte("{\"n\":1}\n"), 0o600) }},
		{"ReadLocked", func(path string) error { return ReadLocked(path, func(*os.File) error { return nil }) }},
		{"ReadFile", func(path string) error { _, err := ReadFile(path); return err }},
	}
	for _, op := range ops {
		for _, tc := range openCases() {
			t.Run(op.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				dir := filepath.Join(t.TempDir(), "sessions")
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, "file")
				outside := tc.plant(t, path)
				var before []byte
				if outside != "" {
					before, _ = os.ReadFile(outside)
				}
				err := op.do(path)
				readOnly := op.name == "ReadLocked" || op.name == "ReadFile"
				if refuse := tc.refuseWrite && !readOnly || tc.refuseRead; refuse && !errors.Is(err, ErrNotRegular) {
					t.Errorf("%s = %v, want ErrNotRegular", op.name, err)
				}
				if outside != "" {
					after, _ := os.ReadFile(outside)
					if string(after) != string(before) {
						t.Errorf("the file outside is %q, was %q", after, before)
					}
				}
			})
		}
	}
}

// TestAppendLinesAfterCommit: a commit that fails undoes the lines; one that succeeds keeps them.
func TestAppendLinesAfterCommit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trail.jsonl")
	line := func(s string) func([]byte) ([]byte, error) {
		return func([]byte) ([]byte, error) { return []byte(s), nil }
	}
	if err := AppendLinesAfter(path, 0o600, line("{\"n\":1}\n"), func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	err := AppendLinesAfter(path, 0o600, line("{\"n\":2}\n{\"n\":3}\n"), func() error { return errors.New("note refused") })
	if err == nil || !strings.Contains(err.Error(), "note refused") || !strings.Contains(err.Error(), "not appended") {
		t.Errorf("failed commit: %v", err)
	}
	if got, want := readString(t, path), "{\"n\":1}\n"; got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
}
