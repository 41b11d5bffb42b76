// Package view is how people read a session: its audit trail as one row per agent tool call
// (every line that carries the call's toolUseId: its hooks, the agent's answer, the hooks after
// the tool ran), and one row per hook run for what is not a tool call (the events of `run`), as
// a text table, a self-contained HTML page with a timeline, or GitHub-flavoured Markdown with a
// Mermaid timeline.
//
// A trail is read line by line, in as many passes as a view needs, in bounded memory whatever
// its length: a call's lines are close together in a trail, so a call is held only until the
// trail has gone on for a while without it (or too many calls are held at once), then shown; a
// line of it that comes later still is shown as a row of its own, marked as continuing it.
//
// What an agent put in a call (its commands, its paths) is hostile: every renderer shows it as
// text, with control and bidirectional-formatting characters written as visible escapes.
package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/autoagent/agent-hooks/sessions"
	"github.com/autoagent/agent-hooks/toolcall"
)

// Trail is a session's audit trail, opened once per pass of a view.
type Trail struct {
	Name string // for messages: the file, or the ref of a pushed session
	Open func() (io.ReadCloser, error)
}

// Options are what every view takes.
type Options struct {
	// Blocked keeps only the rows of calls and hooks that were refused (Row.Blocked).
	Blocked bool
	// Problem is handed the lines that are not events (a torn line), on the first pass only;
	// nil ignores them.
	Problem func(error)
}

// Row is one row of a view: one agent tool call, or one trail line that is not part of one.
type Row struct {
	// Start is when its first hook started (the line's time less its duration), End when its last
	// line was written. For a call that ran, End is after its PostToolUse hooks when there are
	// any: the row spans the tool's own run.
	Start, End time.Time
	// Event is the event of its first line (PreToolUse for most calls).
	Event string
	// ToolUseID is the agent's id of the call; "" for a row that is not a call.
	ToolUseID string
	// Agent is the agent that asked (claude, codex, …); Tool its tool (Bash, Write, …) and Kind
	// the kind of call (toolcall.KindShell, …), "" when the trail does not say.
	Agent, Tool, Kind string
	// Target is what the call runs or touches: the simple commands of a shell call (redacted as
	// the trail keeps them), else its paths, else its URL. "" when the trail does not say.
	Target string
	// Hook is the hook of a row that is not a call.
	Hook string
	// Decision is a call's answer to the agent: deny, allow, ask, or passed (no hook decided:
	// the agent's own permissions apply); block when only hooks said so; "" when the trail does
	// not say. For a hook row: its decision, else its status (ok, skipped, error, …).
	Decision string
	// Reason is why, on one line.
	Reason string
	// Lines is how many trail lines the row stands for.
	Lines int
	// Blocked says the call was refused (deny, block, a refusal), or the hook blocked.
	Blocked bool
	// Continued says the row holds lines of a call already shown in an earlier row, that came
	// too long after it (its PostToolUse after a long run).
	Continued bool
}

// Call reports whether the row is an agent's tool call.
func (r *Row) Call() bool { return r.ToolUseID != "" }

// Duration is End less Start.
func (r *Row) Duration() time.Duration { return max(r.End.Sub(r.Start), 0) }

// Name is what the row is about in a word: the call's tool, else its event.
func (r *Row) Name() string {
	switch {
	case r.Call() && r.Tool != "":
		return r.Tool
	case r.Call():
		return "tool call"
	}
	return r.Event
}

// What is the row's object: the call's command or paths; "hook NAME" for a hook row.
func (r *Row) What() string {
	if r.Call() {
		return r.Target
	}
	return "hook " + r.Hook
}

// The bounds of what is held while grouping, and of what a row keeps of a string.
const (
	maxHeld    = 512  // calls held at once, waiting for more of their lines
	heldLines  = 512  // lines a call is waited for after its last one
	maxRecent  = 1024 // calls shown, remembered to mark their late lines as continuing them
	maxText    = 2000 // bytes a row keeps of a target or a reason
	recentText = 200  // bytes of a shown call's target remembered for its continuation
)

