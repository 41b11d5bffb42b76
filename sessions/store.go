package sessions

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// ErrNotFound is returned (wrapped) for a session that has no record.
var ErrNotFound = errors.New("session not found")

// ErrNoCurrent is returned when there is no current session.
var ErrNoCurrent = errors.New("no current session")

// CurrentLink is the name of the link to the current session's record.
const CurrentLink = "current"

const lockName = ".lock"

// staleTempAge is how old a temporary file must be for session start to remove it as one of a
// writer that died before its rename. A live write takes moments; an hour spares any writer
// still running, whichever lock it holds (records and per-session state have different ones).
const staleTempAge = time.Hour

// Store is the sessions folder, <AUTOAGENT_HOME>/sessions.
type Store struct {
	dir  string
	now  func() time.Time
	rand io.Reader
	warn func(error)

	recorded recordedHead // the head of the record last read by recordHead
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock used for ids and timestamps (default time.Now).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithRand sets the source of the random part of new ids (default crypto/rand).
func WithRand(r io.Reader) Option { return func(s *Store) { s.rand = r } }

// WithWarnings sets where the store reports what it repaired on the way (default: nowhere), such
// as a `current` that was not a link.
func WithWarnings(warn func(error)) Option { return func(s *Store) { s.warn = warn } }

// New returns the store kept in dir; dir is created on the first write.
func New(dir string, opts ...Option) *Store {
	s := &Store{dir: dir, now: time.Now, rand: rand.Reader, warn: func(error) {}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Dir is the sessions folder.
func (s *Store) Dir() string { return s.dir }

// Path is the record file of session id.
func (s *Store) Path(id string) string { return filepath.Join(s.dir, id+".json") }

// EventsPath is the audit trail of session id.
func (s *Store) EventsPath(id string) string { return filepath.Join(s.dir, id+".events.jsonl") }

// Params describes a session to create.
type Params struct {
	// ID is the id to use; empty generates session-<unixms>-<6 random [a-z0-9]>.
	ID string
	// Name is the session's human name ("" for none; else see ValidName).
	Name      string
	Workspace string
	Command   string
	Args      []string
	Provider  string
	GitBranch string
	GitCommit string
	// Agent and AgentSessionID record the coding agent and its own session id (see OpenAgent).
	Agent          string
	AgentSessionID string
}

// Create writes a new active session record and makes it the current session.
func (s *Store) Create(p Params) (*Session, error) {
	if p.ID != "" && !ValidID(p.ID) {
		return nil, fmt.Errorf("create session: invalid id %q (want session-<unixms>-<[a-z0-9]>)", p.ID)
	}
	if p.Name != "" && !ValidName(p.Name) {
		return nil, fmt.Errorf("create session: invalid name %q (want 1 to 64 letters, digits, _ and -)", p.Name)
	}
	var sess *Session
	err := s.locked(func() error {
		var err error
		sess, err = s.create(p)
		return err
	})
	return sess, err
}

// OpenActive returns the active session of workspace: the current one if it is active and of
// that workspace, else the newest such session (found through the workspace's pointer, else among
// the scan newest records), else a new one made from params() (and made current). It holds the
// lock throughout, so that agent-hooks processes starting together in one workspace agree on one
// session. created reports a new one.
func (s *Store) OpenActive(workspace string, scan int, params func() Params) (sess *Session, created bool, err error) {
	err = s.locked(func() error {
		found, scanned, err := s.active(workspace, scan)
		if err != nil {
			return err
		}
		if found != nil {
			if scanned { // the pointer was missing or stale: the next run needs no scan
				s.setPointer(s.activeLink(workspace), found.ID)
			}
			sess = found
			return nil
		}
		p := params()
		p.ID, p.Workspace = "", workspace
		sess, err = s.create(p)
		created = err == nil
		return err
	})
	return sess, created, err
}

// Active returns the active session of workspace: the current one if it is active and of that
// workspace, else the newest such session (found through the workspace's pointer, else among the
// scan newest records), else nil.
func (s *Store) Active(workspace string, scan int) (*Session, error) {
	sess, _, err := s.active(workspace, scan)
	return sess, err
}

// active is Active; scanned reports a session found by looking through the records.
func (s *Store) active(workspace string, scan int) (sess *Session, scanned bool, err error) {
	if id, err := s.CurrentID(); err == nil {
		if cur, err := s.read(id); err == nil && cur.Active() && SameWorkspace(cur.Workspace, workspace) {
			return cur, false, nil
		}
	}
	if sess := s.pointedActive(workspace); sess != nil {
		return sess, false, nil
	}
	found, _, err := s.FindActive(workspace, scan)
	return found, found != nil, err
}

// create writes a new record under the lock and makes it current. It first removes the stale
// temporary files of writers killed before their rename, which nothing else would remove.
func (s *Store) create(p Params) (*Session, error) {
	now := s.now()
	if _, err := atomicfile.RemoveStaleTemps(s.dir, now.Add(-staleTempAge)); err != nil {
		s.warn(err) // litter, not a reason to refuse a session
	}
	id := p.ID
	for tries := 0; ; tries++ {
		if id == "" {
			var err error
			if id, err = s.newID(now); err != nil {
				return nil, err
			}
		}
		if _, err := os.Lstat(s.Path(id)); errors.Is(err, fs.ErrNotExist) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("create session: %w", err)
		}
		if p.ID != "" {
			return nil, fmt.Errorf("create session %s: %w", id, fs.ErrExist)
		}
		if tries > 100 {
			return nil, fmt.Errorf("create session: no free id after %d tries", tries)
		}
		id = ""
	}
	sess := &Session{
		ID:              id,
		Name:            p.Name,
		StartTime:       now.UTC().Truncate(time.Millisecond),
		Workspace:       p.Workspace,
		Command:         p.Command,
		Args:            append([]string{}, p.Args...),
		IssuesPlanned:   []int{},
		IssuesCompleted: []int{},
		IssuesFailed:    []int{},
		Status:          StatusActive,
		Provider:        p.Provider,
		Metadata:        Metadata{GitBranch: p.GitBranch, GitCommit: p.GitCommit},
		Agent:           p.Agent,
		AgentSessionID:  p.AgentSessionID,
	}
	if err := s.write(sess); err != nil {
		return nil, err
	}
	if err := s.setCurrent(id); err != nil {
		return nil, err
	}
	return sess, nil
}

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

func (s *Store) newID(now time.Time) (string, error) {
	var b [6]byte
	// 252 is the largest multiple of 36 below 256: rejecting the rest keeps every character
	// equally likely.
	for i := 0; i < len(b); {
		var one [1]byte
		if _, err := io.ReadFull(s.rand, one[:]); err != nil {
			return "", fmt.Errorf("create session id: %w", err)
		}
		if one[0] < 252 {
			b[i] = idAlphabet[int(one[0])%len(idAlphabet)]
			i++
		}
	}
	return fmt.Sprintf("session-%d-%s", now.UnixMilli(), b[:]), nil
}

// Get reads the record of session id, with the head of its audit trail as the last append noted
// it when that is newer than the record's (newerHead).
func (s *Store) Get(id string) (*Session, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("read session: invalid id %q (want session-<unixms>-<[a-z0-9]>)", id)
	}
	return s.readNoted(id)
}

// readNoted is read with the head of the trail as last noted, when that is newer than the
// record's (newerHead).
func (s *Store) readNoted(id string) (*Session, error) {
	sess, err := s.read(id)
	if err != nil {
		return nil, err
	}
	sess.AuditHead = newerHead(sess.AuditHead, s.notedHead(id))
	return sess, nil
}

// Update applies fn to the record of session id and writes it back atomically, holding the
// folder's lock so that no concurrent update is lost. If fn returns an error nothing is written.
func (s *Store) Update(id string, fn func(*Session) error) (*Session, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("update session: invalid id %q (want session-<unixms>-<[a-z0-9]>)", id)
	}
	var sess *Session
	err := s.locked(func() error {
		var err error
		if sess, err = s.read(id); err != nil {
			return err
		}
		if err := fn(sess); err != nil {
			return err
		}
		sess.ID = id
		return s.write(sess)
	})
	if err != nil {
		return nil, err
	}
	return sess, nil
}

