package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// Event is one line of a session's audit trail: one hook execution (skipped ones included), or an
// event-level note such as a capped Stop.
type Event struct {
	// Seq and Prev chain the trail (see ChainStart): set by Append.
	Seq        int64     `json:"seq,omitempty"`
	Prev       string    `json:"prev,omitempty"`
	Time       time.Time `json:"time"` // when the line was written, as the hook finished
	Event      string    `json:"event"`
	Name       string    `json:"name"`
	Type       string    `json:"type"`
	Source     string    `json:"source"`           // scope: project, user, plugin, global
	Format     string    `json:"format,omitempty"` // autoagent, iteratr, …
	File       string    `json:"file,omitempty"`
	Status     string    `json:"status"` // ok, blocked, error, timeout, skipped, capped
	ExitCode   int       `json:"exitCode"`
	DurationMs int64     `json:"durationMs"`
	Decision   string    `json:"decision"`
	Reason     string    `json:"reason"`
	// ToolUseID is the agent's id of the tool call the event is about (PreToolUse, …).
	ToolUseID string         `json:"toolUseId,omitempty"`
	Details   map[string]any `json:"details,omitempty"`
}

// Append adds events to the audit trail of session id, one JSON line each, chained to the line
// before (see ChainStart), through atomicfile.AppendLinesAfter: lines of concurrent processes
// never interleave nor fork the chain, and the trail only ever grows by whole lines (a failed
// write leaves nothing behind, or at worst a fragment on a line of its own, which readers
// report). An event without a time gets the store's clock.
//
// Under the trail's lock, Append holds the trail's last line against the trail's anchor (the
// head the last append noted, or the record's when that is past it or there is no note): a trail
// that does not end there was cut, rewritten or extended by something else, and gets a line
// saying so (breakType) before the events, so that the next event never passes such a trail off
// as whole. It then notes the head it leaves (<id>.head); a note that cannot be written undoes
// the lines. The first lines of a trail nothing anchored yet are anchored in the record too, so
// that a trail removed with its note is still missed.
func (s *Store) Append(id string, events ...Event) error {
	if !ValidID(id) {
		return fmt.Errorf("append to audit trail: invalid session id %q", id)
	}
	if len(events) == 0 {
		return nil
	}
	for i := range events {
		if events[i].Time.IsZero() {
			events[i].Time = s.now()
		}
		events[i].Time = events[i].Time.UTC()
	}
	var (
		note     *headNote
		anchored bool      // the trail had an anchor before these lines
		head     AuditHead // the head the lines leave
	)
	defer func() { note.close() }()
	// Appends hold a lock on the trail itself, not the folder's (which would make every hook
	// wait for other processes' record updates); a write cut short by a full disk is undone, and a
	// line torn by a killed writer is ended before the next, so no event is glued to a fragment.
	err := atomicfile.AppendLinesAfter(s.EventsPath(id), 0o600, func(last []byte) ([]byte, error) {
		note = s.openNote(id)
		want := newerHead(s.recordHead(id), note.head)
		anchored = want != nil
		seq, prev := chainAfter(id, last)
		var buf bytes.Buffer
		add := func(e Event) error {
			e.Seq, e.Prev = seq, prev
			b, err := json.Marshal(e)
			if err != nil {
				return fmt.Errorf("encode audit event %s/%s: %w", e.Event, e.Name, err)
			}
			buf.Write(b)
			buf.WriteByte('\n')
			head = AuditHead{Seq: seq, Hash: lineHash(b)}
			seq, prev = seq+1, head.Hash
			return nil
		}
		if reason := tailBreak(id, last, want, note); reason != "" {
			if want != nil {
				seq = max(seq, want.Seq+1) // seq, and so the note, never go back
			}
			details := map[string]any{"anchor": want}
			if last != nil {
				found, _, _ := chainFields(last)
				details["found"] = AuditHead{Seq: found, Hash: lineHash(last)}
			}
			brk := Event{Time: events[0].Time, Event: events[0].Event, Name: "agent-hooks", Type: breakType,
				Source: "agent-hooks", Status: "broken", Reason: reason, Details: details}
			if err := add(brk); err != nil {
				return nil, err
			}
		}
		for _, e := range events {
			if err := add(e); err != nil {
				return nil, err
			}
		}
		return buf.Bytes(), nil
	}, func() error { return note.write(head) })
	if err != nil {
		return fmt.Errorf("append to audit trail: %w", err)
	}
	if !anchored {
		s.anchorInRecord(id)
	}
	return nil
}

// anchorInRecord writes session id's record with the head just noted, when it has a record: what
// anchors a trail whose note is removed with it.
func (s *Store) anchorInRecord(id string) {
	_, err := s.Update(id, func(*Session) error { return nil })
	if err != nil && !errors.Is(err, ErrNotFound) {
		s.warn(fmt.Errorf("session %s: keep the audit trail's head in the record: %w", id, err))
	}
}

// OpenTrail opens the audit trail of session id for reading; a session without a trail has an
// empty one.
func (s *Store) OpenTrail(id string) (io.ReadCloser, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("read audit trail: invalid session id %q", id)
	}
	f, err := atomicfile.OpenFile(s.EventsPath(id), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read audit trail: %w", err)
	}
	return f, nil
}

// EachEvent reads an audit trail from r (named name in messages) and calls fn with every event
// in order, holding one at a time, with its line number and the line as written (valid only during the call; a line
// it hands over is valid JSON); with
// details false the events' details are not decoded. A line that is not a JSON event is skipped
// and handed to problem, naming its line (a torn line, a write cut short by a crash or a full
// disk, as such). fn's error stops the reading and is returned.
func EachEvent(r io.Reader, name string, details bool, fn func(n int, e *Event, line []byte) error, problem func(error)) error {
	var e Event
	var in interner
	err := ScanLines(r, func(n int, line []byte, complete bool) error {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		if err := decodeEvent(line, &e, details, &in); err != nil || !complete {
			if err == nil {
				err = errors.New("unexpected end of JSON input")
			}
			if problem != nil {
				problem(lineError(name, n, line, complete, err))
			}
			return nil
		}
		return fn(n, &e, line)
	})
	if err != nil {
		return fmt.Errorf("read audit trail %s: %w", name, err)
	}
	return nil
}

// Events reads the whole audit trail of session id into memory, in order: for tests and small
// trails (EachEvent reads any trail in constant space). Lines that are not events are returned as
// problems.
func (s *Store) Events(id string) (events []Event, problems []error, err error) {
	r, err := s.OpenTrail(id)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	err = EachEvent(r, s.EventsPath(id), true, func(_ int, e *Event, _ []byte) error {
		events = append(events, *e)
		return nil
	}, func(err error) { problems = append(problems, err) })
	return events, problems, err
}
