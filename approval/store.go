package approval

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// The states of a local approval request.
const (
	StatePending   = "pending"
	StateApproved  = "approved"
	StateRejected  = "rejected"
	StateExpired   = "expired"   // nobody decided before the timeout; timeoutAction applied
	StateCancelled = "cancelled" // the waiting run was interrupted
)

// Request is a local approval request, one JSON file $AUTOAGENT_HOME/approvals/<id>.json. The run
// that waits for it creates it; `agent-hooks approvals approve|reject` decides it from another
// process; the waiting run records the timeout or an interruption.
type Request struct {
	ID            string    `json:"id"`
	State         string    `json:"state"`
	SessionID     string    `json:"sessionId"`
	Event         string    `json:"event"`
	Hook          string    `json:"hook"`
	Message       string    `json:"message"`
	Workspace     string    `json:"workspace,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	ExpiresAt     time.Time `json:"expiresAt,omitzero"` // none for a request that stays open (AsksAgain)
	TimeoutAction string    `json:"timeoutAction"`
	PID           int       `json:"pid,omitempty"`      // the waiting process
	Terminal      bool      `json:"terminal,omitempty"` // also asked on its terminal
	// Key is what the request asks (RequestID of its message and payload), set when the caller
	// asks again: its next identical call finds the request by it (Find).
	Key string `json:"key,omitempty"`
	// AsksAgain marks a request of a caller that asks again (an agent's tool call): it stays
	// pending past the wait of the call that made it, until someone decides it.
	AsksAgain bool      `json:"asksAgain,omitempty"`
	Decision  *Decision `json:"decision,omitempty"`
}

// Decision records how a request was decided.
type Decision struct {
	By     string    `json:"by,omitempty"`
	Via    string    `json:"via"` // cli, terminal, timeout, interrupt
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// StateAt is the request's state as of now: a pending request past its expiry whose waiting run
// never recorded the outcome (it was killed) shows as expired.
func (r *Request) StateAt(now time.Time) string {
	if r.State == StatePending && !r.AsksAgain && !r.ExpiresAt.IsZero() && now.After(r.ExpiresAt.Add(5*time.Second)) {
		return StateExpired
	}
	return r.State
}

// Answer is the decision as an Answer (for a decided request).
func (r *Request) Answer() Answer {
	a := Answer{Approved: r.State == StateApproved}
	if r.Decision != nil {
		a.By, a.Via, a.Reason = r.Decision.By, r.Decision.Via, r.Decision.Reason
	}
	if r.State == StateExpired {
		a.Approved = r.TimeoutAction == "approve"
	}
	return a
}

// ErrNotFound is returned for an id that names no request.
var ErrNotFound = errors.New("no such approval request")

// DecidedError is returned when deciding a request that is no longer pending.
type DecidedError struct{ Request *Request }

func (e *DecidedError) Error() string {
	msg := fmt.Sprintf("approval %s is already %s", e.Request.ID, e.Request.State)
	if d := e.Request.Decision; d != nil && d.By != "" {
		msg += " by " + d.By
	}
	return msg
}

// Store is the directory of local approval requests. Every change is made under a lock and
// written atomically, so a decision from another process and the waiting run's own timeout
// cannot both win.
type Store struct {
	Dir string
	Now func() time.Time // nil: time.Now
}

// NewStore returns the store in dir ($AUTOAGENT_HOME/approvals).
func NewStore(dir string) *Store { return &Store{Dir: dir} }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^apr-[a-z0-9]{8}$`) })

func (s *Store) path(id string) string { return filepath.Join(s.Dir, id+".json") }

func (s *Store) locked(fn func() error) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", s.Dir, err)
	}
	return atomicfile.WithLock(filepath.Join(s.Dir, ".lock"), fn)
}

func (s *Store) write(r *Request) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode approval %s: %w", r.ID, err)
	}
	return atomicfile.WriteFile(s.path(r.ID), append(data, '\n'), 0o600)
}

func newID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "apr-" + string(b)
}

// KeepDecided is how long decided, expired and cancelled requests are kept; Create removes older
// ones, so that the directory does not grow without bound.
const KeepDecided = 30 * 24 * time.Hour

