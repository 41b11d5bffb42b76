package gitops

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// diff lists the files that differ between the tree old and the tree tb built, descending only
// into directories whose tree ids differ.
func (r *Repo) diff(old hash20, tb *treeBuilder) ([]FileChange, error) {
	var out []FileChange
	if err := r.diffDir(&out, old, "", 0, len(tb.entries), tb); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func (r *Repo) readTree(h hash20) (map[string]object.TreeEntry, error) {
	m := map[string]object.TreeEntry{}
	if h.isZero() || h == emptyTree {
		return m, nil
	}
	t, err := object.GetTree(r.repo.Storer, plumbing.Hash(h))
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	for _, e := range t.Entries {
		m[e.Name] = e
	}
	return m, nil
}

func (r *Repo) diffDir(out *[]FileChange, old hash20, dir string, lo, hi int, tb *treeBuilder) error {
	if !old.isZero() && tb.dirs[dir] == old {
		return nil
	}
	olds, err := r.readTree(old)
	if err != nil {
		return err
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	for i := lo; i < hi; {
		e := tb.entries[i]
		rest := e.name[len(prefix):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			sub := rest[:j]
			k := i + 1
			for k < hi && strings.HasPrefix(tb.entries[k].name, prefix+sub+"/") {
				k++
			}
			oe, ok := olds[sub]
			delete(olds, sub)
			var oldSub hash20
			if ok && oe.Mode == filemode.Dir {
				oldSub = hash20(oe.Hash)
			} else if ok {
				*out = append(*out, FileChange{Path: prefix + sub, Status: "D"})
			}
			if err := r.diffDir(out, oldSub, prefix+sub, i, k, tb); err != nil {
				return err
			}
			i = k
			continue
		}
		i++
		oe, ok := olds[rest]
		delete(olds, rest)
		switch {
		case !ok:
			*out = append(*out, FileChange{Path: e.name, Status: "A"})
		case oe.Mode == filemode.Dir:
			if err := r.listTree(out, hash20(oe.Hash), e.name, "D"); err != nil {
				return err
			}
			*out = append(*out, FileChange{Path: e.name, Status: "A"})
		case hash20(oe.Hash) == e.hash && uint32(oe.Mode) == e.mode:
		case (uint32(oe.Mode)&0o170000 == modeSymlink) != (e.mode&0o170000 == modeSymlink) ||
			(oe.Mode == filemode.Submodule) != (e.mode == modeGitlink):
			*out = append(*out, FileChange{Path: e.name, Status: "T"})
		default:
			*out = append(*out, FileChange{Path: e.name, Status: "M"})
		}
	}
	for name, oe := range olds {
		if oe.Mode == filemode.Dir {
			if err := r.listTree(out, hash20(oe.Hash), prefix+name, "D"); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, FileChange{Path: prefix + name, Status: "D"})
	}
	return nil
}

// listTree lists every file below the tree h (at dir) with status.
func (r *Repo) listTree(out *[]FileChange, h hash20, dir, status string) error {
	es, err := r.readTree(h)
	if err != nil {
		return err
	}
	for name, e := range es {
		if e.Mode == filemode.Dir {
			if err := r.listTree(out, hash20(e.Hash), dir+"/"+name, status); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, FileChange{Path: dir + "/" + name, Status: status})
	}
	return nil
}
