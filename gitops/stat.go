package gitops

import (
	"io/fs"
)

// fileStat is the stat data git keeps in an index entry.
type fileStat struct {
	ctimeS, ctimeN uint32
	mtimeS, mtimeN uint32
	dev, ino       uint32
	uid, gid       uint32
	size           uint32
	mode           fs.FileMode
}

func (st fileStat) fill(e *entry) {
	e.ctimeS, e.ctimeN = st.ctimeS, st.ctimeN
	e.mtimeS, e.mtimeN = st.mtimeS, st.mtimeN
	e.dev, e.ino = st.dev, st.ino
	e.uid, e.gid = st.uid, st.gid
	e.size = st.size
}

// matches reports whether e's stat data says the file is unchanged. Fields the index holds as
// zero (written by a tool that does not record them) are not compared.
func (st fileStat) matches(e *entry, trustCtime bool) bool {
	if e.size != st.size || e.mtimeS != st.mtimeS {
		return false
	}
	if e.mtimeN != 0 && e.mtimeN != st.mtimeN {
		return false
	}
	if trustCtime && e.ctimeS != 0 && (e.ctimeS != st.ctimeS || (e.ctimeN != 0 && e.ctimeN != st.ctimeN)) {
		return false
	}
	if e.ino != 0 && e.ino != st.ino {
		return false
	}
	return true
}
