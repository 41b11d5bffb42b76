//go:build !unix

package gitops

import (
	"os"
	"syscall"
)

func daemonProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
