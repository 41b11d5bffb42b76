//go:build linux

package process

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAwaitExit: awaitExit returns once the process has exited and leaves it unreaped, so that
// Wait still reads its exit status.
func TestAwaitExit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		script string
		code   int
	}{
		{"exit 3", 3},
		{"cat >/dev/null; exit 0", 0}, // runs until its stdin closes: awaitExit waits first
		{"kill -9 $$", -1},
	} {
		cmd := exec.Command("sh", "-c", tt.script)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan bool)
		go func() { done <- awaitExit(cmd.Process.Pid) }()
		stdin.Close()
		if !<-done {
			t.Skip("no pidfd on this kernel")
		}
		var info unix.Siginfo
		if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil || info.Signo == 0 {
			t.Errorf("%s: after awaitExit the process has not exited (or was reaped): %v, %+v", tt.script, err, info)
		}
		_ = cmd.Wait()
		if got := cmd.ProcessState.ExitCode(); got != tt.code {
			t.Errorf("%s: exit code %d, want %d", tt.script, got, tt.code)
		}
	}
}

// TestPollerFilesHandOverTheStreams: without a pidfd for a hook, its streams' descriptors go to
// copier goroutines as files of the runtime's poller, which read them to their end and whose
// close stops a read that waits.
func TestPollerFilesHandOverTheStreams(t *testing.T) {
	t.Parallel()
	var streams [2]rawStream
	var writers [2]*os.File
	for i := range streams {
		fd, w, err := rawPipe()
		if err != nil {
			t.Fatal(err)
		}
		streams[i].fd, writers[i] = fd, w
	}
	out, errOut := pollerFiles(&streams)
	if streams[0].fd != -1 || streams[1].fd != -1 {
		t.Errorf("the streams keep descriptors %d, %d after the hand-over", streams[0].fd, streams[1].fd)
	}
	if _, err := writers[0].WriteString("out\n"); err != nil {
		t.Fatal(err)
	}
	writers[0].Close()
	var c capture
	c.copyFrom(out, nil)
	if got := c.String(); got != "out\n" {
		t.Errorf("read %q, want %q", got, "out\n")
	}
	done := make(chan struct{})
	go func() { defer close(done); var c capture; c.copyFrom(errOut, nil) }()
	errOut.Close() // the writer is still open: only the close ends the read
	<-done
	writers[1].Close()
	out.Close()
}
