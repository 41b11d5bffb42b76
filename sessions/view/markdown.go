package view

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/sessions"
)

// MarkdownOptions are Markdown's options.
type MarkdownOptions struct {
	Options
	// MaxBytes bounds the whole document (0: no bound): the rows that do not fit are counted in
	// a line at the end. A job summary takes at most 1 MiB per step.
	MaxBytes int
}

// The bounds of the Mermaid timeline: GitHub's Mermaid renders no diagram of more than 50,000
// characters, and a chart of hundreds of bars shows nothing.
const (
	maxMermaidBytes = 40_000
	maxMermaidTasks = 200
	// Cuts of the table's cells (runes).
	maxMarkdownWhat   = 100
	maxMarkdownReason = 200
)

// Markdown writes the session as GitHub-flavoured Markdown: a heading, the counts, a Mermaid
// gantt chart of the calls on the session's timeline (the first maxMermaidTasks of them, blocked
// ones marked crit), and a table of its rows. Every string from the session is escaped (every
// ASCII punctuation character, so that no cell closes early, nothing becomes a link, an image, a
// tag or emphasis), and the chart's labels keep only letters, digits and a few plain signs. It
// reads the trail twice: for the counts and the chart, and for the table.
func Markdown(w io.Writer, sess *sessions.Session, t Trail, opt MarkdownOptions) error {
	st, err := stats(t, opt.Options)
	if err != nil {
		return err
	}
	from, to := span(sess, st)
	var chart bytes.Buffer
	charted := 0
	if st.Shown > 0 {
		chart.WriteString("```mermaid\ngantt\n    dateFormat x\n    axisFormat %H:%M:%S\n")
		section := ""
		minLen := max(to.Sub(from)/200, time.Millisecond)
		err = each(t, opt.Options, nil, func(r *Row) error {
			if charted >= maxMermaidTasks || chart.Len() > maxMermaidBytes {
				return nil
			}
			if name := mermaidText(r.Name(), 30); name != section || charted == 0 {
				section = name
				chart.WriteString("    section " + name + "\n")
			}
			label := mermaidText(r.What(), 40)
			if label == "" {
				label = section
			}
			tag := "done, "
			switch {
			case r.Blocked:
				tag = "crit, "
			case r.Decision == "ask":
				tag = "active, "
			}
			end := r.Start.Add(max(r.Duration(), minLen))
			charted++
			chart.WriteString("    " + label + " :" + tag + "c" + strconv.Itoa(charted) + ", " +
				strconv.FormatInt(r.Start.UnixMilli(), 10) + ", " + strconv.FormatInt(end.UnixMilli(), 10) + "\n")
			return nil
		})
		if err != nil {
			return err
		}
		chart.WriteString("```\n")
	}

	bw := bufio.NewWriterSize(w, 64<<10)
	var cw countWriter
	out := io.MultiWriter(bw, &cw)
	title := "agent-hooks session `" + sess.ID + "`"
	var about []string
	if sess.Name != "" {
		about = append(about, escapeMarkdown(sess.Name))
	}
	if sess.Agent != "" {
		about = append(about, escapeMarkdown(sess.Agent))
	}
	about = append(about, escapeMarkdown(string(sess.Status)))
	io.WriteString(out, "### "+title+" ("+strings.Join(about, ", ")+")\n\n")
	// Our own words and numbers, nothing Markdown reads as its syntax: not escaped.
	io.WriteString(out, countsLine(st, opt.Options)+" From "+sessTime(from)+" to "+sessTime(to)+".\n\n")
	if st.Shown == 0 {
		_, err := io.WriteString(out, "Nothing to show.\n")
		if err == nil {
			err = bw.Flush()
		}
		return err
	}
	out.Write(chart.Bytes())
	if charted < st.Shown {
		io.WriteString(out, "\nThe chart shows the first "+strconv.Itoa(charted)+" of "+strconv.Itoa(st.Shown)+" rows.\n")
	}
	io.WriteString(out, "\n| Time | Call | Command or path | Decision | Duration | Reason |\n| --- | --- | --- | --- | --- | --- |\n")
	days := from.UTC().YearDay() != to.UTC().YearDay() || from.Year() != to.Year()
	written, left := 0, 0
	const reserve = 256 // the closing line
	var line strings.Builder
	err = each(t, opt.Options, nil, func(r *Row) error {
		if left > 0 {
			left++
			return nil
		}
		line.Reset()
		name := r.Name()
		if r.Continued {
			name += " (continued)"
		}
		// The time and the duration are ours (digits, ':' and '.'); the rest is escaped.
		cells := []string{
			clock(r.Start, days), escapeMarkdown(clipRunes(Printable(name), maxNameCell)),
			escapeMarkdown(clipRunes(Printable(r.What()), maxMarkdownWhat)), escapeMarkdown(Printable(r.Decision)),
			Duration(r.Duration()), escapeMarkdown(clipRunes(Printable(r.Reason), maxMarkdownReason)),
		}
		line.WriteString("|")
		for _, c := range cells {
			line.WriteString(" " + c + " |")
		}
		line.WriteString("\n")
		if opt.MaxBytes > 0 && cw.n+line.Len()+reserve > opt.MaxBytes {
			left = 1
			return nil
		}
		written++
		_, err := io.WriteString(out, line.String())
		return err
	})
	if err != nil {
		return err
	}
	if left > 0 {
		io.WriteString(out, "\n"+strconv.Itoa(left)+" more rows are not shown here: `agent-hooks session show "+sess.ID+"` shows them all.\n")
	}
	return bw.Flush()
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

// escapeMarkdown escapes every ASCII punctuation character of s with a backslash (which GFM
// reads as the character itself, in a table cell too), so that s shows as the text it is.
func escapeMarkdown(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		if r < 0x80 && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mermaidText is s as a label of the Mermaid chart: letters, digits, spaces and . _ / = + @ -
// kept, anything else a space, spaces collapsed, at most n runes. Mermaid reads ':' , ';', '#'
// and '%' as its own syntax, and a label is never parsed as anything else.
func mermaidText(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/=+@-", r)
		if !ok {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) > n { // all ASCII
		out = strings.TrimRight(out[:n-3], " ") + "..."
	}
	return out
}
