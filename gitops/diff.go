package gitops

import (
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/autoagent/agent-hooks/gitops/internal/gitindex"
	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
)

// diff lists the files that differ between the tree old and the tree tb built, descending only
// into directories whose tree ids differ.
func (r *Repo) diff(old plumbing.Hash, tb *gitindex.Trees) ([]FileChange, error) {
	var out []FileChange
	if err := r.diffDir(&out, old, "", 0, len(tb.Entries), tb); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// treeEntries reads the entries of the tree h by name.
func (r *Repo) treeEntries(h plumbing.Hash) (map[string]object.TreeEntry, error) {
	m := map[string]object.TreeEntry{}
	if h.IsZero() || h == gitobj.EmptyTree {
		return m, nil
	}
	t, err := r.readTree(h)
	if err != nil {
		return nil, err
	}
	for _, e := range t.Entries {
		m[e.Name] = e
	}
	return m, nil
}

func (r *Repo) diffDir(out *[]FileChange, old plumbing.Hash, dir string, lo, hi int, tb *gitindex.Trees) error {
	if !old.IsZero() && tb.Dirs[dir] == old {
		return nil
	}
	olds, err := r.treeEntries(old)
	if err != nil {
		return err
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	for i := lo; i < hi; {
		e := tb.Entries[i]
		rest := e.Name[len(prefix):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			sub := rest[:j]
			k := i + 1
			for k < hi && strings.HasPrefix(tb.Entries[k].Name, prefix+sub+"/") {
				k++
			}
			oe, ok := olds[sub]
			delete(olds, sub)
			var oldSub plumbing.Hash
			if ok && oe.Mode == filemode.Dir {
				oldSub = oe.Hash
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
		if e.IntentToAdd() {
			continue // in the index, not in the tree
		}
		oe, ok := olds[rest]
		delete(olds, rest)
		switch {
		case !ok:
			*out = append(*out, FileChange{Path: e.Name, Status: "A"})
		case oe.Mode == filemode.Dir:
			if err := r.listTree(out, oe.Hash, e.Name, "D"); err != nil {
				return err
			}
			*out = append(*out, FileChange{Path: e.Name, Status: "A"})
		case oe.Hash == e.Hash && uint32(oe.Mode) == e.Mode:
		case (uint32(oe.Mode)&0o170000 == gitindex.ModeSymlink) != (e.Mode&0o170000 == gitindex.ModeSymlink) ||
			(oe.Mode == filemode.Submodule) != (e.Mode == gitindex.ModeGitlink):
			*out = append(*out, FileChange{Path: e.Name, Status: "T"})
		default:
			*out = append(*out, FileChange{Path: e.Name, Status: "M"})
		}
	}
	for name, oe := range olds {
		if oe.Mode == filemode.Dir {
			if err := r.listTree(out, oe.Hash, prefix+name, "D"); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, FileChange{Path: prefix + name, Status: "D"})
	}
	return nil
}

// listTree lists every file below the tree h (at dir) with status.
func (r *Repo) listTree(out *[]FileChange, h plumbing.Hash, dir, status string) error {
	es, err := r.treeEntries(h)
	if err != nil {
		return err
	}
	for name, e := range es {
		if e.Mode == filemode.Dir {
			if err := r.listTree(out, e.Hash, dir+"/"+name, status); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, FileChange{Path: dir + "/" + name, Status: status})
	}
	return nil
}
