//go:build unix

package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// TestPipesInPlaceOfSessionFilesNeverHang: a named pipe planted in place of a session's files
// makes no reader or writer wait for the other end (an agent-hooks that hangs is one its agent's
// host times out): the note is replaced, the others are refused.
func TestPipesInPlaceOfSessionFilesNeverHang(t *testing.T) {
	t.Parallel()
	s, id := anchoredSession(t, 2, 1)
	fifo := func(path string) {
		t.Helper()
		os.Remove(path)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
	}
	fifo(s.headPath(id))
	if _, err := s.Get(id); err != nil {
		t.Errorf("Get with a pipe for a note: %v", err)
	}
	if err := s.Append(id, Event{Event: "Stop"}); err != nil {
		t.Errorf("Append with a pipe for a note: %v", err)
	}
	if st, err := os.Lstat(s.headPath(id)); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the note is still not a file: %v %v", st, err)
	}
	fifo(filepath.Join(s.Dir(), CurrentLink))
	if _, err := s.CurrentID(); !errors.Is(err, atomicfile.ErrNotRegular) {
		t.Errorf("CurrentID with a pipe for the link: %v", err)
	}
	fifo(s.Path(id))
	if _, err := s.Get(id); !errors.Is(err, atomicfile.ErrNotRegular) {
		t.Errorf("Get with a pipe for the record: %v", err)
	}
	fifo(s.EventsPath(id))
	if err := s.Append(id, Event{Event: "Stop"}); !errors.Is(err, atomicfile.ErrNotRegular) {
		t.Errorf("Append with a pipe for the trail: %v", err)
	}
	if _, err := s.OpenTrail(id); !errors.Is(err, atomicfile.ErrNotRegular) {
		t.Errorf("OpenTrail with a pipe for the trail: %v", err)
	}
}
