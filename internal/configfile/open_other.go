//go:build !unix

package configfile

// openFlags: opening a file does not block where there are no Unix FIFOs.
const openFlags = 0

// noFollow is 0 where opening cannot refuse a link at the name: every missing file is read with
// os.Readlink to tell a link to nothing.
const noFollow = 0