// Each reads the trail once and calls fn with its rows in the order of their first lines.
// The row is valid only during the call. With opt.Blocked only blocked rows are handed over.
func Each(t Trail, opt Options, fn func(*Row) error) error {
	return each(t, opt, opt.Problem, fn)
}

func each(t Trail, opt Options, problem func(error), fn func(*Row) error) error {
	r, err := t.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	g := newGrouper(func(row *Row) error {
		if opt.Blocked && !row.Blocked {
			return nil
		}
		return fn(row)
	})
	err = sessions.EachEvent(r, t.Name, false, func(_ int, e *sessions.Event, line []byte) error {
		return g.add(e, line)
	}, problem)
	if err != nil {
		return err
	}
	return g.flush(true)
}

// held is a row being grouped.
type held struct {
	row    Row
	last   int  // the number of the last line it took
	closed bool // complete: a row that is not a call
	asked  bool // an agent's answer to the call (with its shape) was seen
	denied bool // one of those answers was a deny

	hookBlocked bool   // a hook (or agent-hooks) refused the call
	blockReason string // the first such refusal's reason
	errReason   string // the first hook that failed, and why
}

// grouper groups trail lines into rows (see the package doc).
type grouper struct {
	queue  []*held // rows not yet shown, in the order of their first lines
	byID   map[string]*held
	recent map[string]recentCall
	ring   []string // the ids in recent, oldest first
	lines  int
	emit   func(*Row) error
}

type recentCall struct{ agent, tool, kind, target string }

func newGrouper(emit func(*Row) error) *grouper {
	return &grouper{byID: map[string]*held{}, recent: map[string]recentCall{}, emit: emit}
}

func (g *grouper) add(e *sessions.Event, line []byte) error {
	g.lines++
	if e.ToolUseID == "" {
		h := &held{closed: true, last: g.lines}
		h.row = Row{Event: e.Event, Hook: e.Name, Lines: 1}
		h.row.Start, h.row.End = lineSpan(e)
		h.row.Decision = e.Decision
		if h.row.Decision == "" {
			h.row.Decision = e.Status
		}
		h.row.Reason = oneLine(e.Reason)
		h.row.Blocked = blocks(e)
		g.queue = append(g.queue, h)
		return g.flush(false)
	}
	h := g.byID[e.ToolUseID]
	if h == nil {
		h = &held{}
		h.row = Row{Event: e.Event, ToolUseID: e.ToolUseID}
		if rc, ok := g.recent[e.ToolUseID]; ok {
			h.row.Continued = true
			h.row.Agent, h.row.Tool, h.row.Kind, h.row.Target = rc.agent, rc.tool, rc.kind, rc.target
		}
		g.byID[e.ToolUseID] = h
		g.queue = append(g.queue, h)
	}
	h.last = g.lines
	h.take(e, line)
	return g.flush(false)
}

// flush shows the rows at the head of the queue that are complete, or waited for long enough,
// or all of them (at the end of the trail).
func (g *grouper) flush(all bool) error {
	for len(g.queue) > 0 {
		h := g.queue[0]
		if !all && !h.closed && g.lines-h.last <= heldLines && len(g.queue) <= maxHeld {
			return nil
		}
		g.queue[0] = nil
		g.queue = g.queue[1:]
		if h.row.Call() {
			delete(g.byID, h.row.ToolUseID)
			g.remember(h)
		}
		h.finish()
		if err := g.emit(&h.row); err != nil {
			return err
		}
	}
	return nil
}

func (g *grouper) remember(h *held) {
	id := h.row.ToolUseID
	if _, ok := g.recent[id]; !ok {
		if len(g.ring) >= maxRecent {
			delete(g.recent, g.ring[0])
			g.ring = g.ring[1:]
		}
		g.ring = append(g.ring, id)
	}
	g.recent[id] = recentCall{h.row.Agent, h.row.Tool, h.row.Kind, clip(h.row.Target, recentText)}
}

