//go:build linux

package approval

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/autoagent/agent-hooks/hooks"
)

// openPTY gives the provider a real terminal: the pty's tty end is the person's terminal and the
// test types into and reads from its master end. Both ends are made non-blocking so that closing
// them at the end of the test ends the reads on them.
func openPTY(t *testing.T) (master, tty *os.File, screen *syncBuffer) {
	t.Helper()
	m, s, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	if !IsTerminal(s) || IsTerminal(strings.NewReader("y\n")) {
		t.Error("IsTerminal does not tell a tty from a reader")
	}
	master, tty = pollable(t, m), pollable(t, s)
	screen = &syncBuffer{}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(screen, master)
	}()
	t.Cleanup(func() {
		tty.Close()
		master.Close()
		<-copied
	})
	return master, tty, screen
}

func pollable(t *testing.T, f *os.File) *os.File {
	t.Helper()
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fd), f.Name())
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLocalTerminal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		typed      []string // lines typed once the question is on the screen
		wantStatus hooks.Status
		wantReason string
		wantScreen []string
	}{
		{"yes with a reason", []string{"y looks good"}, hooks.StatusOK, "approved by ann: looks good", nil},
		{"yes", []string{"YES"}, hooks.StatusOK, "approved by ann", nil},
		{"no, then the reason", []string{"maybe", "n", "the tests are red"}, hooks.StatusBlocked, "rejected by ann: the tests are red",
			[]string{"Please answer y or n", "Reason for rejecting (the agent sees it): "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			master, tty, screen := openPTY(t)
			l := NewLocal(LocalOptions{Dir: t.TempDir(), Terminal: &Terminal{In: tty, Out: tty}, User: "ann", PollInterval: 10 * time.Millisecond})
			r, h := localRunner(t, l, time.Minute, `{"message": "Deploy {{service}} to production?\nDiff: {{diffUrl}}"}`)
			done := runAsync(context.Background(), r, localInvocation(h, hooks.Payload{"service": "api", "diffUrl": "https://x.test/d?a=1&b=$(id)"}, io.Discard))
			waitFor(t, "the question", func() bool { return strings.Contains(screen.String(), "Approve? [y/n") })
			for _, line := range tt.typed {
				if _, err := io.WriteString(master, line+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			out := <-done
			if out.Status != tt.wantStatus || out.Reason != tt.wantReason {
				t.Errorf("outcome: got %s %q, want %s %q", out.Status, out.Reason, tt.wantStatus, tt.wantReason)
			}
			if out.Details["via"] != "terminal" {
				t.Errorf("details: %v", out.Details)
			}
			want := append([]string{"Deploy api to production?\r\nDiff: https://x.test/d?a=1&b=$(id)\r\n"}, tt.wantScreen...)
			for _, w := range want {
				if !strings.Contains(screen.String(), w) {
					t.Errorf("the terminal does not show %q:\n%s", w, screen.String())
				}
			}
			list, _, _ := l.Store().List()
			if len(list) != 1 || list[0].State != decisionState(Answer{Approved: tt.wantStatus == hooks.StatusOK}) || list[0].Decision.Via != "terminal" || !list[0].Terminal {
				t.Errorf("recorded request: %+v", list[0])
			}
		})
	}
}

// TestLocalTerminalDecidedElsewhere: a person at the terminal may be beaten by
// `agent-hooks approvals approve` from elsewhere; the first decision wins.
func TestLocalTerminalDecidedElsewhere(t *testing.T) {
	t.Parallel()
	_, tty, screen := openPTY(t)
	l := NewLocal(LocalOptions{Dir: t.TempDir(), Terminal: &Terminal{In: tty, Out: tty}, User: "ann", PollInterval: 10 * time.Millisecond})
	r, h := localRunner(t, l, time.Minute, `{}`)
	done := runAsync(context.Background(), r, localInvocation(h, hooks.Payload{}, io.Discard))
	req := pending(t, l.Store())
	if _, err := l.Store().Decide(req.ID, StateApproved, Decision{By: "bob", Via: "cli"}); err != nil {
		t.Fatal(err)
	}
	out := <-done
	if out.Status != hooks.StatusOK || out.Reason != "approved by bob" {
		t.Errorf("outcome: %s %q", out.Status, out.Reason)
	}
	waitFor(t, "the notice", func() bool { return strings.Contains(screen.String(), "Decided elsewhere: approved by bob.") })
}

// TestReadSecret: what is typed while the secret is read does not reach the screen, the line
// end is not part of it, and the echo is back afterwards.
func TestReadSecret(t *testing.T) {
	t.Parallel()
	m, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	master := pollable(t, m) // the tty stays blocking, as a person's terminal on stdin is
	screen := &syncBuffer{}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(screen, master)
	}()
	t.Cleanup(func() {
		master.Close()
		<-copied
	})
	echo := func() bool {
		st, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		return err == nil && st.Lflag&unix.ECHO != 0
	}
	if !echo() {
		t.Fatal("the new pty does not echo")
	}
	typed := make(chan error, 1)
	go func() {
		// Typed once the echo is off, as a person types after the prompt.
		deadline := time.Now().Add(10 * time.Second)
		for echo() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		_, err := io.WriteString(master, "s3cretURL\n")
		typed <- err
	}()
	got, err := ReadSecret(tty)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-typed; err != nil {
		t.Fatal(err)
	}
	if got != "s3cretURL" {
		t.Errorf("read %q", got)
	}
	if !echo() {
		t.Error("the echo is still off")
	}
	if _, err := io.WriteString(master, "visible\n"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the echo", func() bool { return strings.Contains(screen.String(), "visible") })
	if strings.Contains(screen.String(), "s3cret") {
		t.Errorf("the secret was echoed: %q", screen.String())
	}
	// Not a terminal: an error, and nothing read.
	if _, err := ReadSecret(strings.NewReader("s3cretURL\n")); err == nil {
		t.Error("ReadSecret on a reader: no error")
	}
}

// TestLocalTerminalShowsNoControlCharacters: the request text is rendered from payload values
// that the agent or an issue's author chose. Terminal control sequences in them (clear the
// line, move the cursor, a carriage return) could make the question the person reads differ from
// the one they approve, so they are shown escaped, on the terminal and in the pending notice.
func TestLocalTerminalShowsNoControlCharacters(t *testing.T) {
	t.Parallel()
	master, tty, screen := openPTY(t)
	l := NewLocal(LocalOptions{Dir: t.TempDir(), Terminal: &Terminal{In: tty, Out: tty}, User: "ann", PollInterval: 10 * time.Millisecond})
	r, h := localRunner(t, l, time.Minute, `{"message": "Run {{cmd}}?"}`)
	var stderr syncBuffer
	evil := "rm -rf /\x1b[2K\rls -l\x07\u009b31m"
	done := runAsync(context.Background(), r, localInvocation(h, hooks.Payload{"cmd": evil}, &stderr))
	waitFor(t, "the question", func() bool { return strings.Contains(screen.String(), "Approve? [y/n") })
	if _, err := io.WriteString(master, "n no\n"); err != nil {
		t.Fatal(err)
	}
	<-done
	for where, shown := range map[string]string{"terminal": screen.String(), "stderr": stderr.String()} {
		if strings.ContainsAny(shown, "\x1b\x07\u009b") || strings.Contains(shown, "/\r") {
			t.Errorf("the %s shows control characters: %q", where, shown)
		}
		if !strings.Contains(shown, `Run rm -rf /\x1b[2K\rls -l\a\u009b31m?`) {
			t.Errorf("the %s does not show the escaped request: %q", where, shown)
		}
	}
	list, _, _ := l.Store().List()
	if len(list) != 1 || list[0].Message != "Run "+evil+"?" {
		t.Errorf("the recorded request must keep the text as rendered: %+v", list)
	}
}
