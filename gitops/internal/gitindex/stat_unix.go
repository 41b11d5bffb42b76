//go:build linux || darwin || freebsd

package gitindex

import (
	"io/fs"
	"syscall"
)

// StatOf is the stat data of fi.
func StatOf(fi fs.FileInfo) FileStat {
	st := FileStat{Stat: Stat{Size: uint32(fi.Size())}, Mode: fi.Mode()}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		ct, mt := ctimespec(s), mtimespec(s)
		st.CtimeS, st.CtimeN = uint32(ct.Sec), uint32(ct.Nsec)
		st.MtimeS, st.MtimeN = uint32(mt.Sec), uint32(mt.Nsec)
		st.Dev, st.Ino = uint32(s.Dev), uint32(s.Ino)
		st.UID, st.GID = s.Uid, s.Gid
		return st
	}
	mt := fi.ModTime()
	st.MtimeS, st.MtimeN = uint32(mt.Unix()), uint32(mt.Nanosecond())
	return st
}
