package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/runner/remote"
	"github.com/autoagent/agent-hooks/sessions"
	"github.com/autoagent/agent-hooks/sessions/view"
)

// trailSource opens an audit trail for reading (a local file, or a blob of a pushed session); it
// may be opened more than once.
type trailSource struct {
	name string // for messages: the file, or the ref of a pushed session
	open func() (io.ReadCloser, error)
}

func (src trailSource) each(details bool, fn func(n int, e *sessions.Event, line []byte) error, problem func(error)) error {
	r, err := src.open()
	if err != nil {
		return err
	}
	defer r.Close()
	return sessions.EachEvent(r, src.name, details, fn, problem)
}

var trailHeader = [...]string{"TIME", "EVENT", "HOOK", "SOURCE", "STATUS", "EXIT", "MS", "DECISION", "REASON"}

// printTrail prints the trail as a table in two passes over the source, holding one line at a
// time: the first measures the columns (and reports the lines it skips), the second prints. It
// lays the table out as text/tabwriter would (two spaces between columns), which needs every row
// before the first is printed. With blocked, only the lines that refused their event.
func printTrail(w io.Writer, src trailSource, blocked bool, problem func(error)) error {
	keep := func(e *sessions.Event) bool {
		return !blocked || e.Status == "blocked" || e.Status == "refused" || e.Decision == "block" || e.Decision == "deny"
	}
	var t trailTable
	for i := range t.width {
		t.width[i] = utf8.RuneCountInString(trailHeader[i])
	}
	rows := 0
	err := src.each(false, func(_ int, e *sessions.Event, _ []byte) error {
		if keep(e) {
			rows++
			t.row(e, true)
		}
		return nil
	}, problem)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	if rows == 0 {
		msg := "no hook has run in this session"
		if blocked {
			msg = "nothing was blocked in this session"
		}
		fmt.Fprintln(bw, msg)
		return bw.Flush()
	}
	_, _ = bw.Write(t.header())
	err = src.each(false, func(_ int, e *sessions.Event, _ []byte) error {
		if keep(e) {
			_, _ = bw.Write(t.row(e, false))
		}
		return nil
	}, nil)
	if err != nil {
		return err
	}
	return bw.Flush()
}

// trailTable lays out the rows of printTrail: the widths of its columns (but the last, the
// reason, which is not padded) and one row's bytes, reused from row to row. A trail of a million
// lines prints a million rows: each is appended into the one buffer, and the time cell is made
// again only when the second changes.
type trailTable struct {
	width [len(trailHeader) - 1]int
	buf   []byte

	timeSet  bool
	timeSec  int64  // the Unix second of timeCell
	timeCell []byte // the time cell of the last row with a time
}

// header is the header row, laid out with the widths measured.
func (t *trailTable) header() []byte {
	b := t.buf[:0]
	for i, h := range trailHeader[:len(trailHeader)-1] {
		b = t.cell(b, i, h, false)
	}
	b = append(append(b, trailHeader[len(trailHeader)-1]...), '\n')
	t.buf = b
	return b
}

// row lays out e's row and returns it, valid until the next call; with measure it only widens
// the columns to fit it (and returns nothing). What the trail holds may come from the agent (a
// path in a rule's reason): it is shown as text (view.Printable), no escape sequence reaching the
// terminal.
func (t *trailTable) row(e *sessions.Event, measure bool) []byte {
	b := t.buf[:0]
	if e.Time.IsZero() {
		b = t.cell(b, 0, "-", measure)
	} else {
		if sec := e.Time.Unix(); !t.timeSet || sec != t.timeSec {
			t.timeCell = appendSessTime(t.timeCell[:0], e.Time)
			t.timeSet, t.timeSec = true, sec
		}
		b = t.asciiCell(b, 0, t.timeCell, measure)
	}
	b = t.cell(b, 1, view.Printable(e.Event), measure)
	b = t.cell(b, 2, view.Printable(e.Name), measure)
	b = t.cell(b, 3, view.Printable(e.Source), measure)
	b = t.cell(b, 4, view.Printable(e.Status), measure)
	var num [20]byte
	b = t.asciiCell(b, 5, strconv.AppendInt(num[:0], int64(e.ExitCode), 10), measure)
	b = t.asciiCell(b, 6, strconv.AppendInt(num[:0], e.DurationMs, 10), measure)
	b = t.cell(b, 7, sessDash(view.Printable(e.Decision)), measure)
	if measure {
		return nil
	}
	b = append(append(b, view.Printable(sessLine(e.Reason))...), '\n')
	t.buf = b
	return b
}

// cell appends the text of column i and its padding to b, or with measure widens the column to
// fit it.
func (t *trailTable) cell(b []byte, i int, text string, measure bool) []byte {
	n := len(text)
	for k := 0; k < len(text); k++ {
		if text[k] >= utf8.RuneSelf {
			n = utf8.RuneCountInString(text)
			break
		}
	}
	if measure {
		t.width[i] = max(t.width[i], n)
		return b
	}
	return pad(append(b, text...), t.width[i]-n+2)
}

// asciiCell is cell for a text of ASCII characters only (a time, a number): one column a byte.
func (t *trailTable) asciiCell(b []byte, i int, text []byte, measure bool) []byte {
	if measure {
		t.width[i] = max(t.width[i], len(text))
		return b
	}
	return pad(append(b, text...), t.width[i]-len(text)+2)
}

const spaces = "                                                                "

