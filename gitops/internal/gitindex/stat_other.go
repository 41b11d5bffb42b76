//go:build !(linux || darwin || freebsd)

package gitindex

import "io/fs"

// StatOf is the stat data of fi.
func StatOf(fi fs.FileInfo) FileStat {
	mt := fi.ModTime()
	return FileStat{Stat: Stat{Size: uint32(fi.Size()), MtimeS: uint32(mt.Unix()), MtimeN: uint32(mt.Nanosecond())}, Mode: fi.Mode()}
}
