package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// ActiveDir is the folder, inside the sessions folder, of the per-workspace pointers: a link for
// each workspace (named by a hash of its path) to the record of its newest active session. They
// let a run find its workspace's session in a few system calls when `current` points at another
// workspace's, however many sessions the folder holds. A pointer is only ever a hint: what it
// points at is read and checked (active, of that workspace) before it is used, and a missing or
// stale one falls back to looking through the newest records.
const ActiveDir = ".active"

// activeLink is the pointer of workspace.
func (s *Store) activeLink(workspace string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	return filepath.Join(s.dir, ActiveDir, hex.EncodeToString(sum[:16]))
}

// pointedActive returns the session the pointer of workspace points at when it is an active
// session of that workspace, else nil.
func (s *Store) pointedActive(workspace string) *Session {
	id, err := readLinkID(s.activeLink(workspace))
	if err != nil || id == "" {
		return nil
	}
	sess, err := s.read(id)
	if err != nil || !sess.Active() || !SameWorkspace(sess.Workspace, workspace) {
		return nil
	}
	return sess
}

// notePointer keeps the pointer of sess's workspace at its newest active session once sess was
// written: it points at sess when sess is active and the pointer does not already name a newer
// active session of the workspace, and it is removed when it names sess and sess is no longer
// active. The caller holds the lock. A pointer that cannot be written is reported, not an error:
// runs then look through the records instead.
func (s *Store) notePointer(sess *Session) {
	if sess.Workspace == "" {
		return
	}
	link := s.activeLink(sess.Workspace)
	id, _ := readLinkID(link)
	if !sess.Active() {
		if id == sess.ID {
			if err := os.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
				s.warn(fmt.Errorf("active session pointer: %w", err))
			}
		}
		return
	}
	if id == sess.ID {
		return
	}
	if id != "" && newerID(id, sess.ID) {
		if other, err := s.read(id); err == nil && other.Active() && SameWorkspace(other.Workspace, sess.Workspace) {
			return
		}
	}
	s.setPointer(link, sess.ID)
}

// setPointer points the pointer link at session id (the caller holds the lock), reporting a
// failure.
func (s *Store) setPointer(link, id string) {
	err := replaceLink(link, "../"+id+".json")
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(link), 0o700); err == nil {
			err = replaceLink(link, "../"+id+".json")
		}
	}
	if err != nil {
		s.warn(fmt.Errorf("active session pointer: %w", err))
	}
}

// replaceLink atomically replaces the link at path with one to target: a new link under a
// temporary name renamed over it. Where symbolic links cannot be made (Windows without the
// privilege), the link is a file holding the target, made new (O_EXCL): whatever someone put
// under the temporary name since it was removed is never written through. The caller holds the
// lock, so the temporary name is no one else's.
func replaceLink(path, target string) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	_ = os.Remove(tmp) // left by a crash
	if err := os.Symlink(target, tmp); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := writeNew(tmp, []byte(target+"\n")); err != nil {
			return err
		}
	}
	if err := atomicfile.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// writeNew writes b to a new file at path, which must not exist (O_EXCL: not even as a link).
func writeNew(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// readLinkID reads the session id a link written by replaceLink names: "" and no error when there
// is no link. A file in its place is read as replaceLink writes one where links cannot be made;
// anything else (a pipe) is refused rather than waited on.
func readLinkID(path string) (string, error) {
	target, err := os.Readlink(path)
	if err != nil {
		b, rerr := atomicfile.ReadFile(path)
		if errors.Is(rerr, fs.ErrNotExist) {
			return "", nil
		}
		if rerr != nil {
			return "", fmt.Errorf("read %s: %w", path, rerr)
		}
		target = strings.TrimSpace(string(b))
	}
	id := strings.TrimSuffix(filepath.Base(target), ".json")
	if !ValidID(id) {
		return "", fmt.Errorf("read %s: it points at %q, which is not a session record", path, target)
	}
	return id, nil
}

// newerID reports whether session a sorts before b in the newest-first order of listings: a
// later time in its id, or the same time and a greater id.
func newerID(a, b string) bool {
	ma, _ := idTime(a)
	mb, _ := idTime(b)
	if ma != mb {
		return ma > mb
	}
	return a > b
}