// Create records a new pending request and sets its ID, State and CreatedAt.
func (s *Store) Create(r *Request) error {
	return s.locked(func() error {
		s.prune(s.now().Add(-KeepDecided))
		for {
			r.ID = newID()
			if _, err := os.Stat(s.path(r.ID)); errors.Is(err, fs.ErrNotExist) {
				break
			}
		}
		r.State = StatePending
		r.CreatedAt = s.now().UTC()
		return s.write(r)
	})
}

// Get reads one request.
func (s *Store) Get(id string) (*Request, error) {
	if !idPattern().MatchString(id) {
		return nil, fmt.Errorf("approval %q: %w", id, ErrNotFound)
	}
	data, err := os.ReadFile(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("approval %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read approval %s: %w", id, err)
	}
	var r Request
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read %s: %w", s.path(id), err)
	}
	if r.ID != id {
		// Every write goes to path(r.ID): a file naming another id must not send it elsewhere.
		return nil, fmt.Errorf("read %s: not a request: its id is %q", s.path(id), r.ID)
	}
	return &r, nil
}

// Resolve turns an id or a unique prefix of one ("apr-k3", "k3x") into the id.
func (s *Store) Resolve(prefix string) (string, error) {
	if idPattern().MatchString(prefix) {
		if _, err := os.Stat(s.path(prefix)); err != nil {
			return "", fmt.Errorf("approval %s: %w", prefix, ErrNotFound)
		}
		return prefix, nil
	}
	if prefix == "" {
		return "", errors.New("empty approval id")
	}
	want := prefix
	if !strings.HasPrefix(want, "apr-") {
		want = "apr-" + want
	}
	names, err := s.ids()
	if err != nil {
		return "", err
	}
	var found []string
	for _, id := range names {
		if strings.HasPrefix(id, want) {
			found = append(found, id)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("approval %q: %w", prefix, ErrNotFound)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("approval %q is ambiguous: %s", prefix, strings.Join(found, ", "))
}

func (s *Store) ids() ([]string, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list approvals: %w", err)
	}
	var ids []string
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && idPattern().MatchString(id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// List reads every request, oldest first. Unreadable files are returned as problems.
func (s *Store) List() (list []*Request, problems []error, err error) {
	ids, err := s.ids()
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		r, err := s.Get(id)
		if err != nil {
			if !errors.Is(err, ErrNotFound) { // decided and removed meanwhile
				problems = append(problems, err)
			}
			continue
		}
		list = append(list, r)
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].CreatedAt.Before(list[j].CreatedAt) })
	return list, problems, nil
}

// Find returns the latest request of session and hook that asks key (Request.Key), pending or
// decided (approved or rejected), or nil: a request that expired or was cancelled is asked anew.
// Unreadable files are skipped, as List reports them.
func (s *Store) Find(session, hook, key string) (*Request, error) {
	list, _, err := s.List()
	if err != nil {
		return nil, err
	}
	for i := len(list) - 1; i >= 0; i-- {
		r := list[i]
		if r.SessionID != session || r.Hook != hook || r.Key != key || key == "" {
			continue
		}
		switch r.StateAt(s.now()) {
		case StatePending, StateApproved, StateRejected:
			return r, nil
		}
	}
	return nil, nil
}

// Decide moves a pending request to state (approved, rejected, expired or cancelled). A request
// that is no longer pending is left alone and returned with a *DecidedError.
func (s *Store) Decide(id, state string, d Decision) (*Request, error) {
	var out *Request
	err := s.locked(func() error {
		r, err := s.Get(id)
		if err != nil {
			return err
		}
		out = r
		if r.State != StatePending {
			return &DecidedError{Request: r}
		}
		if d.At.IsZero() {
			d.At = s.now().UTC()
		}
		r.State, r.Decision = state, &d
		return s.write(r)
	})
	return out, err
}

// prune removes requests decided before cutoff (and pending ones that expired before it: nothing
// waits for them). Failures are ignored: pruning is housekeeping.
func (s *Store) prune(cutoff time.Time) {
	ids, _ := s.ids()
	for _, id := range ids {
		r, err := s.Get(id)
		if err != nil {
			continue
		}
		decided := r.Decision != nil && r.Decision.At.Before(cutoff)
		abandoned := r.State == StatePending && (r.AsksAgain && r.CreatedAt.Before(cutoff) ||
			!r.AsksAgain && !r.ExpiresAt.IsZero() && r.ExpiresAt.Before(cutoff))
		if decided || abandoned {
			_ = os.Remove(s.path(id))
		}
	}
}
