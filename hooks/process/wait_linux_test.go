//go:build linux

package process

import (
	"os"
	"os/exec"
	"testing"
	"time"

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

// TestPollOutput: pollOutput reads a hook's streams, polling them with the pidfd os/exec holds for
// the process, until the process has exited, and leaves it unreaped, so that Wait still reads its
// exit status. (Not parallel: its process is a child of the test process, which another test's
// sweep of adopted orphans would take for one.)
func TestPollOutput(t *testing.T) {
	if !pidfdPolls() {
		t.Skip("no pidfd on this kernel")
	}
	var outputs [2]capture
	var streams [2]rawStream
	var writers [2]*os.File
	for i := range streams {
		fd, w, err := rawPipe()
		if err != nil {
			t.Fatal(err)
		}
		streams[i], writers[i] = rawStream{fd: fd, c: &outputs[i]}, w
	}
	defer closeFDs(streams[0].fd, streams[1].fd)
	cmd := exec.Command("sh", "-c", "echo out; echo err >&2; exit 3")
	cmd.Stdout, cmd.Stderr = writers[0], writers[1]
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	closeAll(writers[:]...)
	if !pollOutput(cmd.Process, &streams) {
		t.Fatal("pollOutput found no pidfd for a process os/exec started, on a kernel that has them")
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil || info.Signo == 0 {
		t.Errorf("after pollOutput the process has not exited (or was reaped): %v, %+v", err, info)
	}
	_ = cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != 3 {
		t.Errorf("exit code %d, want 3", got)
	}
	pollStreams(&streams, -1, time.Now().Add(pipeDrain)) // what is left, as Run reads it
	if got, want := outputs[0].String()+outputs[1].String(), "out\nerr\n"; got != want {
		t.Errorf("read %q, want %q", got, want)
	}
}