// pad appends n spaces to b.
func pad(b []byte, n int) []byte {
	for n > len(spaces) {
		b = append(b, spaces...)
		n -= len(spaces)
	}
	return append(b, spaces[:max(n, 0)]...)
}

// writeSessionJSON prints the record as JSON with its trail in an "events" array, one event per
// line as it was written, streaming them.
func writeSessionJSON(w io.Writer, sess *sessions.Session, pending *sessions.PendingPush, src trailSource, problem func(error)) error {
	rec, err := recordJSON(sess, pending)
	if err != nil {
		return err
	}
	rec = bytes.TrimRight(rec, "\n")
	rec = bytes.TrimSuffix(rec, []byte("}"))
	rec = bytes.TrimRight(rec, "\n ")
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(rec)
	if len(rec) > 1 { // not an empty object
		bw.WriteString(",")
	}
	bw.WriteString("\n  \"events\": [")
	n := 0
	err = src.each(false, func(_ int, _ *sessions.Event, line []byte) error {
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n    ")
		_, err := bw.Write(line) // valid JSON (EachEvent says so), one event per line
		return err
	}, problem)
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

// recordJSON is a session record as `session show --json` prints it: as stored, with
// "pushPending" added when a push of the session did not happen (see sessions.PendingPush).
func recordJSON(sess *sessions.Session, pending *sessions.PendingPush) ([]byte, error) {
	rec, err := json.MarshalIndent(sess, "", "  ")
	if err != nil || pending == nil {
		return rec, err
	}
	p, err := json.MarshalIndent(pending, "  ", "  ")
	if err != nil {
		return nil, err
	}
	rec = bytes.TrimRight(bytes.TrimSuffix(bytes.TrimRight(rec, "\n"), []byte("}")), "\n ")
	if len(rec) > 1 { // not an empty object
		rec = append(rec, ',')
	}
	rec = append(append(append(rec, "\n  \"pushPending\": "...), p...), "\n}"...)
	return rec, nil
}

// localTrail is the audit trail of session id in the sessions folder, its first size bytes (see
// sessions.Store.Snapshot).
func localTrail(store *sessions.Store, id string, size int64) trailSource {
	return trailSource{name: store.EventsPath(id), open: func() (io.ReadCloser, error) {
		r, err := store.OpenTrail(id)
		if err != nil {
			return nil, err
		}
		return struct {
			io.Reader
			io.Closer
		}{io.LimitReader(r, size), r}, nil
	}}
}

// verifySession checks the hash chain of a session's audit trail against its record's head.
func verifySession(sess *sessions.Session, src trailSource) (*sessions.Verification, error) {
	r, err := src.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return sessions.VerifyTrail(r, src.name, sess.ID, sess.AuditHead)
}

// verifyStatus is one word for a verification: intact, broken, unanchored, unchained or empty.
func verifyStatus(v *sessions.Verification) string {
	switch {
	case v.Break != nil:
		return "broken"
	case v.AfterHead > 0:
		return "unanchored"
	case v.Chained == 0 && v.Unchained > 0:
		return "unchained"
	case v.Chained == 0:
		return "empty"
	}
	return "intact"
}

// printVerification says what verify found, in one line (and a warning per torn line on stderr);
// a broken chain, and lines past the head, are exit 1.
func (a *app) printVerification(id string, v *sessions.Verification, asJSON bool) error {
	for _, p := range v.Problems {
		fmt.Fprintf(a.Stderr, "agent-hooks: warning: %s\n", p)
	}
	status := verifyStatus(v)
	if asJSON {
		doc := struct {
			Session string `json:"session"`
			Status  string `json:"status"`
			*sessions.Verification
		}{id, status, v}
		if err := cli.WriteJSON(a.Stdout, doc); err != nil {
			return err
		}
	} else {
		var msg string
		switch status {
		case "broken":
			msg = fmt.Sprintf("broken at line %d (%s): %s", v.Break.Line, v.Break.Kind, v.Break.Msg)
		case "unchained":
			msg = fmt.Sprintf("unchained: its %d line(s) were written before agent-hooks chained its audit trails, so they cannot be verified", v.Unchained)
		case "unanchored":
			if v.Head == nil {
				msg = fmt.Sprintf("unanchored: nothing vouches for its %d chained line(s): the session record keeps no head, and no head is noted beside it", v.AfterHead)
			} else {
				msg = fmt.Sprintf("unanchored: %d line(s) after the last anchored head (seq %d) are not vouched for: agent-hooks notes the head with every line it appends, so they were added by something else, or its note of the head was removed, damaged or rolled back", v.AfterHead, v.Head.Seq)
			}
		case "empty":
			msg = "empty: no hook has run in this session"
		default:
			msg = fmt.Sprintf("intact: %d line(s) chained", v.Chained)
			if v.Unchained > 0 {
				msg += fmt.Sprintf(" after %d unchained line(s) written before agent-hooks chained its audit trails (not verifiable)", v.Unchained)
			}
			if v.Head != nil {
				msg += fmt.Sprintf("; the last is its anchored head (seq %d)", v.Head.Seq)
			}
		}
		fmt.Fprintf(a.Stdout, "%s: %s\n", id, msg)
	}
	if !v.OK() {
		return &cli.SilentError{Code: cli.ExitFailure}
	}
	return nil
}

// remoteTrail is the audit trail of a session as it was pushed.
func remoteTrail(rs *remote.Session) trailSource {
	return trailSource{name: rs.TrailName, open: rs.Trail}
}
