//go:build linux

package process

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
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
// so that Local can find and end it when the hook is done, and StopAll when agent-hooks
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
// (NAME=VALUE) in its environment (a live descendant the hook started, adopted after its parent
// died) or belongs to the hook's group or to a group ended here is killed and reaped. A process's
// children are adopted when it dies, so it looks again until a pass finds nothing, within
// pipeDrain.
//
// A live child tagged by a hook of this process that is over was missed by that hook's own
// sweep (it was adopted only after): it is ended too. A live child whose environment shows no
// tag, or cannot be read, is looked at again: a process that is exiting or in the middle of exec
// shows none for a moment. One that still shows none at the deadline (its environment was
// cleared: env -i; or it is another user's: setuid) is a stray nothing can attribute; it is
// remembered, not looked at again, and ended by StopAll.
//
// Nothing is waited for that os/exec may be waiting for: the processes this package starts lead
// their own process groups, so they can never leave this process's session, and a zombie child
// that did (a setsid'd orphan that ended by itself) is an adopted orphan, reaped here whoever's it
// was. Live children of other running hooks carry their tags and are left alone.
func sweepOrphans(tag string, pgid int) {
	if !adopting.Load() {
		return
	}
	groups := []int{pgid}
	deadline := time.Now().Add(pipeDrain)
	for {
		progress := false
		var unsure []procStat
		for _, pid := range children() {
			st, ok := readStat(pid)
			if !ok {
				continue
			}
			inGroups := slices.Contains(groups, st.pgrp)
			if st.state == 'Z' {
				if inGroups || st.session != selfSession {
					reap(pid, deadline)
					progress = true
				}
				continue
			}
			if !inGroups {
				t, err := tagOf(pid)
				switch {
				case errors.Is(err, fs.ErrNotExist):
					continue // gone
				case t == tag:
				case strings.HasPrefix(t, hookTagPrefix) && !runningTag(t):
					// a hook of this process that is over
				case t != "" || isStray(st):
					continue // a running hook's, or another agent-hooks'
				default:
					unsure = append(unsure, st)
					continue
				}
			}
			if st.pgrp == pid && !inGroups {
				_ = syscall.Kill(-pid, syscall.SIGKILL) // it leads a group of its own (setsid)
				groups = append(groups, pid)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
			reap(pid, deadline)
			progress = true
		}
		switch {
		case time.Now().After(deadline):
			markStrays(unsure)
			return
		case !progress && len(unsure) == 0:
			return
		case !progress:
			time.Sleep(time.Millisecond)
		}
	}
}

// strays are live adopted children that no hook's tag identifies (pid and start time).
var strays struct {
	sync.Mutex
	set map[[2]int]bool
}

func isStray(st procStat) bool {
	strays.Lock()
	defer strays.Unlock()
	return strays.set[[2]int{st.pid, st.start}]
}

func markStrays(list []procStat) {
	if len(list) == 0 {
		return
	}
	strays.Lock()
	defer strays.Unlock()
	if strays.set == nil {
		strays.set = map[[2]int]bool{}
	}
	for _, st := range list {
		strays.set[[2]int{st.pid, st.start}] = true
	}
}

// selfSession is the session of this process.
var selfSession, _ = unix.Getsid(0)

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
	pid, start    int // start: clock ticks after boot, which with pid names one process
	state         byte
	pgrp, session int
}

// readStat reads a process's state, process group, session and start time from /proc/PID/stat.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
	// stime cutime cstime priority nice threads itrealvalue starttime ...; comm may contain
	// spaces and parentheses
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	pgrp, err1 := strconv.Atoi(string(f[2]))
	session, err2 := strconv.Atoi(string(f[3]))
	start, err3 := strconv.Atoi(string(f[19]))
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{pid: pid, start: start, state: f[0][0], pgrp: pgrp, session: session}, true
}

// tagOf reads the hook tag (NAME=VALUE) in pid's environment: "" when there is none, or the
// environment reads empty or cannot be read (a process exiting or in exec, another user's); an
// error that is fs.ErrNotExist when the process is gone.
func tagOf(pid int) (string, error) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", err
	}
	key := []byte(hookTagVar + "=")
	for len(env) > 0 {
		kv, rest, complete := bytes.Cut(env, []byte{0})
		if complete && bytes.HasPrefix(kv, key) {
			return string(kv), nil
		}
		env = rest
	}
	return "", nil
}
