//go:build windows

package process

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
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

// stdinPrefill is 0: an anonymous pipe's buffer on Windows may be smaller than a payload, and a
// blocked write before the hook starts would never end, so a goroutine always feeds stdin.
const stdinPrefill = 0

var (
	shellOnce sync.Once
	shell     = "sh"
)

// shellPath finds Git for Windows' sh: on PATH, else next to git.exe, else in Program Files.
func shellPath() string {
	shellOnce.Do(func() {
		if p, err := exec.LookPath("sh"); err == nil {
			shell = p
			return
		}
		var candidates []string
		if git, err := exec.LookPath("git"); err == nil {
			root := filepath.Dir(filepath.Dir(git)) // ...\Git\cmd\git.exe -> ...\Git
			candidates = append(candidates, filepath.Join(root, "bin", "sh.exe"), filepath.Join(root, "usr", "bin", "sh.exe"))
		}
		for _, env := range []string{"ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"} {
			if dir := os.Getenv(env); dir != "" {
				candidates = append(candidates, filepath.Join(dir, "Git", "bin", "sh.exe"))
			}
		}
		for _, c := range candidates {
			if st, err := os.Stat(c); err == nil && !st.IsDir() {
				shell = c
				return
			}
		}
	})
	return shell
}