// take adds one line of the call to its row.
func (h *held) take(e *sessions.Event, line []byte) {
	r := &h.row
	start, end := lineSpan(e)
	if r.Lines == 0 || start.Before(r.Start) {
		r.Start = start
	}
	if end.After(r.End) {
		r.End = end
	}
	r.Lines++
	if e.Type == "agent" {
		if call := callOf(line); call != nil {
			// The agent's answer to the call, with its shape (PreToolUse, PermissionRequest): a
			// deny is final, else the last answer counts.
			r.Agent = e.Name
			if call.Tool != "" {
				r.Tool = call.Tool
			}
			r.Kind, r.Target = call.Kind, clip(target(call), maxText)
			if !h.denied {
				r.Decision, r.Reason = e.Decision, oneLine(e.Reason)
			}
			h.asked = true
			h.denied = h.denied || e.Decision == "deny" || e.Decision == "block"
			return
		}
	}
	switch {
	case h.asked:
		// After the answer: the hooks of the tool's result (PostToolUse), which decide nothing
		// about the call.
	case blocks(e):
		if !h.hookBlocked {
			h.hookBlocked, h.blockReason = true, oneLine(e.Reason)
		}
	case h.errReason == "" && (e.Status == "error" || e.Status == "timeout"):
		h.errReason = oneLine(e.Name + " " + e.Status + ": " + e.Reason)
	}
}

// finish settles a call's row from its lines: the agent's answer when there is one, else what
// its hooks did.
func (h *held) finish() {
	r := &h.row
	if !r.Call() {
		return
	}
	switch {
	case h.asked:
		r.Blocked = h.denied
		if r.Decision == "" {
			r.Decision = "passed"
		}
	case h.hookBlocked:
		r.Blocked, r.Decision, r.Reason = true, "block", h.blockReason
	}
	if r.Reason == "" && !r.Blocked {
		r.Reason = h.errReason
	}
}

// blocks reports whether a line refused its event (a block, a deny, a refusal).
func blocks(e *sessions.Event) bool {
	switch e.Status {
	case "blocked", "refused":
		return true
	}
	return e.Decision == "block" || e.Decision == "deny"
}

// lineSpan is when a line's hook started and finished.
func lineSpan(e *sessions.Event) (start, end time.Time) {
	return e.Time.Add(-time.Duration(e.DurationMs) * time.Millisecond), e.Time
}

// callOf reads the normalized call an agent's line carries in details.call (nil for none). The
// details object is the last of a line as agent-hooks writes it: that alone is decoded, else the
// whole line.
func callOf(line []byte) *toolcall.Call {
	var details struct {
		Call *toolcall.Call `json:"call"`
	}
	// A key cannot appear unescaped inside a string value: the first "details": is a key, at the
	// top level in the lines agent-hooks writes (no object comes before it).
	if i := bytes.Index(line, []byte(`"details":`)); i >= 0 {
		rest := bytes.TrimSpace(line[i+len(`"details":`):])
		if obj, ok := bytes.CutSuffix(rest, []byte("}")); ok && json.Unmarshal(obj, &details) == nil {
			return details.Call
		}
	}
	var doc struct {
		Details *struct {
			Call *toolcall.Call `json:"call"`
		} `json:"details"`
	}
	if json.Unmarshal(line, &doc) != nil || doc.Details == nil {
		return nil
	}
	return doc.Details.Call
}

