package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullDisk is an open file on a disk that takes room more bytes: a write beyond that writes what
// fits and fails with ENOSPC, as write(2) does on a full disk.
type fullDisk struct {
	*os.File
	room        int
	truncateErr error
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= d.room {
		d.room -= len(p)
		return d.File.Write(p)
	}
	n, err := d.File.Write(p[:d.room])
	d.room -= n
	if err == nil {
		err = syscall.ENOSPC
	}
	return n, err
}

func (d *fullDisk) Truncate(size int64) error {
	if d.truncateErr != nil {
		return d.truncateErr
	}
	return d.File.Truncate(size)
}

// appendOnFullDisk appends line to path through a disk with room bytes left.
func appendOnFullDisk(t *testing.T, path, line string, room int, truncateErr error) error {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = appendLines(&fullDisk{File: f, room: room, truncateErr: truncateErr}, []byte(line))
	return err
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAppendLinesFullDisk: a line cut short by a full disk is removed again, so the file holds
// whole lines only and the next append (once there is room) is a line of its own.
func TestAppendLinesFullDisk(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "trail.jsonl")
	if err := AppendLines(path, []byte("{\"n\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := appendOnFullDisk(t, path, "{\"n\":2,\"long\":\"xxxxxxxx\"}\n", 5, nil)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append on a full disk: %v, want ENOSPC", err)
	}
	if got := readString(t, path); got != "{\"n\":1}\n" {
		t.Fatalf("after the failed append the file is %q: the torn line stayed", got)
	}
	if err := AppendLines(path, []byte("{\"n\":3}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, path), "{\"n\":1}\n{\"n\":3}\n"; got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
}

// TestAppendLinesIsolatesATornFragment: a fragment that could not be removed (the writer was
// killed, or truncating failed) is ended with a newline by the next append, so the next line is
// not glued to it and lost.
func TestAppendLinesIsolatesATornFragment(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trail.jsonl")
	if err := AppendLines(path, []byte("{\"n\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := appendOnFullDisk(t, path, "{\"n\":2,\"long\":\"xxxxxxxx\"}\n", 5, errors.New("truncate refused"))
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "truncate refused") {
		t.Fatalf("append on a full disk: %v, want ENOSPC and the failed undo", err)
	}
	if err := AppendLines(path, []byte("{\"n\":3}\n{\"n\":4}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, path), "{\"n\":1}\n{\"n\":\n{\"n\":3}\n{\"n\":4}\n"; got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
}

func TestAppendLinesWantsWholeLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trail.jsonl")
	if err := AppendLines(path, []byte("no newline"), 0o600); err == nil {
		t.Error("data without a final newline was appended")
	}
	if err := AppendLines(path, nil, 0o600); err != nil {
		t.Errorf("nothing to append: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was made: %v", err)
	}
}

func TestLastLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 10000)
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"no newline", ""},
		{"one\n", "one"},
		{"one\ntwo\n", "two"},
		{"one\ntwo\ntorn", "two"},
		{"\n", ""},
		{"a\n" + long + "\n", long},
		{long + "\n" + long + "y\n", long + "y"},
		{long + "\nshort\n" + long, "short"},
		// around the first read (1 KB): the line and the newline before it in it, or not
		{"a\n" + strings.Repeat("y", 1022) + "\n", strings.Repeat("y", 1022)},
		{"a\n" + strings.Repeat("y", 1023) + "\n", strings.Repeat("y", 1023)},
		{"a\n" + strings.Repeat("y", 1024) + "\n", strings.Repeat("y", 1024)},
		{strings.Repeat("y", 1023) + "\n", strings.Repeat("y", 1023)},
		{strings.Repeat("y", 1024) + "\n", strings.Repeat("y", 1024)},
		{"a\nb\n" + strings.Repeat("z", 1100), "b"},
	} {
		got, err := LastLine(strings.NewReader(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("LastLine(%.20q…) = %.20q…, %v; want %.20q…", tc.in, got, err, tc.want)
		}
	}
}

// TestLastLineScratch: an Appender's reads of the last line, through one scratch buffer from one
// to the next, read what LastLine reads, whatever the previous read left in it.
func TestLastLineScratch(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 10000)
	var scratch []byte
	for _, in := range []string{"", "one\ntwo\n", "a\n" + long + "\n", "z\n", long + "\nshort\n" + long, "\n", "one\ntwo\ntorn", long + "\n" + long + "y\n", "b\nc\n"} {
		want, err := LastLine(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		got, lastByte, err := lastLine(strings.NewReader(in), int64(len(in)), &scratch)
		if err != nil || string(got) != string(want) {
			t.Errorf("lastLine(%.20q…) through a used scratch buffer = %.20q…, %v; want %.20q…", in, got, err, want)
		}
		var wantByte byte // 0 for an empty file
		if len(in) > 0 {
			wantByte = in[len(in)-1]
		}
		if lastByte != wantByte {
			t.Errorf("lastLine(%.20q…): last byte %q, want %q", in, lastByte, wantByte)
		}
	}
}
