//go:build !windows

package process

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// setProcessGroup makes the hook the leader of a new process group, so that the whole tree it
// starts can be signalled at once (and a Ctrl-C at the terminal reaches agent-hooks, which then
// stops the group itself).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM (kill=false) or SIGKILL (kill=true) to the hook's process group.
func signalGroup(p *os.Process, kill bool) {
	if p == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-p.Pid, sig)
}

// reapGroup kills whatever is left of the hook's process group after its main process exited.
func reapGroup(p *os.Process) { signalGroup(p, true) }

// stdinPrefill is the largest payload written into the hook's stdin pipe before it starts:
// within the smallest default pipe buffer of the Unix systems agent-hooks runs on (16 KiB on
// macOS), so the write never blocks.
const stdinPrefill = 16 << 10

var shellOnce = sync.OnceValue(func() string {
	if p, err := exec.LookPath("sh"); err == nil {
		return p
	}
	return "sh"
})

// shellPath is the POSIX shell that runs command hooks, looked up on PATH once.
func shellPath() string { return shellOnce() }
