package sessions

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// The newest index spares `session list` and a scanning attach the read of the whole folder: a
// folder of 100,000 sessions holds 200,000 names (records and their trails), and the system
// alone takes some 60 ms to list them. After a full read of the folder, the ids its first pass
// kept (the firstPass newest) are written to newestIndexPath with the folder's modification
// time. A later first pass that finds the folder's modification time unchanged uses them instead
// of reading the folder: any name added, removed or renamed in the folder, by agent-hooks or by
// anything else, changes that time, and then the folder is read again.
//
// The modification time is only that good: a file system stamps it from a coarse clock, so a
// change made in the same tick as the read that wrote the index would leave it unchanged. The
// index is therefore written only for a folder last changed more than newestSettled before, by
// which time any such tick is over (the coarsest file system times, FAT's, have 2 s steps); a
// folder in use is read in full, as without an index.

// newestIndexDir holds the index: a folder of its own, so that writing the index does not change
// the modification time of the sessions folder it describes. Its name starts with a dot, which
// the listing skips.
const newestIndexDir = ".index"

// newestSettled is how long a folder must have gone unchanged for its listing to be written as
// the index: longer than the coarsest step of a file system's times.
const newestSettled = 3 * time.Second

// newestIndex is the newest index's content.
type newestIndex struct {
	// Version is newestIndexVersion; another value is ignored (a newer or older agent-hooks).
	Version int `json:"version"`
	// Dir and ModTime identify the folder as it was read: its path and modification time in
	// nanoseconds.
	Dir     string `json:"dir"`
	ModTime int64  `json:"modTime"`
	// IDs are the newest ids, newest first; Candidates is how many session ids the folder held.
	IDs        []string `json:"ids"`
	Candidates int      `json:"candidates"`
	// Foreign are the names in the folder that are not agent-hooks' (see ForeignError).
	Foreign []string `json:"foreign,omitempty"`
}

const newestIndexVersion = 1

func newestIndexPath(dir string) string {
	return filepath.Join(dir, newestIndexDir, "newest.json")
}

// folderTime is dir's modification time in nanoseconds; ok is false when it cannot be read.
func folderTime(dir string) (ns int64, ok bool) {
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return 0, false
	}
	return info.ModTime().UnixNano(), true
}

// loadNewest returns the index of dir if it describes the folder as it is now (modTime being the
// folder's modification time) and holds at least keep ids or all of them; else nil.
func loadNewest(dir string, modTime int64, keep int) *newestIndex {
	b, err := atomicfile.ReadFile(newestIndexPath(dir))
	if err != nil {
		return nil
	}
	var ix newestIndex
	if json.Unmarshal(b, &ix) != nil || ix.Version != newestIndexVersion || ix.Dir != dir || ix.ModTime != modTime {
		return nil
	}
	if len(ix.IDs) < keep && len(ix.IDs) < ix.Candidates {
		return nil
	}
	var prev idEntry
	for i, id := range ix.IDs {
		ms, ok := idTime(id)
		if !ok || i > 0 && !prev.newer(ms, id) {
			return nil // not what saveNewest writes: read the folder
		}
		prev = idEntry{ms, id}
	}
	return &ix
}

// saveNewest writes ix as dir's index if the folder still has the modification time ix was read
// at and that time is settled (see newestSettled). It is a cache: a failure to write it only
// leaves the next listing to read the folder.
func saveNewest(dir string, ix *newestIndex) {
	now, ok := folderTime(dir)
	if !ok || now != ix.ModTime || time.Since(time.Unix(0, now)) < newestSettled {
		return
	}
	path := newestIndexPath(dir)
	if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return
	} else if err == nil {
		return // making the index's folder changed the sessions folder: the next listing writes it
	}
	b, err := json.Marshal(ix)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".newest.*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
