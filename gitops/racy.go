package gitops

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Racy git: an index entry's stat data vouches for the file's content only if the file did not
// change in the same second the index was written (git compares seconds only, unless built with
// USE_NSEC; the git of most distributions is not). So, as git does:
//
//   - reading, an entry modified at or after the index's second is "racy" and its content is
//     compared (racy);
//   - writing, an entry that was not refreshed from its file by this process and is racy with
//     respect to the index it was read from, whose stat data still matches the file but whose
//     content no longer does, gets size 0 (smudgeRacy, git's ce_smudge_racily_clean_entry): the
//     new index is newer, so its stat data would otherwise vouch for the changed content.

// racy reports whether e may have changed within the second idx was written (or later).
func (idx *index) racy(e *entry) bool {
	return idx.mtimeS != 0 && e.mtimeS >= idx.mtimeS
}

// smudgeRacy smudges the racily clean entries of idx before it is written.
func (r *Repo) smudgeRacy(idx *index) error {
	var (
		src    *attrSource
		conv   converter
		stacks map[string]attrStack
		byName map[string]*entry
	)
	// attrStackOf is the attributes stack of dir, as the work tree and idx give it.
	var attrStackOf func(dir string) (attrStack, error)
	attrStackOf = func(dir string) (attrStack, error) {
		if st, ok := stacks[dir]; ok {
			return st, nil
		}
		parent := src.base
		if dir != "" {
			p := path.Dir(dir)
			if p == "." {
				p = ""
			}
			var err error
			if parent, err = attrStackOf(p); err != nil {
				return nil, err
			}
		}
		name := joinPath(dir, ".gitattributes")
		fi, err := os.Lstat(filepath.Join(r.Root, filepath.FromSlash(name)))
		f, err := r.readDirAttrs(dir, err == nil && fi.Mode().IsRegular(), byName[name])
		if err != nil {
			return nil, err
		}
		stacks[dir] = parent.with(f)
		return stacks[dir], nil
	}
	for _, e := range idx.entries {
		if e.fresh || e.mode == modeGitlink || e.stage() != 0 || !idx.racy(e) {
			continue
		}
		abs := filepath.Join(r.Root, filepath.FromSlash(e.name))
		fi, err := os.Lstat(abs)
		if err != nil {
			continue // gone: every reader sees that
		}
		st := statOf(fi)
		if st.size != e.size || st.mtimeS != e.mtimeS {
			continue // every reader sees the change from the stat data
		}
		var data []byte
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			var t string
			if t, err = os.Readlink(abs); err == nil {
				data = []byte(filepath.ToSlash(t))
			}
		case fi.Mode().IsRegular():
			if src == nil {
				if src, err = r.loadAttrSource(); err != nil {
					return err
				}
				conv, stacks, byName = r.converter(), map[string]attrStack{}, make(map[string]*entry, len(idx.entries))
				for _, x := range idx.entries {
					byName[x.name] = x
				}
			}
			if data, err = os.ReadFile(abs); err == nil {
				var stack attrStack
				dir := path.Dir(e.name)
				if dir == "." {
					dir = ""
				}
				if stack, err = attrStackOf(dir); err != nil {
					return err
				}
				data, _, err = r.toGit(conv, src, stack, e.name, data, e, false)
			}
		default:
			continue // no longer a file: every reader sees that
		}
		// Content that cannot be read is changed, for git too.
		if err != nil || objectID("blob", data) != e.hash {
			e.size = 0
		}
	}
	return nil
}
