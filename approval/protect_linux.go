package approval

import "golang.org/x/sys/unix"

// ProtectMemory keeps other processes of the user (the agent a gate holds, which may be this
// process's parent) from reading this process's memory, where secrets such as a callback token
// live: it makes the process not dumpable (PR_SET_DUMPABLE 0), so that ptrace and
// /proc/<pid>/mem need CAP_SYS_PTRACE, and no core file is written. It lasts until the process
// ends; programs it starts are dumpable again.
func ProtectMemory() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
