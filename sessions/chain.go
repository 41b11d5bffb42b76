package sessions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// The audit trail is a hash chain. Every line agent-hooks appends carries
//
//	"seq":  its number in the chain (1, 2, …), and
//	"prev": the SHA-256, in hex, of the exact bytes of the line before it (without its '\n'),
//	        or of "agent-hooks audit trail\n" + the session id for the first line,
//
// as its first two fields; the head, the seq and hash of the last line, is noted beside the
// record by every append and kept in the record when it is written (AuditHead; see the anchor
// below). A line changed, inserted or removed breaks the chain at the line after it; lines
// removed from the end fall short of the head. Lines written
// before agent-hooks chained its trail carry neither field: they are read as unchained, and the
// first chained line after them links to the last of them.

// AuditHead is the last line of a session's audit trail as its record saw it.
type AuditHead struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"` // SHA-256 of the line, hex
}

// ChainStart is the "prev" of a trail's first line: it ties the chain to its session.
func ChainStart(id string) string {
	return lineHash([]byte("agent-hooks audit trail\n" + id))
}

func lineHash(line []byte) string {
	h := hexHash(line)
	return string(h[:])
}

// hexHash is the SHA-256 of line in hex, without allocating.
func hexHash(line []byte) (h [64]byte) {
	sum := sha256.Sum256(line)
	hex.Encode(h[:], sum[:])
	return h
}

// chainAfter is where the chain goes on after last (the trail's last complete line, nil for an
// empty trail): the seq of the next line and its prev. After an unchained line (a trail begun
// before the chain) the chain starts at 1, linked to that line.
// lastHash is lineHash(last).
func chainAfter(id string, last []byte, lastHash string) (next int64, prev string) {
	if last == nil {
		return 1, ChainStart(id)
	}
	seq, _, ok := chainFields(last)
	if !ok {
		return 1, lastHash
	}
	return seq + 1, lastHash
}

// chainFields reads seq and prev of an audit line: from its start when it is written as
// agent-hooks writes it, else with encoding/json. ok is false for a line without a chain.
func chainFields(line []byte) (seq int64, prev string, ok bool) {
	seq, raw, ok := chainFieldsRaw(line)
	return seq, string(raw), ok
}

// chainFieldsRaw is chainFields with prev as a slice of line (or of a decoded copy).
func chainFieldsRaw(line []byte) (seq int64, prev []byte, ok bool) {
	const head = `{"seq":`
	if rest, found := bytes.CutPrefix(line, []byte(head)); found {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		const mid = `,"prev":"`
		if n, err := strconv.ParseInt(string(rest[:i]), 10, 64); err == nil && n > 0 &&
			bytes.HasPrefix(rest[i:], []byte(mid)) && len(rest) >= i+len(mid)+65 && rest[i+len(mid)+64] == '"' {
			return n, rest[i+len(mid) : i+len(mid)+64], true
		}
	}
	var f struct {
		Seq  int64  `json:"seq"`
		Prev string `json:"prev"`
	}
	if json.Unmarshal(line, &f) != nil || f.Seq <= 0 || f.Prev == "" {
		return 0, nil, false
	}
	return f.Seq, []byte(f.Prev), true
}

// headPath is where the head of session id's trail is noted: <id>.head, beside its record.
func (s *Store) headPath(id string) string { return filepath.Join(s.dir, id+".head") }

// The trail is anchored: every append notes the head it leaves in <id>.head, under the trail's
// lock and in the same breath as its lines (Append), and every write of the record takes that
// head into it (write). The next append holds the trail's last line against the anchor before it
// adds a line: a trail cut short, extended or changed at its end since is not extended as if
// nothing happened (which would make the cut pass verify after the next event), but gets a line
// saying what was found (breakType) first, in the chain, where verify reports it from then on;
// its seq follows the anchor's, so that seq and the note never go backwards. What verify reads
// past the anchor is vouched for by nothing agent-hooks wrote, and verify says so.
//
// None of this holds against someone who rewrites the trail, the note and the record together
// (the chain has no secret): a session pushed to a remote (session push) is the anchor out of
// their reach.

// breakType is the type of the audit line an append writes when it finds the trail not ending
// at its anchor; its source is "agent-hooks".
const breakType = "trail-break"

