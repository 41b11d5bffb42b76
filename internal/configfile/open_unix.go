//go:build unix

package configfile

import "syscall"

// openFlags makes opening a FIFO return at once instead of waiting for a writer; reading a
// regular file is unaffected.
const openFlags = syscall.O_NONBLOCK

// noFollow opens the name itself, not what a link there points to.
const noFollow = syscall.O_NOFOLLOW
