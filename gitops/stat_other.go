//go:build !(linux || darwin || freebsd)

package gitops

import "io/fs"

func statOf(fi fs.FileInfo) fileStat {
	mt := fi.ModTime()
	return fileStat{size: uint32(fi.Size()), mode: fi.Mode(), mtimeS: uint32(mt.Unix()), mtimeN: uint32(mt.Nanosecond())}
}
