//go:build linux || darwin || freebsd

package gitops

import (
	"io/fs"
	"syscall"
)

func statOf(fi fs.FileInfo) fileStat {
	st := fileStat{size: uint32(fi.Size()), mode: fi.Mode()}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		ct, mt := ctimespec(s), mtimespec(s)
		st.ctimeS, st.ctimeN = uint32(ct.Sec), uint32(ct.Nsec)
		st.mtimeS, st.mtimeN = uint32(mt.Sec), uint32(mt.Nsec)
		st.dev, st.ino = uint32(s.Dev), uint32(s.Ino)
		st.uid, st.gid = s.Uid, s.Gid
		return st
	}
	mt := fi.ModTime()
	st.mtimeS, st.mtimeN = uint32(mt.Unix()), uint32(mt.Nanosecond())
	return st
}
