package view

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/sessions"
)

// pageCSS is the page's only style. The Content-Security-Policy admits it by its hash, and
// nothing else: no script, no style attribute, no image, font or request of any kind.
const pageCSS = `
:root { color-scheme: light dark; --deny: #d1242f; --allow: #1a7f37; --ask: #9a6700; --pass: #57606a; --grid: #d0d7de; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5rem; }
h1 { font-size: 1.3rem; margin: 0 0 .5rem; }
h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
code, td.what { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
dl.record { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: 0; }
dl.record dt { color: var(--pass); }
dl.record dd { margin: 0; overflow-wrap: anywhere; }
p.counts { margin: .75rem 0; }
svg.overview { width: 100%; height: 72px; display: block; border-bottom: 1px solid var(--grid); }
svg.overview .all { fill: var(--pass); opacity: .45; }
svg.overview .blocked { fill: var(--deny); }
div.axis { display: flex; justify-content: space-between; color: var(--pass); font-size: 12px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .2rem .5rem; border-bottom: 1px solid var(--grid); }
th { font-weight: 600; white-space: nowrap; }
td.what { overflow-wrap: anywhere; white-space: pre-wrap; max-width: 40rem; }
td.time, td.dur { white-space: nowrap; font-variant-numeric: tabular-nums; }
td.bar { width: 22%; min-width: 8rem; }
td.bar svg { width: 100%; height: 12px; display: block; }
rect.deny, rect.block { fill: var(--deny); }
rect.allow { fill: var(--allow); }
rect.ask { fill: var(--ask); }
rect.passed, rect.other { fill: var(--pass); }
tr.blocked td.decision { color: var(--deny); font-weight: 600; }
span.cont { color: var(--pass); }
`

// pageCSP is the page's Content-Security-Policy.
var pageCSP = sync.OnceValue(func() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'none'; base-uri 'none'; form-action 'none'"
})

var pageTemplate = sync.OnceValue(func() *template.Template {
	head := `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="` + pageCSP() + `">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agent-hooks session {{.ID}}</title>
<style>` + pageCSS + `</style>
</head>
<body>
<header>
<h1>agent-hooks session <code>{{.ID}}</code></h1>
<dl class="record">{{range .Record}}
<dt>{{.K}}</dt><dd>{{.V}}</dd>{{end}}
</dl>
<p class="counts" id="counts">{{.Counts}}</p>
</header>
{{if .Shown}}<section id="timeline">
<h2>Timeline</h2>
<svg class="overview" viewBox="0 0 {{.Width}} 60" preserveAspectRatio="none" role="img" aria-label="{{.Counts}}">{{range .Buckets}}
<rect class="all" x="{{.X}}" y="{{.YAll}}" width="{{.W}}" height="{{.HAll}}"/>{{if .HBlocked}}<rect class="blocked" x="{{.X}}" y="{{.YBlocked}}" width="{{.W}}" height="{{.HBlocked}}"/>{{end}}{{end}}
</svg>
<div class="axis"><span>{{.From}}</span><span>{{.To}}</span></div>
</section>
{{end}}<section>
<h2>{{.Title}}</h2>
<table id="calls">
<thead><tr><th>Time</th><th>Call</th><th>Command or path</th><th>Decision</th><th>Duration</th><th>Reason</th><th>On the timeline</th></tr></thead>
<tbody>`
	row := `{{define "row"}}
<tr class="{{.Class}}{{if .Blocked}} blocked{{end}}"><td class="time">{{.Time}}</td><td class="name">{{.Name}}{{if .Continued}} <span class="cont">(continued)</span>{{end}}</td><td class="what">{{.What}}</td><td class="decision">{{.Decision}}</td><td class="dur">{{.Duration}}</td><td class="reason">{{.Reason}}</td><td class="bar"><svg viewBox="0 0 {{.Width}} 10" preserveAspectRatio="none"><rect class="{{.Class}}" x="{{.X}}" y="1" width="{{.W}}" height="8"/></svg></td></tr>{{end}}`
	tail := `{{define "tail"}}
</tbody>
</table>
{{if .Empty}}<p id="empty">{{.Empty}}</p>
{{end}}</section>
</body>
</html>
{{end}}`
	return template.Must(template.New("page").Parse(head + row + tail))
})

// The timeline's geometry: its width in SVG units, and the columns of its overview.
const (
	timelineWidth = 1000
	buckets       = 200
)

type pageHead struct {
	ID, Counts, Title, From, To string
	Record                      []kv
	Shown                       int
	Width                       int
	Buckets                     []bucket
}

type kv struct{ K, V string }

type bucket struct {
	X, W, YAll, HAll, YBlocked, HBlocked string
}

type pageRow struct {
	Class, Time, Name, What, Decision, Duration, Reason string
	Blocked, Continued                                  bool
	Width                                               int
	X, W                                                string
}

