package gitindex

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
)

// Racy git: an index entry's stat data vouches for the file's content only if the file did not
// change in the same second the index was written (git compares seconds only, unless built with
// USE_NSEC; the git of most distributions is not). So, as git does:
//
//   - reading, an entry modified at or after the index's second is "racy" and its content is
//     compared (Racy);
//   - writing, an entry that was not refreshed from its file by this process and is racy with
//     respect to the index it was read from, whose stat data still matches the file but whose
//     content no longer does, gets size 0 (SmudgeRacy, git's ce_smudge_racily_clean_entry): the
//     new index is newer, so its stat data would otherwise vouch for the changed content.

// Racy reports whether e may have changed within the second idx was written (or later).
func (idx *Index) Racy(e *Entry) bool {
	return idx.MtimeS != 0 && e.MtimeS >= idx.MtimeS
}

// Cleaner gives the id git add would store now for the regular file at abs, e's file: its
// content after the clean conversion. Content that cannot be read is the zero id (a change, for
// git too); an error stops the write.
type Cleaner func(e *Entry, abs string) (plumbing.Hash, error)

// SmudgeRacy smudges the racily clean entries of idx, whose work tree is root, before it is
// written.
func (idx *Index) SmudgeRacy(root string, clean Cleaner) error {
	for _, e := range idx.Entries {
		if e.Fresh() || e.Mode == ModeGitlink || e.Stage() != 0 || !idx.Racy(e) {
			continue
		}
		abs := filepath.Join(root, filepath.FromSlash(e.Name))
		fi, err := os.Lstat(abs)
		if err != nil {
			continue // gone: every reader sees that
		}
		st := StatOf(fi)
		if st.Size != e.Size || st.MtimeS != e.MtimeS {
			continue // every reader sees the change from the stat data
		}
		var h plumbing.Hash
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			if t, err := os.Readlink(abs); err == nil {
				h = gitobj.ID(plumbing.BlobObject, []byte(filepath.ToSlash(t)))
			}
		case fi.Mode().IsRegular():
			if h, err = clean(e, abs); err != nil {
				return err
			}
		default:
			continue // no longer a file: every reader sees that
		}
		if h != e.Hash {
			e.Size = 0
		}
	}
	return nil
}