// target is what a call runs or touches, in one line: the simple commands of a shell call as a
// shell would read them, a wrapper's command after it (sudo rm …), the commands of scripts and
// substitutions left inside the words that hold them; else its paths; else its URL.
func target(c *toolcall.Call) string {
	if len(c.Commands) > 0 {
		var parts []string
		for i := 0; i < len(c.Commands); i++ {
			cmd := c.Commands[i]
			if cmd.Via != "" {
				continue
			}
			s := commandText(cmd)
			// A wrapper (sudo, xargs, timeout, …) is its own command, and what it runs the next
			// one, reached through it.
			for i+1 < len(c.Commands) && c.Commands[i+1].Via == cmd.Program() && cmd.Program() != "" {
				i++
				s += " " + commandText(c.Commands[i])
			}
			parts = append(parts, s)
		}
		if len(parts) > 0 {
			return strings.Join(parts, " ; ")
		}
	}
	var paths []string
	for _, list := range [][]string{c.Writes, c.Reads, c.Names} {
		for _, p := range list {
			paths = append(paths, shellWord(p, false))
		}
		if len(paths) > 0 {
			break
		}
	}
	if len(paths) > 0 {
		return strings.Join(paths, " ")
	}
	return c.URL
}

func commandText(c toolcall.Command) string {
	words := make([]string, len(c.Argv))
	for i, w := range c.Argv {
		words[i] = shellWord(w, c.IsDynamic(i))
	}
	s := strings.Join(words, " ")
	if c.MoreArgs {
		s += " …"
	}
	return s
}

// shellWord quotes a word as a shell would need it; a word named by an expansion is its source.
func shellWord(w string, dynamic bool) string {
	if dynamic {
		return w
	}
	if w == "" {
		return "''"
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@%+=:,./_-*", c)) {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}

// oneLine is s on one line: its lines trimmed and joined by "; ", cut to maxText.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "\r\n") {
		var parts []string
		for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		s = strings.Join(parts, "; ")
	}
	return clip(s, maxText)
}

// clip cuts s to at most n bytes, at a rune boundary, with "…" at the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// clipRunes cuts s to at most n runes, with "…" at the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n-1 {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// Printable is s with what would not show as itself written as an escape: control characters
// (\x1b, \n, \t), and the invisible characters that change how text around them shows
// (bidirectional overrides and isolates, zero-width characters: \u202e). A terminal then runs
// no escape sequence an agent wrote, and no page shows a command other than the one recorded.
// Invalid UTF-8 shows as \xNN.
func Printable(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		// Printable ASCII shows as itself: most of what is printed, checked a byte at a time.
		if c := s[i]; c < 0x20 || c >= 0x7f {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	clean := true
	for _, r := range s {
		if hidden(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && hidden(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			b.WriteString(strconv.QuoteRuneToASCII(r)[1 : len(strconv.QuoteRuneToASCII(r))-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// hidden reports whether r does not show as itself: a control character, or a format character
// that moves or hides the text around it.
func hidden(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069,
		r == 0xfeff, r == 0x061c, r == 0x00ad:
		return true
	}
	return false
}

// Duration is d as a view shows it: 12ms, 1.5s, 2m5s.
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return d.Round(time.Second).String()
}

// Stats is what a first pass over the trail learns for the views that need it before they show
// a row.
type Stats struct {
	Calls, Blocked, Hooks int       // calls, blocked rows, hook rows (all of them, whatever the filter)
	Shown                 int       // rows the filter keeps
	First, Last           time.Time // the earliest start and the latest end of the rows shown
}

// stats reads the trail once for its Stats, reporting its problems.
func stats(t Trail, opt Options) (Stats, error) {
	var st Stats
	err := each(t, Options{}, opt.Problem, func(r *Row) error {
		if r.Call() {
			st.Calls++
		} else {
			st.Hooks++
		}
		if r.Blocked {
			st.Blocked++
		}
		if opt.Blocked && !r.Blocked {
			return nil
		}
		st.Shown++
		if st.First.IsZero() || r.Start.Before(st.First) {
			st.First = r.Start
		}
		if r.End.After(st.Last) {
			st.Last = r.End
		}
		return nil
	})
	return st, err
}
