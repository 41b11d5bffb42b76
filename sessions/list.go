package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	order := &idOrder{dir: s.dir}
	for {
		id, ok, err := order.next()
		problems = append(problems, order.takeProblems()...)
		if err != nil {
			return problems, err
		}
		if !ok {
			return problems, nil
		}
		sess, err := s.read(id)
		if errors.Is(err, ErrNotFound) {
			continue // removed since the folder was read
		}
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if !fn(sess) {
			return problems, nil
		}
	}
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

// idOrder hands out the session ids of a folder newest first (by the time in the id, then the
// id). Listing the newest few of 100,000 sessions must not cost a string, let alone a sort, for
// each of them: the folder is read in passes, each keeping only the newest ids older than those
// handed out so far, in a bounded heap, and each keeping twice as many as the one before. A
// listing of the first ten is one pass over the names that keeps a few dozen; a listing of all
// of them takes a number of passes logarithmic in their number. While the folder is unchanged,
// the newest index (newest.go) stands for the first pass, and the folder is not read at all.
type idOrder struct {
	dir      string
	batch    []idEntry // the ids of the last pass, newest first
	taken    int       // how many of batch were handed out
	keep     int       // how many ids the next pass keeps
	started  bool
	more     bool // the last pass left older ids behind
	problems []error
}

type idEntry struct {
	ms int64
	id string
}

// firstPass is how many ids the first pass over the folder keeps: a listing's default ten and
// the records it may skip as corrupt on the way, or an attach looking through the newest 50.
const firstPass = 64

// next returns the next id, newest first; ok is false when there are no more.
func (o *idOrder) next() (id string, ok bool, err error) {
	if o.taken == len(o.batch) {
		if o.started && !o.more {
			return "", false, nil
		}
		var cursor *idEntry
		if o.started {
			cursor = &o.batch[len(o.batch)-1]
			o.keep *= 2
		} else {
			o.keep = firstPass
		}
		if err := o.pass(cursor); err != nil {
			return "", false, err
		}
		o.started = true
		if len(o.batch) == 0 {
			return "", false, nil
		}
	}
	o.taken++
	return o.batch[o.taken-1].id, true, nil
}

// takeProblems returns the problems found since it was last called.
func (o *idOrder) takeProblems() []error {
	p := o.problems
	o.problems = nil
	return p
}

// pass reads the folder and keeps the o.keep newest ids older than cursor (all of them when
// cursor is nil). The first pass also reports the files that are not agent-hooks'.
func (o *idOrder) pass(cursor *idEntry) error {
	first := cursor == nil
	modTime, stamped := int64(0), false
	if first {
		// The newest index stands for the first pass while the folder is unchanged (newest.go).
		if modTime, stamped = folderTime(o.dir); stamped {
			if ix := loadNewest(o.dir, modTime, o.keep); ix != nil {
				o.fromIndex(ix)
				return nil
			}
		}
	}
	var kept idHeap
	kept.entries = make([]idEntry, 0, o.keep)
	candidates := 0
	var foreign []string
	err := readNames(o.dir, func(name []byte) {
		if string(name) == CurrentLink || len(name) > 0 && name[0] == '.' {
			return // the link, the lock, the pointers, temporary files
		}
		if base, ok := bytes.CutSuffix(name, []byte(".json")); ok {
			if ms, ok := idTime(base); ok {
				if cursor != nil && !olderThan(ms, base, cursor) {
					return
				}
				candidates++
				kept.offer(ms, base, o.keep)
				return
			}
		}
		if !first {
			return
		}
		if base, _, ok := bytes.Cut(name, []byte(".")); ok {
			if _, ok := idTime(base); ok {
				return // the audit trail and other per-session state
			}
		}
		foreign = append(foreign, string(name))
	})
	if errors.Is(err, fs.ErrNotExist) {
		o.batch, o.taken, o.more = nil, 0, false
		return nil
	}
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	slices.Sort(foreign)
	for _, name := range foreign {
		o.problems = append(o.problems, &ForeignError{Path: filepath.Join(o.dir, name)})
	}
	o.batch = kept.entries
	slices.SortFunc(o.batch, func(a, b idEntry) int {
		if a.newer(b.ms, b.id) {
			return -1
		}
		return 1 // ids are distinct: names in a folder are
	})
	o.taken = 0
	o.more = candidates > len(o.batch)
	if first && stamped {
		ix := &newestIndex{Version: newestIndexVersion, Dir: o.dir, ModTime: modTime, Candidates: candidates, Foreign: foreign}
		for _, e := range o.batch {
			ix.IDs = append(ix.IDs, e.id)
		}
		saveNewest(o.dir, ix)
	}
	return nil
}

// fromIndex is a first pass taken from the newest index: its o.keep newest ids and the files it
// found that are not agent-hooks'.
func (o *idOrder) fromIndex(ix *newestIndex) {
	n := min(o.keep, len(ix.IDs))
	o.batch = make([]idEntry, n)
	for i, id := range ix.IDs[:n] {
		ms, _ := idTime(id)
		o.batch[i] = idEntry{ms, id}
	}
	o.taken = 0
	o.more = ix.Candidates > n
	for _, name := range ix.Foreign {
		o.problems = append(o.problems, &ForeignError{Path: filepath.Join(o.dir, name)})
	}
}

// olderThan reports whether the id (ms, id) comes after e in the newest-first order.
func olderThan(ms int64, id []byte, e *idEntry) bool {
	if ms != e.ms {
		return ms < e.ms
	}
	return string(id) < e.id
}

// newer reports whether e comes before (ms, id) in the newest-first order.
func (e idEntry) newer(ms int64, id string) bool {
	if e.ms != ms {
		return e.ms > ms
	}
	return e.id > id
}

// idHeap keeps the newest ids offered to it, up to a bound: a heap whose root is the oldest kept.
type idHeap struct{ entries []idEntry }

// offer keeps (ms, id) if fewer than limit ids are kept or it is newer than the oldest kept. The
// id is copied only when kept.
func (h *idHeap) offer(ms int64, id []byte, limit int) {
	e := h.entries
	if len(e) < limit {
		h.entries = append(e, idEntry{ms, string(id)})
		h.up(len(h.entries) - 1)
		return
	}
	root := e[0]
	if ms < root.ms || ms == root.ms && string(id) <= root.id {
		return // no newer than the oldest kept
	}
	e[0] = idEntry{ms, string(id)}
	h.down(0)
}

// older orders the heap: the oldest kept at the root.
func (h *idHeap) older(i, j int) bool {
	a, b := h.entries[i], h.entries[j]
	return b.newer(a.ms, a.id)
}

func (h *idHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.older(i, parent) {
			return
		}
		h.entries[i], h.entries[parent] = h.entries[parent], h.entries[i]
		i = parent
	}
}

func (h *idHeap) down(i int) {
	n := len(h.entries)
	for {
		first := i
		if l := 2*i + 1; l < n && h.older(l, first) {
			first = l
		}
		if r := 2*i + 2; r < n && h.older(r, first) {
			first = r
		}
		if first == i {
			return
		}
		h.entries[i], h.entries[first] = h.entries[first], h.entries[i]
		i = first
	}
}