// headNote is the note of a trail's head (<id>.head), read and written under the trail's lock.
// It is overwritten in place rather than replaced: a rename costs the file system a journal
// transaction and the folder a change on every event. It is not synced, as the trail's lines
// are not. A TrailAppender keeps it open from one append to the next, and reads it again before
// each (reopenNote).
type headNote struct {
	path string
	f    *os.File    // open in place; nil when it could not be (see state): it is then replaced
	st   fs.FileInfo // f's, when it was opened
	size int         // the bytes it held (at most noteMax+1)
	head *AuditHead  // nil: none that can be used (see state)
	// state says why head is nil: "missing", "damaged", or what was found in its place ("a
	// symbolic link", "a named pipe", "a file with 2 hard links": never opened) or why it could not
	// be read.
	state string
}

// noteMax is the most a note agent-hooks writes can hold.
const noteMax = 128

// openNote opens the note of session id's trail for reading and writing, creating it, and reads
// it; the caller holds the trail's lock and closes it.
func (s *Store) openNote(id string) *headNote {
	n := &headNote{path: s.headPath(id)}
	f, st, err := atomicfile.OpenFileStat(n.path, os.O_RDWR|os.O_CREATE, 0o600)
	var refused *atomicfile.NotRegularError
	switch {
	case errors.As(err, &refused):
		n.state = refused.What
		return n
	case err != nil:
		n.state = fmt.Sprintf("unreadable (%v)", err)
		return n
	}
	n.f, n.st = f, st
	n.read(st.Size())
	return n
}

// reopenNote is n, the note of session id's trail as an earlier append left it (nil: none), read
// again under the trail's lock: through the file n holds while its path still names it (a regular
// file of its own), else opened anew as openNote does.
func (s *Store) reopenNote(id string, n *headNote) *headNote {
	if n == nil || n.f == nil {
		n.close()
		return s.openNote(id)
	}
	st, ok := atomicfile.StillAt(n.path, n.f, n.st)
	if !ok {
		n.close()
		return s.openNote(id)
	}
	n.read(st.Size())
	return n
}

// read reads the note's head from its file, of size bytes as stat found it under the trail's
// lock (which every writer of a note holds): one read of that size, no more than a note can hold
// and one byte (a longer one is damaged).
func (n *headNote) read(size int64) {
	var buf [noteMax + 1]byte
	k, err := n.f.ReadAt(buf[:min(max(size, 0), noteMax+1)], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		n.size, n.head, n.state = 0, nil, fmt.Sprintf("unreadable (%v)", err)
		return
	}
	n.size = k
	n.head, n.state = parseNote(buf[:k])
}

// parseNote reads a note; state says why there is no head in it.
func parseNote(b []byte) (head *AuditHead, state string) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, "missing"
	}
	if h, ok := parseNoteFast(b); ok {
		return h, ""
	}
	var h AuditHead
	if len(b) > noteMax || json.Unmarshal(b, &h) != nil || !validHead(&h) {
		return nil, "damaged"
	}
	return &h, ""
}

// parseNoteFast reads a note as appendNote writes it, a valid head; false for anything else,
// which parseNote then reads with encoding/json.
func parseNoteFast(b []byte) (*AuditHead, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"seq":`))
	if !ok {
		return nil, false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || rest[0] == '0' {
		return nil, false
	}
	seq, err := strconv.ParseInt(string(rest[:i]), 10, 64)
	if err != nil {
		return nil, false
	}
	rest, ok = bytes.CutPrefix(rest[i:], []byte(`,"hash":"`))
	if !ok || len(rest) < 64 {
		return nil, false
	}
	hash, tail := rest[:64], rest[64:]
	if string(tail) != `"}`+"\n" && string(tail) != `"}` {
		return nil, false
	}
	h := &AuditHead{Seq: seq, Hash: string(hash)}
	return h, validHead(h)
}

// appendNote appends the note of head, as json.Marshal writes it, with a newline.
func appendNote(b []byte, head AuditHead) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, head.Seq, 10)
	b = append(b, `,"hash":`...)
	b = appendJSONString(b, head.Hash)
	return append(b, "}\n"...)
}

