//go:build linux

package process

import (
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
