package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Pruned is a session Prune removed (or, dry, would remove).
type Pruned struct {
	ID     string    `json:"id"`
	Status Status    `json:"status"`
	Ended  time.Time `json:"ended"`
	// Files are the files removed, relative to the sessions folder.
	Files []string `json:"files"`
}

// PruneKept is a session old enough to prune that Prune kept, and why.
type PruneKept struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// PruneOptions say what Prune removes.
type PruneOptions struct {
	// OlderThan: sessions that ended longer ago than this are removed.
	OlderThan time.Duration
	// Dry removes nothing, and reports what would be removed.
	Dry bool
	// IdleLimit, when set, is the idle limit of an active session (see EndIdle): an active
	// session idle for longer is ended first (with Dry, counted as ended at its last activity).
	// An error leaves the session as it is, reported as a problem.
	IdleLimit func(*Session) (time.Duration, error)
}

// PruneResult is what Prune did (or, dry, would do).
type PruneResult struct {
	Removed []Pruned
	Kept    []PruneKept
	// EndedIdle are the sessions ended as idle on the way (EndIdle).
	EndedIdle []string
	// Problems are what left a session as it was without a decision: a record that could not
	// be read, an idle limit that could not be.
	Problems []error
	// Failed are the removals that failed part way (the record, removed last, is left, so that
	// the next prune finds the session again).
	Failed []error
}

// Prune removes the sessions that ended more than o.OlderThan ago: their record, audit trail,
// noted head, per-session state and the index entry of their agent's session. It never removes
// an active session, the current one (the `current` link names it), one a process holds (Hold),
// or one still marked to push to a remote (MarkPushPending). The end of a session is its end
// time, else (a record that has none) its last activity.
//
// The folder is read without the lock; each session found old enough is then decided again and
// removed under the folder's lock, one at a time, from its record read afresh: a session
// resumed, held or made current meanwhile is kept, and runs are never kept waiting for more than
// one session's removal.
func (s *Store) Prune(o PruneOptions) (*PruneResult, error) {
	res := &PruneResult{}
	var candidates []string
	problems, err := s.Walk(func(sess *Session) bool {
		if sess.Active() && o.IdleLimit == nil {
			return true
		}
		candidates = append(candidates, sess.ID)
		return true
	})
	res.Problems = append(res.Problems, problems...)
	if err != nil {
		return res, fmt.Errorf("prune sessions: %w", err)
	}
	if len(candidates) == 0 {
		return res, nil
	}
	files, err := s.sessionFiles(candidates)
	if err != nil {
		return res, fmt.Errorf("prune sessions: %w", err)
	}
	cutoff := s.now().Add(-o.OlderThan)
	for _, id := range candidates {
		err := s.locked(func() error { return s.pruneOne(id, o, cutoff, files[id], res) })
		if err != nil {
			res.Problems = append(res.Problems, fmt.Errorf("prune session %s: %w", id, err))
		}
	}
	return res, nil
}

// pruneOne decides and removes session id under the folder's lock, which the caller holds.
func (s *Store) pruneOne(id string, o PruneOptions, cutoff time.Time, files []string, res *PruneResult) error {
	sess, err := s.read(id)
	if errors.Is(err, ErrNotFound) {
		return nil // removed since the folder was read
	}
	if err != nil {
		return err
	}
	if sess.Active() {
		if o.IdleLimit == nil {
			return nil
		}
		limit, err := o.IdleLimit(sess)
		if err != nil {
			return fmt.Errorf("left active: %w", err)
		}
		ended, err := s.endIdleLocked(sess, limit, o.Dry)
		if err != nil || !ended {
			return err
		}
		res.EndedIdle = append(res.EndedIdle, sess.ID)
	}
	end := sess.EndTime
	if end.IsZero() {
		if end, err = s.LastActivity(sess); err != nil {
			return err
		}
	}
	if !end.Before(cutoff) {
		return nil
	}
	if current, _ := s.CurrentID(); current == sess.ID {
		res.Kept = append(res.Kept, PruneKept{sess.ID, "it is the current session"})
		return nil
	}
	switch pending, err := s.PushPending(sess.ID); {
	case err != nil:
		// A mark that cannot be read may still be one: the session may exist nowhere else.
		res.Kept = append(res.Kept, PruneKept{sess.ID, fmt.Sprintf("its push mark cannot be read (%v)", err)})
		return nil
	case pending != nil:
		res.Kept = append(res.Kept, PruneKept{sess.ID, "it is still to push to a remote (agent-hooks session push --pending)"})
		return nil
	}
	free, release, err := s.unheld(sess.ID)
	if err != nil {
		return err
	}
	if !free {
		res.Kept = append(res.Kept, PruneKept{sess.ID, "a process is firing an event in it"})
		return nil
	}
	defer release()
	p := Pruned{ID: sess.ID, Status: sess.Status, Ended: end, Files: slices.Clone(files)}
	if sess.Agent != "" {
		if index, err := s.agentIndexPath(sess.Agent, sess.AgentSessionID); err == nil {
			if b, err := os.ReadFile(index); err == nil && string(bytes.TrimSpace(b)) == sess.ID {
				rel, _ := filepath.Rel(s.dir, index)
				p.Files = append(p.Files, filepath.ToSlash(rel))
			}
		}
	}
	if !o.Dry {
		if err := s.removeSession(sess, p.Files); err != nil {
			res.Failed = append(res.Failed, fmt.Errorf("prune session %s: %w", sess.ID, err))
			return nil
		}
		// The hold's file goes once nothing of the session is left to hold; a process that
		// opened it meanwhile waits for the release and then holds a removed session.
		if err := os.Remove(s.livePath(sess.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			res.Failed = append(res.Failed, fmt.Errorf("prune session %s: %w", sess.ID, err))
			return nil
		}
	}
	res.Removed = append(res.Removed, p)
	return nil
}

// sessionFiles lists the files of each session in the folder, by one read of it: every name that
// is the session's id followed by a dot (record, trail, head, state).
func (s *Store) sessionFiles(ids []string) (map[string][]string, error) {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	files := map[string][]string{}
	err := readNames(s.dir, func(name []byte) {
		id, _, ok := bytes.Cut(name, []byte("."))
		if ok && want[string(id)] {
			files[string(id)] = append(files[string(id)], string(name))
		}
	})
	if err != nil {
		return nil, err
	}
	for _, names := range files {
		slices.Sort(names)
	}
	return files, nil
}

// removeSession removes the files of sess (relative to the folder), its record last, so that a
// removal cut short leaves a record, which the next prune finds again. The pointer of its
// workspace's active session goes too when it names sess.
func (s *Store) removeSession(sess *Session, files []string) error {
	record := sess.ID + ".json"
	for _, last := range []bool{false, true} {
		for _, f := range files {
			if (f == record) != last {
				continue
			}
			if err := os.Remove(filepath.Join(s.dir, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	s.notePointer(sess) // not active: a pointer naming it is removed
	return nil
}
