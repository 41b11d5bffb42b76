//go:build linux

package hooks

import (
	"bytes"
	"errors"
	"os"
	"strconv"
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
// has exited and the group was killed: every child of this process that carries the hook's tag in
// its environment (a live descendant the hook started, adopted after its parent died) or belongs
// to the hook's group or to a group ended here (SIGKILL, then reaped). A reaped process's own
// children are adopted in turn, so it looks again until nothing of the hook is left, within
// pipeDrain. Children that are not the hook's (the main processes of parallel hooks, their
// descendants) are left alone: they carry another tag and lead other groups.
func sweepOrphans(tag string, pgid int) {
	if !adopting.Load() {
		return
	}
	needle := []byte("\x00" + hookTagVar + "=" + tag + "\x00")
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

// children lists the child processes of this process, of every thread (an orphan is adopted by
// one of them), from /proc/self/task/*/children.
func children() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var pids []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(f)); err == nil {
				pids = append(pids, pid)
			}
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
