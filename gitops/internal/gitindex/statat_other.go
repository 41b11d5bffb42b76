//go:build !(linux || darwin || freebsd)

package gitindex

import (
	"os"
	"path/filepath"
)

// StatAt is the stat data of the entry name of the open directory dir, not following a symlink.
func StatAt(dir *os.File, name string) (FileStat, error) {
	fi, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return FileStat{}, err
	}
	return StatOf(fi), nil
}