// Current returns the session the `current` link points at, with its trail's head as Get reads
// it.
func (s *Store) Current() (*Session, error) {
	id, err := s.CurrentID()
	if err != nil {
		return nil, err
	}
	return s.readNoted(id)
}

// CurrentID returns the id of the session the `current` link points at, without reading it.
func (s *Store) CurrentID() (string, error) {
	id, err := readLinkID(filepath.Join(s.dir, CurrentLink))
	if err == nil && id == "" {
		return "", ErrNoCurrent
	}
	return id, err
}

// SetCurrent points the `current` link at session id, which must exist.
func (s *Store) SetCurrent(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("set current session: invalid id %q", id)
	}
	return s.locked(func() error {
		if _, err := os.Stat(s.Path(id)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("set current session: %s: %w", id, ErrNotFound)
			}
			return fmt.Errorf("set current session: %w", err)
		}
		return s.setCurrent(id)
	})
}

// setCurrent replaces the link atomically (replaceLink). A directory in the link's place cannot
// be renamed over; it is moved aside first (keeping what is in it, under a name `session list`
// reports), with a warning, so that it does not refuse every session start from then on.
func (s *Store) setCurrent(id string) error {
	link := filepath.Join(s.dir, CurrentLink)
	if st, err := os.Lstat(link); err == nil && st.IsDir() {
		aside := fmt.Sprintf("%s.%d.moved", link, s.now().UnixMilli())
		if err := os.Rename(link, aside); err != nil {
			return fmt.Errorf("set current session: %s is a directory, not a link, and moving it aside failed: %w", link, err)
		}
		s.warn(fmt.Errorf("%s is a directory, not a link to a session record: moved it to %s", link, aside))
	}
	if err := replaceLink(link, id+".json"); err != nil {
		return fmt.Errorf("set current session: %w", err)
	}
	return nil
}

