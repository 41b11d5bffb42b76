//go:build !linux

package gitindex

import "os"

// Names lists the entries of the open directory dir, but . and .., in the order the system
// gives them. A name holds until the next call with the same list (on Linux they point into its
// buffer); a name kept longer must be copied (strings.Clone).
func (l *DirList) Names(dir *os.File) ([]string, error) {
	return dir.Readdirnames(-1)
}
