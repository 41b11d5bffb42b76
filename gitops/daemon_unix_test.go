//go:build unix

package gitops

import "syscall"

func daemonProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup ends the process group of pid.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
