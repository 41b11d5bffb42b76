package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ForeignError describes a file in the sessions folder that is not agent-hooks'.
type ForeignError struct{ Path string }

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s: not a session record (want session-<unixms>-<id>.json)", e.Path)
}

// Walk calls fn with the session records newest first (by the time in their names, so only the
// records fn is called with are read) until fn returns false. A record that cannot be read and a
// file that is not agent-hooks' are skipped and returned as problems (*CorruptError,
// *ForeignError, or a read error); the returned error is a failure to read the folder itself. A
// folder that does not exist holds no sessions.
func (s *Store) Walk(fn func(*Session) bool) (problems []error, err error) {
	ids, problems, err := s.ids()
	if err != nil {
		return problems, err
	}
	for _, id := range ids {
		sess, err := s.read(id)
		if errors.Is(err, ErrNotFound) {
			continue // removed since the folder was read
		}
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if !fn(sess) {
			break
		}
	}
	return problems, nil
}

// List returns up to limit sessions, newest first (limit <= 0: all of them), reading only the
// records it returns (and any corrupt ones it skips on the way).
func (s *Store) List(limit int) (list []*Session, problems []error, err error) {
	problems, err = s.Walk(func(sess *Session) bool {
		list = append(list, sess)
		return limit <= 0 || len(list) < limit
	})
	return list, problems, err
}

// FindActive returns the newest active session of workspace among the scan newest records, or
// nil. It is how a `run` without a session id finds the session an agent in that workspace is in
// when the current link points at another workspace's session.
func (s *Store) FindActive(workspace string, scan int) (*Session, []error, error) {
	var found *Session
	n := 0
	problems, err := s.Walk(func(sess *Session) bool {
		n++
		if sess.Active() && SameWorkspace(sess.Workspace, workspace) {
			found = sess
			return false
		}
		return n < scan
	})
	return found, problems, err
}

// SameWorkspace reports whether two workspace paths name the same folder, also when one of them
// goes through a symbolic link.
func SameWorkspace(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}

// ids lists the session ids in the folder, newest first.
func (s *Store) ids() ([]string, []error, error) {
	d, err := os.Open(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list sessions: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("list sessions in %s: %w", s.dir, err)
	}
	type entry struct {
		id string
		ms int64
	}
	entries := make([]entry, 0, len(names)/2+1)
	var foreign []string
	for _, name := range names {
		if name == CurrentLink || strings.HasPrefix(name, ".") {
			continue // the link, the lock, temporary files
		}
		if id, ok := strings.CutSuffix(name, ".json"); ok && ValidID(id) {
			ms, _ := idTime(id)
			entries = append(entries, entry{id, ms})
			continue
		}
		if base, _, ok := strings.Cut(name, "."); ok && ValidID(base) {
			continue // the audit trail and other per-session state
		}
		foreign = append(foreign, name)
	}
	slices.Sort(foreign)
	var problems []error
	for _, name := range foreign {
		problems = append(problems, &ForeignError{Path: filepath.Join(s.dir, name)})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if a.ms != b.ms {
			if a.ms > b.ms {
				return -1
			}
			return 1
		}
		return strings.Compare(b.id, a.id)
	})
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.id
	}
	return ids, problems, nil
}
