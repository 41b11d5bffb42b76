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

// trailCells are the cells of one event's row, but the last (the reason), which is not padded.
// What the trail holds may come from the agent (a path in a rule's reason): it is shown as
// text (view.Printable), no escape sequence reaching the terminal.
func trailCells(e *sessions.Event, cells *[len(trailHeader) - 1]string) {
	cells[0] = sessTime(e.Time)
	cells[1], cells[2], cells[3], cells[4] = view.Printable(e.Event), view.Printable(e.Name), view.Printable(e.Source), view.Printable(e.Status)
	cells[5] = strconv.Itoa(e.ExitCode)
	cells[6] = strconv.FormatInt(e.DurationMs, 10)
	cells[7] = sessDash(view.Printable(e.Decision))
}

// printTrail prints the trail as a table in two passes over the source, holding one line at a
// time: the first measures the columns (and reports the lines it skips), the second prints. It
// lays the table out as text/tabwriter would (two spaces between columns), which needs every row
// before the first is printed. With blocked, only the lines that refused their event.
func printTrail(w io.Writer, src trailSource, blocked bool, problem func(error)) error {
	keep := func(e *sessions.Event) bool {
		return !blocked || e.Status == "blocked" || e.Status == "refused" || e.Decision == "block" || e.Decision == "deny"
	}
	var width [len(trailHeader) - 1]int
	for i := range width {
		width[i] = utf8.RuneCountInString(trailHeader[i])
	}
	var cells [len(trailHeader) - 1]string
	rows := 0
	err := src.each(false, func(_ int, e *sessions.Event, _ []byte) error {
		if !keep(e) {
			return nil
		}
		rows++
		trailCells(e, &cells)
		for i, c := range cells {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
		return nil
	}, problem)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if rows == 0 {
		msg := "no hook has run in this session"
		if blocked {
			msg = "nothing was blocked in this session"
		}
		fmt.Fprintln(bw, msg)
		return bw.Flush()
	}
	var row []byte
	writeRow := func(cells []string, last string) {
		row = row[:0]
		for i, c := range cells {
			row = append(row, c...)
			for pad := width[i] - utf8.RuneCountInString(c) + 2; pad > 0; pad-- {
				row = append(row, ' ')
			}
		}
		row = append(row, last...)
		row = append(row, '\n')
		_, _ = bw.Write(row)
	}
	writeRow(trailHeader[:len(trailHeader)-1], trailHeader[len(trailHeader)-1])
	err = src.each(false, func(_ int, e *sessions.Event, _ []byte) error {
		if !keep(e) {
			return nil
		}
		trailCells(e, &cells)
		writeRow(cells[:], view.Printable(sessLine(e.Reason)))
		return nil
	}, nil)
	if err != nil {
		return err
	}
	return bw.Flush()
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
