package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestAppenderFollowsThePath: an Appender keeps its file open from one append to the next, yet
// every append lands in the file the path names at that moment, as AppendLinesAfter's would: a
// file replaced or removed between two appends is not written to again, and a link planted in
// its place is refused without writing through it.
func TestAppenderFollowsThePath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		between func(t *testing.T, path string) (outside string) // what happens to path between the appends
		want    string                                           // path's content after both ("": not read)
		refused bool                                             // the second append is refused (ErrNotRegular)
	}{
		{"nothing", func(*testing.T, string) string { return "" }, "1\n2\n", false},
		{"appended by another writer", func(t *testing.T, path string) string {
			if err := AppendLines(path, []byte("x\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			return ""
		}, "1\nx\n2\n", false},
		{"replaced by rename", func(t *testing.T, path string) string {
			tmp := path + ".new"
			if err := os.WriteFile(tmp, []byte("new\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			return ""
		}, "new\n2\n", false},
		{"removed", func(t *testing.T, path string) string {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			return ""
		}, "2\n", false},
		{"moved away, a symbolic link in its place", func(t *testing.T, path string) string {
			if err := os.Rename(path, path+".old"); err != nil {
				t.Fatal(err)
			}
			return symlinkTo("the user's file\n")(t, path)
		}, "", true},
		{"hard-linked elsewhere", func(t *testing.T, path string) string {
			outside := filepath.Join(filepath.Dir(path), "..", "outside.txt")
			if err := os.Link(path, outside); err != nil {
				t.Skipf("no hard links here: %v", err)
			}
			return outside
		}, "1\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "sessions")
			path := filepath.Join(dir, "trail.jsonl")
			a := NewAppender(path, 0o600)
			defer a.Close()
			var lasts []string
			line := func(s string) func([]byte) ([]byte, error) {
				return func(last []byte) ([]byte, error) {
					lasts = append(lasts, string(last))
					return []byte(s + "\n"), nil
				}
			}
			if err := a.Append(line("1"), nil); err != nil {
				t.Fatal(err)
			}
			outside := tc.between(t, path)
			var before []byte
			if outside != "" {
				before, _ = os.ReadFile(outside)
			}
			err := a.Append(line("2"), nil)
			if tc.refused {
				if !errors.Is(err, ErrNotRegular) {
					t.Errorf("second append = %v, want ErrNotRegular", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if outside != "" {
				if after, _ := os.ReadFile(outside); string(after) != string(before) {
					t.Errorf("the file outside is %q, was %q", after, before)
				}
			}
			if got := readString(t, path); got != tc.want && !(tc.want == "" && tc.refused) {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
			if !tc.refused {
				// build saw the last line of the file the path names, not of the one held
				if got, want := lasts[len(lasts)-1], lastOf(tc.want, "2\n"); got != want {
					t.Errorf("build got last line %q, want %q", got, want)
				}
			}
		})
	}
}

// lastOf is the last line of content before the suffix it ends with.
func lastOf(content, suffix string) string {
	lines := strings.Split(strings.TrimSuffix(strings.TrimSuffix(content, suffix), "\n"), "\n")
	return lines[len(lines)-1]
}

// TestAppendersNeverInterleave: goroutines sharing one Appender and others each with their own
// append to one file; every line lands whole, after the line build saw last.
func TestAppendersNeverInterleave(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trail.jsonl")
	shared := NewAppender(path, 0o600)
	defer shared.Close()
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for w := range writers {
		a := shared
		if w%2 == 1 {
			a = NewAppender(path, 0o600)
			defer a.Close()
		}
		wg.Go(func() {
			for i := range each {
				err := a.Append(func(last []byte) ([]byte, error) {
					// each line names the line before it: a line appended by two writers at once
					// would name the same predecessor twice
					return fmt.Appendf(nil, "%d.%d after %s\n", w, i, strings.Fields(string(last) + " start")[0]), nil
				}, nil)
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(readString(t, path), "\n"), "\n")
	if len(lines) != writers*each {
		t.Fatalf("%d lines, want %d", len(lines), writers*each)
	}
	prev := "start"
	for n, l := range lines {
		name, after, ok := strings.Cut(l, " after ")
		if !ok || after != prev {
			t.Fatalf("line %d = %q, want one after %q", n+1, l, prev)
		}
		prev = name
	}
}
