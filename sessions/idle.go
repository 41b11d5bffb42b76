package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// EndReasonIdle is the EndReason of a session ended by EndIdle.
const EndReasonIdle = "idle"

// liveDir holds one file per session that a process is firing an event in, <dir>/.live/<id>, on
// which each such process holds a shared lock (Hold) until its event is done: EndIdle and Prune
// leave a session alone while anyone holds it, however long its hooks take (an approval waiting
// a day writes nothing meanwhile). The dot keeps it out of `session list`.
const liveDir = ".live"

func (s *Store) livePath(id string) string { return filepath.Join(s.dir, liveDir, id) }

// Hold marks session id as in use by this process until release is called: EndIdle does not end
// it and Prune does not remove it meanwhile. A process holds the session it fires an event in
// for as long as the event runs. The file is opened close-on-exec, so no hook process inherits
// the hold, and never through a link (atomicfile.OpenFile): a link planted in its place cannot
// make agent-hooks lock a file elsewhere.
func (s *Store) Hold(id string) (release func(), err error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("hold session: invalid id %q", id)
	}
	path := s.livePath(id)
	f, err := atomicfile.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
			f, err = atomicfile.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("hold session %s: %w", id, err)
	}
	if err := lockShared(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("hold session %s: %w", id, err)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// unheld takes the exclusive side of session id's hold when nobody holds it: free is false when
// a process holds it (it is firing an event in the session). The caller calls release when done
// (it removes nothing: a process may be opening the file to hold it).
func (s *Store) unheld(id string) (free bool, release func(), err error) {
	f, err := atomicfile.OpenFile(s.livePath(id), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return true, func() {}, nil // never held, or held only before it was removed
	}
	if err != nil {
		return false, nil, fmt.Errorf("check whether session %s is in use: %w", id, err)
	}
	free, err = tryLockExclusive(f)
	if err != nil || !free {
		f.Close()
		return false, nil, err
	}
	return true, func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// LastActivity is when session sess was last written to: the latest modification of its record,
// its audit trail and the head noted beside it (its start when none of them exists).
func (s *Store) LastActivity(sess *Session) (time.Time, error) {
	var last time.Time
	for _, path := range []string{s.Path(sess.ID), s.EventsPath(sess.ID), s.headPath(sess.ID)} {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return time.Time{}, fmt.Errorf("session %s: last activity: %w", sess.ID, err)
		}
		if st.ModTime().After(last) {
			last = st.ModTime()
		}
	}
	if last.IsZero() {
		last = sess.StartTime
	}
	return last, nil
}

// EndIdle ends session id when it has been idle for longer than limit: it is active, nothing was
// written in it for that long (LastActivity), and no process holds it (Hold). It ends as
// interrupted, which `session resume` and the agent's next event in it undo, with EndReason
// "idle" and its end time its last activity. It decides under the folder's lock, and checks the
// session's activity again once it holds the session, so that an event that begins meanwhile
// keeps it. A limit of 0 or less never ends a session. sess is the record as it is after (nil
// when the session is not ended because it was written to within the limit, or the limit is 0:
// then nothing is read); ended reports whether this call ended it.
func (s *Store) EndIdle(id string, limit time.Duration) (sess *Session, ended bool, err error) {
	if !ValidID(id) {
		return nil, false, fmt.Errorf("end idle session: invalid id %q", id)
	}
	if limit <= 0 {
		return nil, false, nil
	}
	// Without the lock first: a session in use (every run that finds its workspace's session asks)
	// costs three lstat calls, not the folder's lock and a read of its record.
	if last, err := s.LastActivity(&Session{ID: id}); err == nil && !last.IsZero() && s.now().Sub(last) <= limit {
		return nil, false, nil
	}
	err = s.locked(func() error {
		cur, err := s.read(id)
		if err != nil {
			return err
		}
		sess = cur
		ended, err = s.endIdleLocked(cur, limit, false)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("end idle session: %w", err)
	}
	if sess != nil {
		sess.AuditHead = newerHead(sess.AuditHead, s.notedHead(id))
	}
	return sess, ended, nil
}

// endIdleLocked is EndIdle of the record cur, read under the folder's lock, which the caller
// holds; cur is ended in place. With dry it is only told whether it would end, and ended in
// place but not written.
func (s *Store) endIdleLocked(cur *Session, limit time.Duration, dry bool) (ended bool, err error) {
	if limit <= 0 || !cur.Active() {
		return false, nil
	}
	if idle, err := s.idleSince(cur, limit); err != nil || idle.IsZero() {
		return false, err
	}
	free, release, err := s.unheld(cur.ID)
	if err != nil || !free {
		return false, err
	}
	defer release()
	last, err := s.idleSince(cur, limit)
	if err != nil || last.IsZero() {
		return false, err
	}
	cur.End(StatusInterrupted, last)
	cur.EndReason = EndReasonIdle
	if dry {
		return true, nil
	}
	if err := s.write(cur); err != nil {
		return false, fmt.Errorf("session %s: %w", cur.ID, err)
	}
	return true, nil
}

// idleSince is the last activity of sess when it is older than limit, else the zero time.
func (s *Store) idleSince(sess *Session, limit time.Duration) (time.Time, error) {
	last, err := s.LastActivity(sess)
	if err != nil || s.now().Sub(last) <= limit {
		return time.Time{}, err
	}
	return last, nil
}
