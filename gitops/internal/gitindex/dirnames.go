package gitindex

// DirList is the buffer of a walk's directory reads (Names), reused from one directory to the
// next by one goroutine at a time.
type DirList struct {
	buf   []byte
	names []string
}
