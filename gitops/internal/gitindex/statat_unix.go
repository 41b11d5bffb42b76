//go:build linux || darwin || freebsd

package gitindex

import (
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// StatAt is the stat data of the entry name of the open directory dir, not following a symlink.
// A walk of a work tree stats each entry relative to its directory, as git lstats a path it
// builds in place: without a path string or a FileInfo to allocate for each file.
func StatAt(dir *os.File, name string) (FileStat, error) {
	var s unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &s, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return FileStat{}, &fs.PathError{Op: "lstat", Path: strings.Clone(name), Err: err} // name may be a DirList's
	}
	return FileStat{
		Stat: Stat{
			CtimeS: uint32(s.Ctim.Sec), CtimeN: uint32(s.Ctim.Nsec),
			MtimeS: uint32(s.Mtim.Sec), MtimeN: uint32(s.Mtim.Nsec),
			Dev: uint32(s.Dev), Ino: uint32(s.Ino),
			UID: s.Uid, GID: s.Gid,
			Size: uint32(s.Size),
		},
		Mode: fileMode(uint32(s.Mode)),
	}, nil
}

// fileMode is the fs.FileMode of a stat mode: the type and the permission bits.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFREG:
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	default:
		mode |= fs.ModeIrregular
	}
	return mode
}