// read parses the record of id; the caller has checked the id.
func (s *Store) read(id string) (*Session, error) {
	path := s.Path(id)
	b, err := atomicfile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	return parseRecord(path, id, b)
}

// CorruptError describes a session record that cannot be used.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s: corrupt session record: %v", e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// ParseRecord reads a session record (as pushed to a remote, say) of session id; name names it
// in errors (*CorruptError).
func ParseRecord(name, id string, b []byte) (*Session, error) { return parseRecord(name, id, b) }

func parseRecord(path, id string, b []byte) (*Session, error) {
	var sess Session
	doc, err := jsonpos.Parse(b)
	if err == nil {
		err = decodeSession(doc, doc.Root, &sess)
	}
	if err != nil {
		return nil, &CorruptError{Path: path, Err: err}
	}
	if sess.ID != id {
		return nil, &CorruptError{Path: path, Err: fmt.Errorf("its id is %q", sess.ID)}
	}
	return &sess, nil
}

// write replaces the record atomically: temp file, fsync, rename, fsync of the folder; then the
// pointer of its workspace follows (notePointer). The caller holds the lock. The record takes the
// audit trail's head as the last append noted it, when that is past its own (newerHead): never
// the trail's last line as it is, which anyone may have cut or extended since, and never a head
// behind the one it keeps.
func (s *Store) write(sess *Session) error {
	sess.AuditHead = newerHead(sess.AuditHead, s.notedHead(sess.ID))
	b, err := json.MarshalIndent(sess, "", "  ")
	if err != nil {
		return fmt.Errorf("encode session %s: %w", sess.ID, err)
	}
	b = append(b, '\n')
	if err := atomicfile.WriteFile(s.Path(sess.ID), b, 0o600); err != nil {
		return fmt.Errorf("write session %s: %w", sess.ID, err)
	}
	s.notePointer(sess)
	return nil
}

// locked runs fn holding the folder's exclusive lock, creating the folder if needed.
func (s *Store) locked(fn func() error) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create sessions folder: %w", err)
	}
	return atomicfile.WithLock(filepath.Join(s.dir, lockName), fn)
}

// TrailFile opens the audit trail of session id for reading at any offset (nil, nil when it has
// none).
func (s *Store) TrailFile(id string) (*os.File, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("read audit trail: invalid session id %q", id)
	}
	f, err := atomicfile.OpenFile(s.EventsPath(id), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read audit trail: %w", err)
	}
	return f, nil
}

// Import writes a session taken from elsewhere (pulled from a remote) into the folder: the record
// as it is (its head included: the trail is not re-read for it, so that verify holds the trail
// against the head it was pushed with) and the trail. A session already here is replaced only
// with replace.
func (s *Store) Import(id string, record []byte, trail io.Reader, replace bool) error {
	if _, err := parseRecord("pulled record", id, record); err != nil {
		return fmt.Errorf("import session %s: %w", id, err)
	}
	return s.locked(func() error {
		if _, err := os.Lstat(s.Path(id)); err == nil && !replace {
			return fmt.Errorf("import session %s: %w (replace it with --force)", id, fs.ErrExist)
		}
		// A head noted for a trail here before would be held against the pulled one.
		if err := os.Remove(s.headPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("import session %s: %w", id, err)
		}
		tmp, err := os.CreateTemp(s.dir, "."+id+".events.*.tmp")
		if err != nil {
			return fmt.Errorf("import session %s: %w", id, err)
		}
		defer os.Remove(tmp.Name())
		_, err = io.Copy(tmp, trail)
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = atomicfile.Rename(tmp.Name(), s.EventsPath(id))
		}
		if err == nil {
			err = atomicfile.WriteFile(s.Path(id), record, 0o600)
		}
		if err != nil {
			return fmt.Errorf("import session %s: %w", id, err)
		}
		return nil
	})
}

// NewestFirst sorts session ids by the time in them, newest first (as List orders records).
func NewestFirst(ids []string) {
	slices.SortFunc(ids, func(a, b string) int {
		ta, _ := idTime(a)
		tb, _ := idTime(b)
		if ta != tb {
			if ta > tb {
				return -1
			}
			return 1
		}
		return strings.Compare(b, a)
	})
}
