//go:build darwin || freebsd

package gitindex

import "syscall"

func ctimespec(s *syscall.Stat_t) syscall.Timespec { return s.Ctimespec }
func mtimespec(s *syscall.Stat_t) syscall.Timespec { return s.Mtimespec }
