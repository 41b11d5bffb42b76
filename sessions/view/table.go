package view

import (
	"bufio"
	"io"
	"time"
	"unicode/utf8"
)

// TableHeader is the header of Table's columns.
var TableHeader = [...]string{"TIME", "CALL", "COMMAND OR PATH", "DECISION", "DURATION", "REASON"}

// The widths past which Table cuts a cell (runes).
const (
	maxNameCell = 32
	maxWhatCell = 72
)

// Table writes the rows as a text table, one line each, columns two spaces apart (as
// text/tabwriter lays them out), the reason last and not cut. It reads the trail twice, holding
// one row at a time: the first pass measures the columns, the second prints.
func Table(w io.Writer, t Trail, opt Options) error {
	var width [len(TableHeader) - 1]int
	for i := range width {
		width[i] = utf8.RuneCountInString(TableHeader[i])
	}
	var cells [len(TableHeader)]string
	rows := 0
	err := each(t, opt, opt.Problem, func(r *Row) error {
		rows++
		tableCells(r, &cells)
		for i := range width {
			width[i] = max(width[i], utf8.RuneCountInString(cells[i]))
		}
		return nil
	})
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if rows == 0 {
		msg := "no tool call or hook has run in this session"
		if opt.Blocked {
			msg = "nothing was blocked in this session"
		}
		bw.WriteString(msg + "\n")
		return bw.Flush()
	}
	var line []byte
	write := func(cells []string) {
		line = line[:0]
		for i, c := range cells[:len(cells)-1] {
			line = append(line, c...)
			for pad := width[i] - utf8.RuneCountInString(c) + 2; pad > 0; pad-- {
				line = append(line, ' ')
			}
		}
		line = append(line, cells[len(cells)-1]...)
		line = append(line, '\n')
		_, _ = bw.Write(line)
	}
	write(TableHeader[:])
	err = each(t, opt, nil, func(r *Row) error {
		tableCells(r, &cells)
		write(cells[:])
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

func tableCells(r *Row, cells *[len(TableHeader)]string) {
	cells[0] = string(appendTime(nil, r.Start))
	name := r.Name()
	if r.Continued {
		name += " (cont.)"
	}
	cells[1] = clipRunes(Printable(name), maxNameCell)
	cells[2] = dash(clipRunes(Printable(r.What()), maxWhatCell))
	cells[3] = dash(Printable(r.Decision))
	cells[4] = Duration(r.Duration())
	cells[5] = Printable(r.Reason)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// appendTime appends t as the tables of session show print times: 2006-01-02 15:04:05Z, in UTC.
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, '-')
	}
	return t.UTC().AppendFormat(b, "2006-01-02 15:04:05Z")
}
