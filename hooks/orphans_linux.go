//go:build linux

package hooks

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// adopting is set once this process is a child subreaper (AdoptOrphans).
var adopting atomic.Bool

// AdoptOrphans makes this process the reaper of its descendants' orphans (Linux's
// PR_SET_CHILD_SUBREAPER): a process a hook started that leaves the hook's process group (setsid,
// a daemon's double fork) and loses its parent becomes a child of agent-hooks instead of init's,
// so that ProcessRunner can find and end it when the hook is done, and StopAll when agent-hooks
// exits. It changes the whole process: call it once, from main, before any hook runs. It reports
// whether the system supports it (Linux 3.4 and later; elsewhere it does nothing).
func AdoptOrphans() bool {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return false
	}
	adopting.Store(true)
	return true
}

func adoptingOrphans() bool { return adopting.Load() }

// sweepOrphans ends what one hook left behind outside its process group, once its main process
// has exited and the group was killed: every child of this process that carries the hook's tag
// (NAME=VALUE) in its environment (a live descendant the hook started, adopted after its parent died) or belongs
// to the hook's group or to a group ended here (SIGKILL, then reaped). A reaped process's own
// children are adopted in turn, so it looks again until nothing of the hook is left, within
// pipeDrain. Children that are not the hook's (the main processes of parallel hooks, their
// descendants) are left alone: they carry another tag and lead other groups.
func sweepOrphans(tag string, pgid int) {
	if !adopting.Load() {
		return
	}
	var needle []byte // \0NAME=VALUE\0, made when a child needs it
	groups := []int{pgid}
	deadline := time.Now().Add(pipeDrain)
	for {
		var dying []int
		for _, pid := range children() {
			st, ok := readStat(pid)
			if !ok {
				continue
			}
			ours := containsInt(groups, st.pgrp)
			if !ours && st.state != 'Z' {
				if needle == nil {
					needle = []byte("\x00" + tag + "\x00")
				}
				ours = tagged(pid, needle)
			}
			if !ours {
				continue
			}
			if st.state != 'Z' {
				if st.pgrp == pid && !containsInt(groups, pid) {
					_ = syscall.Kill(-pid, syscall.SIGKILL) // it leads a group of its own (setsid)
					groups = append(groups, pid)
				}
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			dying = append(dying, pid)
		}
		if len(dying) == 0 {
			return
		}
		for _, pid := range dying {
			reap(pid, deadline)
		}
		if time.Now().After(deadline) {
			return
		}
	}
}

// stopAdopted kills every child of this process that is still alive, with its group when it leads
// one, until none is left (within pipeDrain): the last step of a program that exits.
func stopAdopted() {
	if !adopting.Load() {
		return
	}
	deadline := time.Now().Add(pipeDrain)
	for {
		alive := false
		for _, pid := range children() {
			st, ok := readStat(pid)
			if !ok || st.state == 'Z' {
				continue
			}
			alive = true
			if st.pgrp == pid {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if !alive || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond) // a killed child's own children are adopted once it is gone
	}
}

// reap waits for the exit of pid, a child this process killed, polling until deadline (a process
// in uninterruptible sleep may take long to die; it is not waited for forever).
func reap(pid int, deadline time.Time) {
	var ws syscall.WaitStatus
	for {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || err != nil && !errors.Is(err, syscall.EINTR) {
			return
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// children lists the child processes of this process that can be orphans it adopted: the
// kernel gives an orphan to the first live thread of its reaper, the thread group leader (in Go,
// the main thread, which lives as long as the process), so only the leader's children are read
// (/proc/self/task/PID/children), in one system call on a file kept open. Without that file
// (a kernel without CONFIG_PROC_CHILDREN) it finds nothing: orphans are then only ended with
// their process group.
func children() []int {
	childrenMu.Lock()
	defer childrenMu.Unlock()
	if childrenFile == nil {
		f, err := os.Open("/proc/self/task/" + selfPID + "/children")
		if err != nil {
			return nil
		}
		childrenFile = f
	}
	for {
		n, err := childrenFile.ReadAt(childrenBuf, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil
		}
		if n < len(childrenBuf) {
			return parsePIDs(childrenBuf[:n])
		}
		childrenBuf = make([]byte, 2*len(childrenBuf))
	}
}

var (
	childrenMu   sync.Mutex
	childrenFile *os.File
	childrenBuf  = make([]byte, 4096)
)

func parsePIDs(b []byte) []int {
	var pids []int
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

type procStat struct {
	state byte
	pgrp  int
}

// readStat reads a process's state and process group from /proc/PID/stat.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// pid (comm) state ppid pgrp ...; comm may contain spaces and parentheses
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	pgrp, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], pgrp: pgrp}, true
}

// tagged reports whether pid's environment holds needle (\0NAME=VALUE\0) as a whole variable.
func tagged(pid int, needle []byte) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	return bytes.HasPrefix(env, needle[1:]) || bytes.Contains(env, needle)
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}
