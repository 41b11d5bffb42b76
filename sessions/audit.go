package sessions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Event is one line of a session's audit trail: one hook execution (skipped ones included), or an
// event-level note such as a capped Stop.
type Event struct {
	Time       time.Time      `json:"time"` // when the line was written, as the hook finished
	Event      string         `json:"event"`
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Source     string         `json:"source"`           // scope: project, user, plugin, global
	Format     string         `json:"format,omitempty"` // autoagent, iteratr, …
	File       string         `json:"file,omitempty"`
	Status     string         `json:"status"` // ok, blocked, error, timeout, skipped, capped
	ExitCode   int            `json:"exitCode"`
	DurationMs int64          `json:"durationMs"`
	Decision   string         `json:"decision"`
	Reason     string         `json:"reason"`
	Details    map[string]any `json:"details,omitempty"`
}

// Append adds events to the audit trail of session id, one JSON line each, in one appending
// write so that lines of concurrent processes never interleave. An event
// without a time gets the store's clock.
func (s *Store) Append(id string, events ...Event) error {
	if !ValidID(id) {
		return fmt.Errorf("append to audit trail: invalid session id %q", id)
	}
	var buf bytes.Buffer
	for _, e := range events {
		if e.Time.IsZero() {
			e.Time = s.now()
		}
		e.Time = e.Time.UTC()
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode audit event %s/%s: %w", e.Event, e.Name, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if buf.Len() == 0 {
		return nil
	}
	// One write(2) on a file opened with O_APPEND: the kernel places each write at the end of the
	// file whole, so lines of concurrent writers never interleave, and no lock is needed (the
	// folder lock would also make every hook wait for other processes' record updates).
	path := s.EventsPath(id)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(s.dir, 0o700); err == nil {
			f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		}
	}
	if err != nil {
		return fmt.Errorf("append to audit trail: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("append to audit trail %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("append to audit trail %s: %w", path, err)
	}
	return nil
}

// Events reads the audit trail of session id in order. A line that is not a JSON event is skipped
// and returned as a problem; a session without a trail has no events.
func (s *Store) Events(id string) (events []Event, problems []error, err error) {
	if !ValidID(id) {
		return nil, nil, fmt.Errorf("read audit trail: invalid session id %q", id)
	}
	path := s.EventsPath(id)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read audit trail: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var e Event
			if jerr := json.Unmarshal(line, &e); jerr != nil {
				problems = append(problems, fmt.Errorf("%s:%d: %w", path, n, jerr))
			} else {
				events = append(events, e)
			}
		}
		if errors.Is(err, io.EOF) {
			return events, problems, nil
		}
		if err != nil {
			return events, problems, fmt.Errorf("read audit trail %s: %w", path, err)
		}
	}
}
