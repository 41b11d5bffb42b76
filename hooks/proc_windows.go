//go:build windows

package hooks

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// setProcessGroup starts the hook in a new process group, detached from agent-hooks' console
// signals, so that stopping it is agent-hooks' decision.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// signalGroup ends the hook's whole process tree. Windows has no SIGTERM for console trees, so
// both steps use taskkill /T (the second with /F).
func signalGroup(p *os.Process, kill bool) {
	if p == nil {
		return
	}
	args := []string{"/T", "/PID", strconv.Itoa(p.Pid)}
	if kill {
		args = append([]string{"/F"}, args...)
	}
	_ = exec.Command("taskkill", args...).Run()
}

// reapGroup would kill what the hook left running; without a job object a tree whose root has
// exited cannot be found on Windows, so leftovers are only bounded by the pipe drain timeout.
func reapGroup(*os.Process) {}
