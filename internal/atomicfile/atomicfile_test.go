package atomicfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestWriteFileReplacesWholeWithMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "secret.json")
	for _, content := range []string{"first", "second, longer than the first"} {
		if err := WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	if runtime.GOOS != "windows" {
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", st.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), nil, 0o600); err == nil {
		t.Error("write into a missing folder succeeded")
	}
}

// TestLockedIncrementsLoseNothing: 8 goroutines x 25 read-modify-write cycles of one counter file,
// each through its own open of the lock file, end at exactly 200, and a reader never sees a torn
// file.
func TestLockedIncrementsLoseNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, lockPath := filepath.Join(dir, "n.json"), filepath.Join(dir, ".lock")
	if err := WriteFile(path, []byte(`{"n":0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	torn := make(chan string, 1)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(path)
			var v map[string]int
			if err == nil && json.Unmarshal(b, &v) != nil {
				select {
				case torn <- string(b):
				default:
				}
			}
		}
	}()
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				err := WithLock(lockPath, func() error {
					b, err := os.ReadFile(path)
					if err != nil {
						return err
					}
					var v map[string]int
					if err := json.Unmarshal(b, &v); err != nil {
						return err
					}
					v["n"]++
					return WriteFile(path, []byte(`{"n":`+strconv.Itoa(v["n"])+`}`), 0o644)
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, []byte(`{"n":200}`)) {
		t.Errorf("counter %s, want 200: an update was lost", got)
	}
	select {
	case s := <-torn:
		t.Errorf("a reader saw a torn file: %q", s)
	default:
	}
}

func TestWriteTempIsPrivateAndRemoved(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "made")
	path, cleanup, err := WriteTemp(dir, "x-*.json", []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != `{"a":1}` || filepath.Dir(path) != dir {
		t.Fatalf("read %q, %v from %s", got, err, path)
	}
	if st, _ := os.Stat(path); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	cleanup()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("not removed: %v", err)
	}
}

// TestRemoveStaleTemps: the temporary files of writers that died before their rename are removed
// once they are older than the cutoff; fresh ones (a write under way) and every other file stay.
func TestRemoveStaleTemps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-2 * time.Hour)
	made, err := os.CreateTemp(dir, ".session-1-a.json.*.tmp") // named exactly as WriteFile names them
	if err != nil {
		t.Fatal(err)
	}
	made.Close()
	files := map[string]bool{ // name: stale, so removed
		filepath.Base(made.Name()):         true,
		".session-1-a.fresher.json.77.tmp": true,
		".session-1-a.json.12.tmp":         false, // fresh: a write under way
		".current.tmp":                     false, // not WriteFile's
		".lock":                            false,
		"session-1-a.json":                 false,
		".x.y.tmp":                         false,
	}
	for name, stale := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		at := old
		if !stale && name == ".session-1-a.json.12.tmp" {
			at = now
		}
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".d.json.5.tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(dir, ".d.json.5.tmp"), old, old)

	removed, err := RemoveStaleTemps(dir, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 2 {
		t.Errorf("removed %v, want the 2 stale temporary files", removed)
	}
	for name, stale := range files {
		_, err := os.Lstat(filepath.Join(dir, name))
		if gone := errors.Is(err, fs.ErrNotExist); gone != stale {
			t.Errorf("%s: removed %v, want %v", name, gone, stale)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".d.json.5.tmp")); err != nil {
		t.Errorf("a folder was removed: %v", err)
	}
	if removed, err := RemoveStaleTemps(filepath.Join(dir, "missing"), now); len(removed) != 0 || err != nil {
		t.Errorf("missing folder: %v %v", removed, err)
	}
}