func validHead(h *AuditHead) bool {
	if h == nil || h.Seq < 1 || len(h.Hash) != 64 {
		return false
	}
	for i := 0; i < len(h.Hash); i++ { // hex, as hex.DecodeString reads it, without its copy
		if c := h.Hash[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// write notes head: over the note in place, else (it could not be opened: something not a
// regular file of its own was in its place) by replacing it whole, which never writes through
// what was there.
func (n *headNote) write(head AuditHead) error {
	var buf [noteMax]byte
	b := appendNote(buf[:0], head)
	if n.f == nil {
		if err := atomicfile.WriteFile(n.path, b, 0o600); err != nil {
			return fmt.Errorf("note the audit trail's head: %w", err)
		}
		return nil
	}
	if _, err := n.f.WriteAt(b, 0); err != nil {
		return fmt.Errorf("note the audit trail's head: %w", err)
	}
	if n.size > len(b) { // foreign content: a note agent-hooks wrote is never longer than the next
		if err := n.f.Truncate(int64(len(b))); err != nil {
			return fmt.Errorf("note the audit trail's head: %w", err)
		}
	}
	n.size = len(b)
	return nil
}

func (n *headNote) close() {
	if n != nil && n.f != nil {
		n.f.Close()
		n.f = nil
	}
}

// readNote is the head noted for session id, or nil; the caller holds the trail's lock (or the
// trail does not exist).
func (s *Store) readNote(id string) *AuditHead {
	b, err := atomicfile.ReadFile(s.headPath(id))
	if err != nil {
		return nil
	}
	head, _ := parseNote(b)
	return head
}

// notedHead is the head noted for session id, read under the trail's lock so that no note is
// read half written; without a trail, as it is (a note without its trail tells that the trail
// was removed). nil when there is none that can be used.
func (s *Store) notedHead(id string) (head *AuditHead) {
	called := false
	err := atomicfile.ReadLocked(s.EventsPath(id), func(*os.File) error {
		called = true
		head = s.readNote(id)
		return nil
	})
	if !called && errors.Is(err, fs.ErrNotExist) {
		head = s.readNote(id)
	}
	return head
}

// recordedHead is the head of the record recordHead read last, and the file it read it from:
// the hooks of one event append one line each, and the record is rarely written in between.
type recordedHead struct {
	mu   sync.Mutex
	id   string
	file fs.FileInfo
	head *AuditHead
}

// recordHead is the head session id's record, at path (s.Path(id)), keeps: nil when there is no
// record, or none that keeps a head. A record that is the same file, of the same size and time,
// as the one read last is not read again (a record is written by renaming a new file over it).
func (s *Store) recordHead(id, path string) *AuditHead {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	c := &s.recorded
	c.mu.Lock()
	if c.id == id && os.SameFile(c.file, st) && c.file.Size() == st.Size() && c.file.ModTime().Equal(st.ModTime()) {
		head := c.head
		c.mu.Unlock()
		return head
	}
	c.mu.Unlock()
	b, err := atomicfile.ReadFile(path)
	if err != nil {
		return nil
	}
	var head *AuditHead
	doc, err := jsonpos.Parse(b)
	if err == nil {
		err = decodeRecordHead(doc, doc.Root, &head)
	}
	if err != nil || !validHead(head) {
		head = nil
	}
	c.mu.Lock()
	c.id, c.file, c.head = id, st, head // st is from before the read: a record replaced since is read again
	c.mu.Unlock()
	return head
}

// newerHead is the head a trail is anchored at, of a record's head and a noted one: the noted one
// when it is past the record's (as it is while a session runs), else the record's. A note behind
// the record's head, or at its seq with another hash, was rolled back or replaced: it does not
// move the anchor back.
func newerHead(recorded, noted *AuditHead) *AuditHead {
	if noted != nil && (recorded == nil || noted.Seq > recorded.Seq) {
		return noted
	}
	return recorded
}

// tailBreak says how a trail whose last complete line is last (nil: none) does not end at its
// anchor want (nil: none); "" when it does. lastHash is lineHash(last). note is the note read
// under the lock. A trail with
// no anchor may be empty or end in a line written before the chain; one that ends in a chained
// line has lost its anchor (the note was removed before the record ever took a head).
func tailBreak(id string, last []byte, lastHash string, want *AuditHead, note *headNote) string {
	var found *AuditHead
	chained := false
	if last != nil {
		seq, _, ok := chainFields(last)
		found, chained = &AuditHead{Seq: seq, Hash: lastHash}, ok
	}
	if want == nil {
		if found == nil || !chained {
			return ""
		}
		return fmt.Sprintf("the trail ends at seq %d, but nothing anchors it: its head note (%s.head) is %s, and the session record keeps no head", found.Seq, id, note.state)
	}
	if chained && *found == *want {
		return ""
	}
	anchor := fmt.Sprintf("the last head agent-hooks noted (seq %d)", want.Seq)
	if note.head == nil || *note.head != *want {
		state := note.state
		switch {
		case note.head != nil && note.head.Seq < want.Seq:
			state = fmt.Sprintf("behind it (seq %d): rolled back", note.head.Seq)
		case note.head != nil:
			state = "at its seq with another hash: replaced"
		}
		anchor = fmt.Sprintf("the head the session record keeps (seq %d; the head note %s.head is %s)", want.Seq, id, state)
	}
	switch {
	case found == nil:
		return fmt.Sprintf("the trail was found empty, short of %s: all its lines were removed", anchor)
	case !chained:
		return fmt.Sprintf("the trail's last line carries no chain (agent-hooks did not append it), yet the trail is anchored at %s: lines were added, or the trail was replaced or rewritten", anchor)
	case found.Seq < want.Seq:
		return fmt.Sprintf("the trail was found cut at seq %d, short of %s: %d line(s) were removed from its end", found.Seq, anchor, want.Seq-found.Seq)
	case found.Seq == want.Seq:
		return fmt.Sprintf("the trail's last line (seq %d) was found changed: its hash is not that of %s", found.Seq, anchor)
	default:
		return fmt.Sprintf("the trail was found to run %d line(s) past %s, to seq %d: lines agent-hooks did not append (or a crash came between an append and its note)", found.Seq-want.Seq, anchor, found.Seq)
	}
}

// Snapshot reads session id's record with its trail's head (as Get does) and the size of the
// trail at that head, both under the trail's lock: the first size bytes of the trail are the
// lines the head vouches for, whatever is appended after. A session without a trail has size 0.
func (s *Store) Snapshot(id string) (sess *Session, size int64, err error) {
	if !ValidID(id) {
		return nil, 0, fmt.Errorf("read session: invalid id %q (want session-<unixms>-<[a-z0-9]>)", id)
	}
	called := false
	err = atomicfile.ReadLocked(s.EventsPath(id), func(f *os.File) error {
		called = true
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("read audit trail: %w", err)
		}
		if sess, err = s.read(id); err != nil {
			return err
		}
		sess.AuditHead = newerHead(sess.AuditHead, s.readNote(id))
		size = st.Size()
		return nil
	})
	if !called && errors.Is(err, fs.ErrNotExist) {
		sess, err = s.readNoted(id)
		return sess, 0, err
	}
	if !called {
		return nil, 0, fmt.Errorf("read audit trail: %w", err)
	}
	if err != nil {
		return nil, 0, err
	}
	return sess, size, nil
}

// Verification is what VerifyTrail found.
type Verification struct {
	Lines     int   `json:"lines"`     // lines read
	Chained   int64 `json:"chained"`   // lines in the chain
	Unchained int   `json:"unchained"` // lines before the chain (written before agent-hooks chained its trail)
	// Head is the head the trail is anchored at (the record's, or the one noted since; nil: none);
	// AfterHead counts the chained lines after it, which nothing agent-hooks wrote vouches for
	// (every append notes the head it leaves): lines added by something else, or a note removed,
	// damaged or rolled back. With no head, every chained line is after it.
	Head      *AuditHead `json:"head,omitempty"`
	AfterHead int64      `json:"afterHead"`
	// Problems are lines that are not events at all (torn writes); the chain passes over them.
	Problems []string `json:"problems,omitempty"`
	// Break is the first line that was changed, inserted or removed, or where agent-hooks found
	// the trail so and said so; nil when the chain holds.
	Break *ChainBreak `json:"break,omitempty"`
}

// OK reports whether the trail is intact as far as it can be told: no break, and no line past
// the head.
func (v *Verification) OK() bool { return v.Break == nil && v.AfterHead == 0 }

// ChainBreak is the first place where the trail is not what was written.
type ChainBreak struct {
	Line int `json:"line"` // the line (counting from 1) that was changed or inserted, or before which lines were removed
	// Kind is changed, inserted or removed, or found: an append found the trail not ending at its
	// anchor (cut, rewritten or extended) and wrote this line to say so.
	Kind string `json:"kind"`
	Msg  string `json:"message"`
}

func (b *ChainBreak) Error() string { return fmt.Sprintf("line %d: %s", b.Line, b.Msg) }

// VerifyTrail reads an audit trail from r (named name in messages) of session id, whose record
// keeps head (nil: none), and checks its chain, holding one line at a time. It stops at the first
// break. The error is a failure to read.
func VerifyTrail(r io.Reader, name, id string, head *AuditHead) (*Verification, error) {
	v := &Verification{Head: head}
	var (
		prevHash   = hexOf(ChainStart(id))     // what the next line's prev must be
		beforeHash [64]byte                    // the hash of the line before the last one (to spot an insertion)
		lastLine   int                         // the physical number of the last event line
		expect     int64                   = 1 // the next seq
		headSeen   bool
		chainLine  int // where the chain began
	)
	stop := errors.New("stop")
	fail := func(line int, kind, format string, args ...any) error {
		v.Break = &ChainBreak{Line: line, Kind: kind, Msg: fmt.Sprintf(format, args...)}
		return stop
	}
	err := ScanLines(r, func(n int, line []byte, complete bool) error {
		v.Lines = n
		if len(bytes.TrimSpace(line)) == 0 {
			return fail(n, "inserted", "an empty line, which agent-hooks never writes")
		}
		seq, prev, chained := chainFieldsRaw(line)
		if !chained {
			if !json.Valid(line) || !complete {
				var jerr error = errors.New("not a JSON object")
				if !complete {
					jerr = errors.New("no newline at the end")
				} else if err := json.Unmarshal(line, new(map[string]any)); err != nil {
					jerr = err
				}
				v.Problems = append(v.Problems, lineError(name, n, line, complete, jerr).Error())
				return nil
			}
			if v.Chained > 0 {
				return fail(n, "inserted", "this line carries no chain (seq, prev), yet the chain began at line %d: it was inserted or rewritten", chainLine)
			}
			v.Unchained++
			beforeHash, prevHash, lastLine = prevHash, hexHash(line), n
			return nil
		}
		hash := hexHash(line)
		if v.Chained == 0 {
			chainLine = n
		}
		if reason, ok := breakLine(line); ok {
			return fail(n, "found", "agent-hooks found the trail broken when it appended this line (seq %d): %s", seq, reason)
		}
		switch {
		case string(prev) == string(prevHash[:]) && seq == expect:
		case seq > expect:
			return fail(n, "removed", "seq %d follows seq %d: %d line(s) were removed before this line", seq, expect-1, seq-expect)
		case hash == prevHash:
			return fail(n, "inserted", "this line repeats the line before it (seq %d)", seq)
		case seq < expect && string(prev) == string(beforeHash[:]) && lastLine > 0:
			return fail(lastLine, "inserted", "this line is not in the chain: the next line (seq %d) links to the line before it", seq)
		case seq < expect:
			return fail(n, "inserted", "seq %d again after seq %d: a line was inserted or duplicated", seq, expect-1)
		case string(prev) != string(prevHash[:]) && lastLine > 0:
			return fail(lastLine, "changed", "this line was changed: its hash is not the one the next line (seq %d) records", seq)
		default:
			return fail(n, "changed", "the first line of the chain does not start it: changed, or the lines before it were removed")
		}
		if head != nil && seq == head.Seq {
			headSeen = true
			if string(hash[:]) != head.Hash {
				return fail(n, "changed", "this line (seq %d) was changed: its hash is not that of the trail's head", seq)
			}
		}
		if head != nil && seq > head.Seq {
			v.AfterHead++
		}
		v.Chained++
		expect = seq + 1
		beforeHash, prevHash, lastLine = prevHash, hash, n
		return nil
	})
	if err != nil && !errors.Is(err, stop) {
		return v, fmt.Errorf("read %s: %w", name, err)
	}
	if v.Break == nil && head != nil && !headSeen {
		v.Break = &ChainBreak{Line: v.Lines + 1, Kind: "removed",
			Msg: fmt.Sprintf("the trail ends at seq %d, but its head is seq %d: the last %d line(s) were removed", expect-1, head.Seq, head.Seq-(expect-1))}
	}
	if head == nil {
		v.AfterHead = v.Chained // no head recorded yet: nothing to hold the end against
	}
	return v, nil
}

// breakLine reports whether line is one an append wrote on finding the trail not ending at its
// anchor (breakType), with its reason. It looks first at the first "type" key, which in a line as
// Append writes it is the event's own (the fields before it hold no raw `,"type":"`, since a quote
// in a string is escaped): a quarter of the time of a search of the whole line, on every line.
func breakLine(line []byte) (reason string, ok bool) {
	const key = `,"type":"`
	i := bytes.Index(line, []byte(key))
	if i < 0 || !bytes.HasPrefix(line[i+len(key):], []byte(breakType+`"`)) {
		return "", false
	}
	var e Event
	if DecodeEvent(line, &e, false) != nil || e.Type != breakType || e.Source != "agent-hooks" {
		return "", false
	}
	return e.Reason, true
}

func hexOf(s string) (h [64]byte) {
	copy(h[:], s)
	return h
}
