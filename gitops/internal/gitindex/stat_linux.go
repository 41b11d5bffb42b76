package gitindex

import "syscall"

func ctimespec(s *syscall.Stat_t) syscall.Timespec { return s.Ctim }
func mtimespec(s *syscall.Stat_t) syscall.Timespec { return s.Mtim }
