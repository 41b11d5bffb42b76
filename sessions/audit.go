package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sync"
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
// before (see ChainStart), through an atomicfile.Appender: lines of concurrent processes never
// interleave nor fork the chain, and the trail only ever grows by whole lines (a failed write
// leaves nothing behind, or at worst a fragment on a line of its own, which readers report). An
// event without a time gets the store's clock.
//
// Under the trail's lock, Append holds the trail's last line against the trail's anchor (the
// head the last append noted, or the record's when that is past it or there is no note): a trail
// that does not end there was cut, rewritten or extended by something else, and gets a line
// saying so (breakType) before the events, so that the next event never passes such a trail off
// as whole. It then notes the head it leaves (<id>.head); a note that cannot be written undoes
// the lines. The first lines of a trail nothing anchored yet are anchored in the record too, so
// that a trail removed with its note is still missed.
//
// A run of appends to one trail (the hooks of one event) goes through one Appender instead.
func (s *Store) Append(id string, events ...Event) error {
	a, err := s.Appender(id)
	if err != nil {
		return err
	}
	err = a.Append(events...)
	a.Close()
	return err
}

// TrailAppender appends to the audit trail of one session as Store.Append does, keeping the
// trail and its head note open from one append to the next: each append still takes the trail's
// lock, reads the trail's last line, the note and the record's head under it, holds them against
// each other, writes its lines and notes the head before it returns, but opens and closes
// nothing while the files are the ones it holds (see atomicfile.Appender). Its appends are
// serialised; Close releases the files.
type TrailAppender struct {
	s      *Store
	id     string
	record string // the path of the session's record
	trail  *atomicfile.Appender

	mu   sync.Mutex
	note *headNote // the note as the last append left it; nil before the first
	// line and hash are the last line this appender wrote and its hash: a trail found ending in
	// the same bytes is not hashed again.
	line []byte
	hash string
	buf  []byte // the lines of an append, reused from one to the next
}

// maxKeptLines is the largest buffer of lines a TrailAppender keeps for its next append: a line
// with a hook's whole output in it is not held on to.
const maxKeptLines = 64 << 10

// Appender is a TrailAppender to the audit trail of session id; it opens nothing until the first
// append.
func (s *Store) Appender(id string) (*TrailAppender, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("append to audit trail: invalid session id %q", id)
	}
	return &TrailAppender{s: s, id: id, record: s.Path(id), trail: atomicfile.NewAppender(s.EventsPath(id), 0o600)}, nil
}

// Close releases the trail and its note; an append after it opens them again.
func (a *TrailAppender) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.trail.Close()
	a.note.close()
	a.note = nil
}