// HTML writes the session as one self-contained page: its record, an overview of when its calls
// happened and which were blocked, and a table of its rows, each with its place on the
// session's timeline. The page has no script and fetches nothing: its Content-Security-Policy
// allows its own style and nothing else, and every string from the session is escaped as text
// (html/template). It reads the trail three times: for the counts and the span, for the
// overview, and for the rows.
func HTML(w io.Writer, sess *sessions.Session, t Trail, opt Options) error {
	st, err := stats(t, opt)
	if err != nil {
		return err
	}
	from, to := span(sess, st)
	ax := axis{from: from, length: to.Sub(from)}
	counts := make([][2]int, buckets)
	if st.Shown > 0 {
		err = each(t, opt, nil, func(r *Row) error {
			b := min(int(float64(r.Start.Sub(from))/float64(ax.length)*buckets), buckets-1)
			b = max(b, 0)
			counts[b][0]++
			if r.Blocked {
				counts[b][1]++
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	head := pageHead{
		ID: sess.ID, Counts: countsLine(st, opt), Record: record(sess), Shown: st.Shown, Width: timelineWidth,
		From: sessTime(from), To: sessTime(to), Title: "Calls and hooks",
	}
	if opt.Blocked {
		head.Title = "Blocked calls and hooks"
	}
	peak := 1
	for _, c := range counts {
		peak = max(peak, c[0])
	}
	const height = 60.0
	for i, c := range counts {
		if c[0] == 0 {
			continue
		}
		hAll := max(height*float64(c[0])/float64(peak), 2)
		b := bucket{
			X: num(float64(i) * timelineWidth / buckets), W: num(timelineWidth/buckets - 1),
			YAll: num(height - hAll), HAll: num(hAll),
		}
		if c[1] > 0 {
			hb := max(height*float64(c[1])/float64(peak), 2)
			b.YBlocked, b.HBlocked = num(height-hb), num(hb)
		}
		head.Buckets = append(head.Buckets, b)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	tmpl := pageTemplate()
	if err := tmpl.ExecuteTemplate(bw, "page", head); err != nil {
		return fmt.Errorf("write the page: %w", err)
	}
	days := from.UTC().YearDay() != to.UTC().YearDay() || from.Year() != to.Year()
	if st.Shown > 0 {
		err = each(t, opt, nil, func(r *Row) error {
			x, wd := ax.place(r)
			pr := pageRow{
				Class: decisionClass(r.Decision), Time: clock(r.Start, days), Name: Printable(r.Name()),
				What: Printable(r.What()), Decision: Printable(r.Decision), Duration: Duration(r.Duration()),
				Reason: Printable(r.Reason), Blocked: r.Blocked, Continued: r.Continued,
				Width: timelineWidth, X: num(x), W: num(wd),
			}
			return tmpl.ExecuteTemplate(bw, "row", pr)
		})
		if err != nil {
			return err
		}
	}
	var tail struct{ Empty string }
	if st.Shown == 0 {
		tail.Empty = "No tool call or hook has run in this session."
		if opt.Blocked {
			tail.Empty = "Nothing was blocked in this session."
		}
	}
	if err := tmpl.ExecuteTemplate(bw, "tail", tail); err != nil {
		return fmt.Errorf("write the page: %w", err)
	}
	return bw.Flush()
}

// axis places rows on the session's timeline.
type axis struct {
	from   time.Time
	length time.Duration
}

// place is a row's x and width on a timeline timelineWidth wide; a call too short to see is
// drawn a few units wide.
func (a axis) place(r *Row) (x, width float64) {
	x = float64(r.Start.Sub(a.from)) / float64(a.length) * timelineWidth
	width = float64(r.Duration()) / float64(a.length) * timelineWidth
	x = min(max(x, 0), timelineWidth-6)
	return x, min(max(width, 6), timelineWidth-x)
}

// span is the stretch of time the session's views cover: from its start (or its first row) to
// its end (or its last row), at least a millisecond.
func span(sess *sessions.Session, st Stats) (from, to time.Time) {
	from, to = sess.StartTime, sess.EndTime
	if !st.First.IsZero() && (from.IsZero() || st.First.Before(from)) {
		from = st.First
	}
	if st.Last.After(to) {
		to = st.Last
	}
	if from.IsZero() {
		from = to
	}
	if to.Sub(from) < time.Millisecond {
		to = from.Add(time.Millisecond)
	}
	return from, to
}

// record is the session record's fields a page shows.
func record(s *sessions.Session) []kv {
	var out []kv
	add := func(k, v string) {
		if v != "" {
			out = append(out, kv{k, Printable(v)})
		}
	}
	add("name", s.Name)
	add("status", string(s.Status))
	add("agent", strings.TrimSpace(s.Agent+" "+s.AgentSessionID))
	add("workspace", s.Workspace)
	add("started", sessTime(s.StartTime))
	if !s.EndTime.IsZero() {
		add("ended", sessTime(s.EndTime))
		add("duration", Duration(s.EndTime.Sub(s.StartTime)))
	}
	add("git", strings.TrimSpace(s.Metadata.GitBranch+" "+short(s.Metadata.GitCommit)))
	return out
}

// countsLine says what the session holds, in a sentence.
func countsLine(st Stats, opt Options) string {
	s := plural(st.Calls, "tool call", "tool calls") + ", " + strconv.Itoa(st.Blocked) + " blocked"
	if st.Hooks > 0 {
		s += "; " + plural(st.Hooks, "hook run", "hook runs") + " outside tool calls"
	}
	if opt.Blocked {
		s += "; showing the " + strconv.Itoa(st.Shown) + " blocked"
	}
	return s + "."
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// decisionClass is the style of a decision: one of a fixed set, whatever the trail says.
func decisionClass(d string) string {
	switch d {
	case "deny", "block", "allow", "ask", "passed":
		return d
	}
	return "other"
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func sessTime(t time.Time) string { return string(appendTime(nil, t)) }

// clock is a row's time in a page: the time of day (UTC), with the date when the session spans
// more than one day.
func clock(t time.Time, days bool) string {
	if days {
		return t.UTC().Format("2006-01-02 15:04:05Z")
	}
	return t.UTC().Format("15:04:05.000")
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
