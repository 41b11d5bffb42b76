// Package progress shows how a long wait is going (an approval nobody has decided yet, a push)
// on a person's terminal, and nothing anywhere else. It is the one owner of "is standard error a
// terminal, and how is a wait drawn there": the programs decide once (ForStderr) and hand the
// Reporter down; the packages that wait (approval providers, git-push) only report to it, and
// never ask whether they are on a terminal.
//
// On a terminal a wait is one status line, redrawn in place ("\r", then erase to the end of the
// line) once a second: how long it has waited, where to act (the pull request's comment, the
// command that approves, the callback's URL) and its latest detail. In place rather than a new
// line every so often, because a terminal is the only place it is drawn: a person watching sees
// the time move without the wait filling the scrollback, and when the wait ends its line is
// erased, leaving only what the wait printed for good (its one line before, its result after).
// Anywhere else (a CI log, a file, an agent reading a hook's stderr) there is no Reporter at all
// and nothing extra is written.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// Reporter is where a wait reports its progress. A nil Reporter reports nothing (see Start).
type Reporter interface {
	// Begin starts the status of one wait: what is waited for ("approval 7f3a…", "push to
	// origin") and where a person acts on it ("" for nowhere).
	Begin(what, where string) Task
}

// Task is one wait's status.
type Task interface {
	// Detail sets the wait's latest detail ("2 of 3 approvals", "12 objects"); "" for none.
	Detail(detail string)
	// Done ends the wait's status: its line is erased. Calling it again does nothing.
	Done()
}

// Start begins a wait's status on r; with a nil r it returns a Task that does nothing, so that
// the waiting code needs no check of its own.
func Start(r Reporter, what, where string) Task {
	if r == nil {
		return nop{}
	}
	return r.Begin(what, where)
}

type nop struct{}

func (nop) Detail(string) {}
func (nop) Done()         {}

// ForStderr is the Reporter of a process whose standard error is w: a Terminal drawing on w when
// w is a terminal that can erase a line (TERM is not "dumb"), else nil: no progress at all. A
// command whose standard error is read by a program (agent-hooks hook <agent>: the agent reads
// it) must not be handed one, whatever this says. stderr is what the process writes its standard
// error through from then on: the Terminal, which erases a status line before anything else is
// written under it (w itself when there is no Terminal).
func ForStderr(w io.Writer, getenv func(string) string) (r Reporter, stderr io.Writer) {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(int(f.Fd())) || getenv("TERM") == "dumb" {
		return nil, w
	}
	fd := int(f.Fd())
	t := NewTerminal(w, WithWidth(func() int {
		if cols, _, err := term.GetSize(fd); err == nil {
			return cols
		}
		return 0
	}))
	return t, t
}

// Interval is how often a Terminal redraws its line: often enough that the time waited moves,
// seldom enough to cost nothing (a wait is minutes or hours).
const Interval = time.Second

// Terminal draws the waits in progress as one status line on a terminal.
type Terminal struct {
	w      io.Writer
	now    func() time.Time
	ticker func(time.Duration) (<-chan time.Time, func())
	width  func() int

	mu    sync.Mutex
	tasks []*task
	drawn bool   // a status line is on the screen
	stop  func() // stops the redraws; nil when none run
}

// Option configures a Terminal.
type Option func(*Terminal)

// WithClock sets the clock the time waited is read from (default time.Now).
func WithClock(now func() time.Time) Option { return func(t *Terminal) { t.now = now } }

// WithTicker sets what starts the redraws: a channel that ticks every d, and its stop (default
// a time.Ticker).
func WithTicker(ticker func(d time.Duration) (<-chan time.Time, func())) Option {
	return func(t *Terminal) { t.ticker = ticker }
}

// WithWidth sets how wide the terminal is (0 when unknown): a line is cut to fit, since a line
// that wraps is not erased by "\r".
func WithWidth(width func() int) Option { return func(t *Terminal) { t.width = width } }

// NewTerminal returns a Terminal drawing on w, which must be a terminal.
func NewTerminal(w io.Writer, opts ...Option) *Terminal {
	t := &Terminal{w: w, now: time.Now, width: func() int { return 0 }}
	t.ticker = func(d time.Duration) (<-chan time.Time, func()) {
		tk := time.NewTicker(d)
		return tk.C, tk.Stop
	}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Begin implements Reporter: the line is drawn at once and then every Interval until the task
// is done.
func (t *Terminal) Begin(what, where string) Task {
	k := &task{t: t, what: clean(what), where: clean(where), start: t.now()}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tasks = append(t.tasks, k)
	if t.stop == nil {
		c, stop := t.ticker(Interval)
		done := make(chan struct{})
		t.stop = func() { stop(); close(done) }
		go t.loop(c, done)
	}
	t.drawLocked()
	return k
}

func (t *Terminal) loop(c <-chan time.Time, done <-chan struct{}) {
	for {
		select {
		case <-c:
			t.mu.Lock()
			if len(t.tasks) > 0 {
				t.drawLocked()
			}
			t.mu.Unlock()
		case <-done:
			return
		}
	}
}

// Write writes p to the terminal, the status line erased first (it is drawn again at the next
// redraw), so that what a hook or agent-hooks prints while a wait goes on is not glued to it.
func (t *Terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.eraseLocked()
	return t.w.Write(p)
}

// drawLocked draws the status line; the caller holds mu.
func (t *Terminal) drawLocked() {
	now := t.now()
	parts := make([]string, 0, len(t.tasks))
	for _, k := range t.tasks {
		parts = append(parts, k.line(now))
	}
	line := "agent-hooks: " + strings.Join(parts, "; ")
	if w := t.width(); w > 1 {
		line = cut(line, w-1) // the last column would wrap on some terminals
	}
	_, _ = io.WriteString(t.w, "\r"+line+"\x1b[K")
	t.drawn = true
}

// eraseLocked erases the status line if one is drawn; the caller holds mu.
func (t *Terminal) eraseLocked() {
	if t.drawn {
		_, _ = io.WriteString(t.w, "\r\x1b[K")
		t.drawn = false
	}
}

func (t *Terminal) done(k *task) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := -1
	for j, x := range t.tasks {
		if x == k {
			i = j
		}
	}
	if i < 0 {
		return
	}
	t.tasks = append(t.tasks[:i], t.tasks[i+1:]...)
	if len(t.tasks) > 0 {
		t.drawLocked()
		return
	}
	t.eraseLocked()
	t.stop()
	t.stop = nil
}

type task struct {
	t           *Terminal
	what, where string
	start       time.Time
	detail      string // guarded by t.mu
}

func (k *task) Detail(detail string) {
	k.t.mu.Lock()
	defer k.t.mu.Unlock()
	k.detail = clean(detail)
}

func (k *task) Done() { k.t.done(k) }

// line is the task's part of the status line at now.
func (k *task) line(now time.Time) string {
	s := k.what + " · " + Elapsed(now.Sub(k.start))
	if k.detail != "" {
		s += " · " + k.detail
	}
	if k.where != "" {
		s += " · " + k.where
	}
	return s
}

// Elapsed writes a time waited as a person reads it: 9s, 1m05s, 2h03m.
func Elapsed(d time.Duration) string {
	d = max(d, 0).Truncate(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// clean keeps a status on its line: control characters (a newline, an escape sequence from a
// remote's message) become spaces.
func clean(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s))
}

// cut shortens s to at most n runes, ending in "…" when it was longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
