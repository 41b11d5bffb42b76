package progress

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// screen is a terminal's output, and a signal for every write.
type screen struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes chan struct{}
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	n, err := s.b.Write(p)
	s.mu.Unlock()
	select {
	case s.writes <- struct{}{}:
	default:
	}
	return n, err
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *screen) reset() {
	s.mu.Lock()
	s.b.Reset()
	s.mu.Unlock()
}

// fakeTicker is a ticker the test ticks; it records its interval and whether it was stopped.
type fakeTicker struct {
	c        chan time.Time
	interval time.Duration
	stopped  bool
	mu       sync.Mutex
}

func (f *fakeTicker) start(d time.Duration) (<-chan time.Time, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.interval, f.stopped = d, false
	return f.c, func() { f.mu.Lock(); f.stopped = true; f.mu.Unlock() }
}

func newTest(width int) (*Terminal, *screen, *fakeClock, *fakeTicker) {
	scr := &screen{writes: make(chan struct{}, 1)}
	clk := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	tk := &fakeTicker{c: make(chan time.Time)}
	t := NewTerminal(scr, WithClock(clk.now), WithTicker(tk.start), WithWidth(func() int { return width }))
	return t, scr, clk, tk
}

// tick ticks the terminal's ticker and waits for the redraw it causes.
func tick(t *testing.T, tk *fakeTicker, scr *screen) {
	t.Helper()
	tk.c <- time.Time{} // received by the redraw loop
	select {
	case <-scr.writes:
	case <-time.After(10 * time.Second): // a hang, not a timing: the redraw never came
		t.Fatal("no redraw after a tick")
	}
}

func TestTerminalDrawsInPlace(t *testing.T) {
	term, scr, clk, tk := newTest(0)
	task := term.Begin("approval 7f3a", "agent-hooks approvals approve 7f3a")
	if got, want := scr.String(), "\ragent-hooks: approval 7f3a · 0s · agent-hooks approvals approve 7f3a\x1b[K"; got != want {
		t.Fatalf("first draw = %q, want %q", got, want)
	}
	if tk.interval != Interval {
		t.Errorf("redraws every %s, want %s", tk.interval, Interval)
	}
	<-scr.writes // the first draw's signal
	scr.reset()
	clk.add(65 * time.Second)
	task.Detail("1 of 2 approvals")
	tick(t, tk, scr)
	if got, want := scr.String(), "\ragent-hooks: approval 7f3a · 1m05s · 1 of 2 approvals · agent-hooks approvals approve 7f3a\x1b[K"; got != want {
		t.Fatalf("redraw = %q, want %q", got, want)
	}
	scr.reset()
	task.Done()
	if got, want := scr.String(), "\r\x1b[K"; got != want {
		t.Fatalf("done = %q, want the line erased: %q", got, want)
	}
	if !tk.stopped {
		t.Error("the redraws go on with nothing to draw")
	}
	scr.reset()
	task.Done()
	if got := scr.String(); got != "" {
		t.Errorf("a second Done wrote %q", got)
	}
}

func TestTerminalTwoWaits(t *testing.T) {
	term, scr, clk, _ := newTest(0)
	a := term.Begin("push to origin", "")
	clk.add(3 * time.Second)
	b := term.Begin("approval x", "https://github.com/o/r/pull/1#issuecomment-2")
	if got, want := scr.String(), "\ragent-hooks: push to origin · 3s; approval x · 0s · https://github.com/o/r/pull/1#issuecomment-2\x1b[K"; !strings.HasSuffix(got, want) {
		t.Fatalf("got %q, want it to end in %q", got, want)
	}
	scr.reset()
	a.Done()
	if got, want := scr.String(), "\ragent-hooks: approval x · 0s · https://github.com/o/r/pull/1#issuecomment-2\x1b[K"; got != want {
		t.Fatalf("after one is done: %q, want %q", got, want)
	}
	b.Done()
}

func TestTerminalCutsToWidthAndCleans(t *testing.T) {
	term, scr, _, _ := newTest(30)
	task := term.Begin("approval\nof \x1b[31mred\x1b[0m", "")
	defer task.Done()
	got := strings.TrimSuffix(strings.TrimPrefix(scr.String(), "\r"), "\x1b[K")
	if strings.ContainsAny(got, "\n\x1b") {
		t.Errorf("a control character reached the line: %q", got)
	}
	if n := len([]rune(got)); n != 29 || !strings.HasSuffix(got, "…") {
		t.Errorf("line %q (%d runes), want it cut to 29 ending in …", got, n)
	}
}

func TestStartWithoutReporter(t *testing.T) {
	task := Start(nil, "approval", "somewhere")
	task.Detail("x")
	task.Done() // nothing to check but that nothing panics and nothing is written anywhere
}

func TestForStderrNotATerminal(t *testing.T) {
	getenv := func(string) string { return "" }
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, w := range map[string]any{"file": f, "buffer": &bytes.Buffer{}} {
		out := w.(io.Writer)
		if r, stderr := ForStderr(out, getenv); r != nil || stderr != out {
			t.Errorf("%s: a Reporter (%T) and %T for what is not a terminal", name, r, stderr)
		}
	}
}

func TestElapsed(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {-time.Second, "0s"}, {999 * time.Millisecond, "0s"}, {59 * time.Second, "59s"},
		{time.Minute, "1m00s"}, {65 * time.Second, "1m05s"}, {time.Hour + 3*time.Minute + 59*time.Second, "1h03m"},
		{50 * time.Hour, "50h00m"},
	} {
		if got := Elapsed(tt.d); got != tt.want {
			t.Errorf("Elapsed(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestTerminalWriteErasesTheStatus: what is written while a wait is shown starts on an erased
// line, and the status comes back at the next redraw.
func TestTerminalWriteErasesTheStatus(t *testing.T) {
	term, scr, _, tk := newTest(0)
	task := term.Begin("push to origin", "")
	<-scr.writes
	scr.reset()
	if _, err := term.Write([]byte("hook output\n")); err != nil {
		t.Fatal(err)
	}
	if got, want := scr.String(), "\r\x1b[Khook output\n"; got != want {
		t.Fatalf("write = %q, want %q", got, want)
	}
	<-scr.writes
	scr.reset()
	if _, err := term.Write([]byte("more\n")); err != nil {
		t.Fatal(err)
	}
	if got := scr.String(); got != "more\n" {
		t.Errorf("second write = %q, want it alone (nothing drawn to erase)", got)
	}
	<-scr.writes
	scr.reset()
	tick(t, tk, scr)
	if got := scr.String(); !strings.HasPrefix(got, "\ragent-hooks: push to origin") {
		t.Errorf("redraw = %q", got)
	}
	task.Done()
}
