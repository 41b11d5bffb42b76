package gitindex

import "io/fs"

// Stat is the stat data git keeps of a file in its index entry, each field truncated to 32 bits
// as git stores it.
type Stat struct {
	CtimeS, CtimeN uint32
	MtimeS, MtimeN uint32
	Dev, Ino       uint32
	UID, GID       uint32
	Size           uint32
}

// FileStat is a file's stat data and its mode.
type FileStat struct {
	Stat
	Mode fs.FileMode
}

// Matches reports whether e's stat data says the file is unchanged (git's ie_match_stat without
// the racy check, which is Index.Racy). Fields the index holds as zero (written by a tool that
// does not record them) are not compared.
func (st FileStat) Matches(e *Entry, trustCtime bool) bool {
	if e.Size != st.Size || e.MtimeS != st.MtimeS {
		return false
	}
	if e.MtimeN != 0 && e.MtimeN != st.MtimeN {
		return false
	}
	if trustCtime && e.CtimeS != 0 && (e.CtimeS != st.CtimeS || (e.CtimeN != 0 && e.CtimeN != st.CtimeN)) {
		return false
	}
	if e.Ino != 0 && e.Ino != st.Ino {
		return false
	}
	return true
}
