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

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// Event is one line of a session's audit trail: one hook execution (skipped ones included), or an
// event-level note such as a capped Stop.
type Event struct {
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

// Append adds events to the audit trail of session id, one JSON line each, through
// atomicfile.AppendLines: lines of concurrent processes never interleave, and the trail only ever
// grows by whole lines (a failed write leaves nothing behind, or at worst a fragment on a line of
// its own, which Events reports). An event without a time gets the store's clock.
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
	// Appends hold a lock on the trail itself, not the folder's (which would make every hook
	// wait for other processes' record updates); a write cut short by a full disk is undone, and a
	// line torn by a killed writer is ended before the next, so no event is glued to a fragment.
	if err := atomicfile.AppendLines(s.EventsPath(id), buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("append to audit trail: %w", err)
	}
	return nil
}

// Events reads the audit trail of session id in order. A line that is not a JSON event is skipped
// and returned as a problem naming its line: a torn line (a write cut short by a crash or a full
// disk) as such; a session without a trail has no events.
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
				problems = append(problems, lineProblem(path, n, line, jerr))
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

// lineProblem describes a line of the trail that is not a JSON event. A line that ends before its
// JSON does (no newline at the end of the file, or a fragment the next append ended) is a torn
// line: one write cut short by a crash or a full disk.
func lineProblem(path string, n int, line []byte, err error) error {
	var syntax *json.SyntaxError
	torn := !bytes.HasSuffix(line, []byte("\n")) ||
		errors.As(err, &syntax) && (syntax.Offset >= int64(len(bytes.TrimRight(line, "\r\n"))) || bytes.Contains(line[1:], []byte(`{"time":`)))
	if torn {
		return fmt.Errorf("%s:%d: torn line (a write cut short by a crash or a full disk): %w", path, n, err)
	}
	return fmt.Errorf("%s:%d: %w", path, n, err)
}
