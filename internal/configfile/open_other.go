//go:build !unix

package configfile

// openFlags: opening a file does not block where there are no Unix FIFOs.
const openFlags = 0
