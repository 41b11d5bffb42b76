//go:build !linux

package process

// AdoptOrphans does nothing and reports false: only Linux lets a process adopt its descendants'
// orphans (PR_SET_CHILD_SUBREAPER). Elsewhere a process a hook started that leaves the hook's
// process group (setsid, a daemon's double fork) is not tracked once the hook's main process
// has exited (Windows: taskkill /T ends the tree that is still linked to the hook).
func AdoptOrphans() bool { return false }

func adoptingOrphans() bool { return false }

func sweepOrphans(string, int) {}

func stopAdopted() {}
