package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSignalBeforeAnyHookIsNeverExit2: the lean program watches signals only once it starts a
// process (a call decided by rules alone starts none); before that a signal has its default
// effect, and SIGQUIT's, a goroutine dump, must still not be Go's exit status 2, "blocked" to
// every host. The signal comes while agent-hooks waits for the rest of its input.
func TestSignalBeforeAnyHookIsNeverExit2(t *testing.T) {
	bin := agentHooksBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "hook", "claude")
			cmd.Env = append(os.Environ(), "AUTOAGENT_HOME="+t.TempDir(), "GORACE="+noRaceExitSleep())
			cmd.Dir = t.TempDir()
			stdin, err := cmd.StdinPipe()
			must(t, err)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			must(t, cmd.Start())
			// Half an input: once the pipe is empty agent-hooks is reading it, past its start.
			_, err = stdin.Write([]byte(`{"hook_event_name": "PreToolUse", `))
			must(t, err)
			waitDrained(t, stdin.(*os.File))
			must(t, cmd.Process.Signal(sig))
			err = waitExit(t, cmd)
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("agent-hooks answered a half input after %v: %v; stderr %s", sig, err, stderr.String())
			}
			if ee.ExitCode() == 2 {
				t.Fatalf("exit 2 (blocked) on %v; stderr %s", sig, stderr.String())
			}
			if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() && sig == syscall.SIGQUIT && ws.Signal() != syscall.SIGABRT {
				t.Errorf("ended by %v, want SIGABRT after the dump", ws.Signal())
			}
		})
	}
}

// waitDrained waits until the reader of the pipe w writes to has read all of it (TIOCINQ, as
// FIONREAD is called on Linux, counts what is unread in a pipe).
func waitDrained(t *testing.T, w *os.File) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n, err := unix.IoctlGetInt(int(w.Fd()), unix.TIOCINQ)
		must(t, err)
		if n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("agent-hooks never read its input")
}
