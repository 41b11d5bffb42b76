//go:build windows

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// noFollow makes CreateFile open a symbolic link (a reparse point) itself rather than what it
// points at; OpenFile then refuses it, since it is not a regular file.
const noFollow = syscall.FILE_FLAG_OPEN_REPARSE_POINT

// links is the number of hard links of f.
func links(f *os.File, _ fs.FileInfo) (uint64, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return 0, err
	}
	return uint64(info.NumberOfLinks), nil
}
