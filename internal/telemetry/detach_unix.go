//go:build unix

package telemetry

import (
	"os/exec"
	"syscall"
)

// detach puts the shipper in a session of its own, so that a terminal's hangup or the agent's
// process group being killed does not take it down mid-export.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