// Append adds events to the trail (see Store.Append).
func (a *TrailAppender) Append(events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	s, id := a.s, a.id
	for i := range events {
		if events[i].Time.IsZero() {
			events[i].Time = s.now()
		}
		events[i].Time = events[i].Time.UTC()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var (
		anchored bool      // the trail had an anchor before these lines
		head     AuditHead // the head the lines leave
		lastLine []byte    // the last line written
	)
	// Appends hold a lock on the trail itself, not the folder's (which would make every hook
	// wait for other processes' record updates); a write cut short by a full disk is undone, and a
	// line torn by a killed writer is ended before the next, so no event is glued to a fragment.
	err := a.trail.Append(func(last []byte) ([]byte, error) {
		a.note = s.reopenNote(id, a.note)
		note := a.note
		want := newerHead(s.recordHead(id, a.record), note.head)
		anchored = want != nil
		var lastHash string
		if last != nil {
			if a.line != nil && bytes.Equal(last, a.line) {
				lastHash = a.hash
			} else {
				lastHash = lineHash(last)
			}
		}
		seq, prev := chainAfter(id, last, lastHash)
		buf := a.buf[:0]
		add := func(e Event) error {
			e.Seq, e.Prev = seq, prev
			start := len(buf)
			b, err := appendEventJSON(buf, &e)
			if err != nil {
				return fmt.Errorf("encode audit event %s/%s: %w", e.Event, e.Name, err)
			}
			line := b[start:]
			head = AuditHead{Seq: seq, Hash: lineHash(line)}
			buf = append(b, '\n')
			seq, prev, lastLine = seq+1, head.Hash, buf[start:len(buf)-1]
			return nil
		}
		if reason := tailBreak(id, last, lastHash, want, note); reason != "" {
			if want != nil {
				seq = max(seq, want.Seq+1) // seq, and so the note, never go back
			}
			details := map[string]any{"anchor": want}
			if last != nil {
				found, _, _ := chainFields(last)
				details["found"] = AuditHead{Seq: found, Hash: lastHash}
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
		if cap(buf) <= maxKeptLines {
			a.buf = buf
		}
		return buf, nil
	}, func() error { return a.note.write(head) })
	if err != nil {
		return fmt.Errorf("append to audit trail: %w", err)
	}
	a.line, a.hash = append(a.line[:0], lastLine...), head.Hash
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
// in order, with its line number and the line as written (valid only during the call; a line it
// hands over is valid JSON); with details false the events' details are not decoded. A line that
// is not a JSON event is skipped and handed to problem, naming its line (a torn line, a write cut
// short by a crash or a full disk, as such). fn's error stops the reading and is returned. fn
// and problem are called in the order of the lines, from the caller's goroutine.
//
// Decoding is most of the cost of reading a trail: EachEvent reads r in chunks of whole lines,
// which goroutines decode side by side (one per processor, up to maxDecoders) while fn takes the
// events of the chunks before. It holds a few chunks at a time, so a trail of any length is read
// in constant space, and reads r only until it returns.
func EachEvent(r io.Reader, name string, details bool, fn func(n int, e *Event, line []byte) error, problem func(error)) error {
	return eachEvent(r, name, details, fn, problem, trailChunkSize, min(max(runtime.GOMAXPROCS(0), 1), maxDecoders))
}

// The chunks of EachEvent: their size (a line longer than that is one chunk of its own), and how
// many goroutines decode them.
const (
	trailChunkSize = 256 << 10
	maxDecoders    = 4
)

// trailChunk is a run of whole lines of a trail (the last without its '\n' at the end of the
// trail), decoded into its events.
type trailChunk struct {
	buf     []byte
	first   int   // the number of its first line
	readErr error // what ended the reading after it: nil for more to come, io.EOF at the end
	lines   []chunkLine
	decoded chan struct{} // given a value once lines are decoded
}

// chunkLine is one line of a chunk that is not blank.
type chunkLine struct {
	start, end int // the line in buf, without its '\n'
	n          int // its number, from the chunk's first
	complete   bool
	err        error // why it is not an event
	e          Event
}

func eachEvent(r io.Reader, name string, details bool, fn func(n int, e *Event, line []byte) error, problem func(error), chunkSize, decoders int) error {
	chunks := decoders + 2 // being decoded, being handed over, being read
	free := make(chan *trailChunk, chunks)
	for range chunks {
		free <- &trailChunk{decoded: make(chan struct{}, 1)}
	}
	work := make(chan *trailChunk, chunks)  // to the decoders
	order := make(chan *trailChunk, chunks) // to fn, in the order of the trail
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(work)
		defer close(order)
		rd := chunkReader{r: r, size: chunkSize, next: 1}
		for {
			var c *trailChunk
			select {
			case <-quit: // before a free chunk: fn stopped, nothing more is read
				return
			default:
			}
			select {
			case <-quit:
				return
			case c = <-free:
			}
			if !rd.fill(c) {
				return
			}
			work <- c
			order <- c
		}
	})
	for range decoders {
		wg.Go(func() {
			var in interner
			for c := range work {
				select {
				case <-quit: // fn stopped: the chunk is not handed over
				default:
					c.decode(details, &in)
				}
				c.decoded <- struct{}{}
			}
		})
	}
	defer wg.Wait()
	defer close(quit)
	for c := range order {
		<-c.decoded
		for k := range c.lines {
			l := &c.lines[k]
			line := c.buf[l.start:l.end]
			if l.err != nil || !l.complete {
				err := l.err
				if err == nil {
					err = errors.New("unexpected end of JSON input")
				}
				if problem != nil {
					problem(lineError(name, c.first+l.n, line, l.complete, err))
				}
				continue
			}
			if err := fn(c.first+l.n, &l.e, line); err != nil {
				return err
			}
		}
		if c.readErr != nil && !errors.Is(c.readErr, io.EOF) {
			return fmt.Errorf("read audit trail %s: %w", name, c.readErr)
		}
		free <- c
	}
	return nil
}

// chunkReader cuts a trail into chunks of whole lines.
type chunkReader struct {
	r     io.Reader
	size  int
	next  int    // the number of the next chunk's first line
	carry []byte // the start of a line the last chunk cut off
	err   error
}

// fill reads the next chunk into c: at least size bytes (but at the end of the trail), up to
// the end of a line; false when the trail has ended.
func (rd *chunkReader) fill(c *trailChunk) bool {
	if rd.err != nil {
		return false
	}
	c.buf = append(c.buf[:0], rd.carry...)
	c.buf = slices.Grow(c.buf, rd.size)
	cut := -1 // the end of the chunk's last line
	for empty := 0; ; {
		if len(c.buf) == cap(c.buf) {
			c.buf = slices.Grow(c.buf, rd.size)
		}
		n, err := rd.r.Read(c.buf[len(c.buf):cap(c.buf)])
		if n == 0 && err == nil {
			if empty++; empty == 100 { // as bufio gives up on a reader that never reads anything
				err = io.ErrNoProgress
			}
		} else {
			empty = 0
		}
		if i := bytes.LastIndexByte(c.buf[len(c.buf):len(c.buf)+n], '\n'); i >= 0 {
			cut = len(c.buf) + i + 1
		}
		c.buf = c.buf[:len(c.buf)+n]
		if err != nil {
			rd.err = err
			break
		}
		if len(c.buf) >= rd.size && cut >= 0 {
			break
		}
	}
	switch {
	case errors.Is(rd.err, io.EOF):
		cut = len(c.buf) // the last line, with or without its '\n'
	case rd.err != nil && cut < 0:
		cut = 0 // a line the error cut short is not handed over
	}
	if rd.err == nil || cut < len(c.buf) {
		rd.carry = append(rd.carry[:0], c.buf[cut:]...)
		c.buf = c.buf[:cut]
	}
	c.first, c.readErr = rd.next, rd.err
	rd.next += bytes.Count(c.buf, []byte{'\n'})
	return true
}

// decode reads the chunk's lines into their events, skipping blank lines.
func (c *trailChunk) decode(details bool, in *interner) {
	c.lines = c.lines[:0]
	for start, n := 0, 0; start < len(c.buf); n++ {
		end := bytes.IndexByte(c.buf[start:], '\n')
		complete := end >= 0
		if complete {
			end += start
		} else {
			end = len(c.buf)
		}
		if line := c.buf[start:end]; len(bytes.TrimSpace(line)) > 0 {
			c.lines = append(c.lines, chunkLine{start: start, end: end, n: n, complete: complete})
			l := &c.lines[len(c.lines)-1]
			l.err = decodeEvent(line, &l.e, details, in)
		}
		start = end + 1
	}
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
