package gitops

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unsafe"

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

// treeEntry is one entry of a tree object.
type treeEntry struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

// readTreeEntries reads the entries of the tree h in the tree's order, their names pointing into
// one copy of its content (object.Tree's decoding allocates a buffered reader and a string an
// entry).
func (r *Repo) readTreeEntries(h plumbing.Hash) ([]treeEntry, error) {
	if h.IsZero() || h == gitobj.EmptyTree {
		return nil, nil
	}
	obj, err := r.readObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	defer rd.Close()
	b := make([]byte, obj.Size())
	if _, err := io.ReadFull(rd, b); err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	data := unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
	var es []treeEntry
	for len(data) > 0 {
		sp := strings.IndexByte(data, ' ')
		nul := strings.IndexByte(data, 0)
		if sp <= 0 || nul < sp+2 || len(data) < nul+1+len(plumbing.ZeroHash) {
			return nil, fmt.Errorf("read tree %s: malformed entry", h)
		}
		m, err := strconv.ParseUint(data[:sp], 8, 32)
		if err != nil {
			return nil, fmt.Errorf("read tree %s: malformed mode %q", h, data[:sp])
		}
		e := treeEntry{name: data[sp+1 : nul], mode: filemode.FileMode(m)}
		data = data[nul+1:]
		copy(e.hash[:], data)
		data = data[len(e.hash):]
		if es == nil {
			es = make([]treeEntry, 0, len(data)/32+1) // an entry is 30 bytes or more
		}
		es = append(es, e)
	}
	return es, nil
}

// treeEntries reads the entries of the tree h by name.
func (r *Repo) treeEntries(h plumbing.Hash) (map[string]object.TreeEntry, error) {
	es, err := r.readTreeEntries(h)
	if err != nil {
		return nil, err
	}
	m := make(map[string]object.TreeEntry, len(es))
	for _, e := range es {
		m[e.name] = object.TreeEntry{Name: e.name, Mode: e.mode, Hash: e.hash}
	}
	return m, nil
}

// oldEntries are the entries of a tree being compared with the index, each taken at most once.
type oldEntries struct {
	es    []treeEntry
	taken []bool
	next  int // where the next look-up starts: the index lists names in nearly the tree's order
}

// take finds and takes the entry name.
func (o *oldEntries) take(name string) (treeEntry, bool) {
	for k := range o.es {
		i := (o.next + k) % len(o.es)
		if !o.taken[i] && o.es[i].name == name {
			o.taken[i], o.next = true, i+1
			return o.es[i], true
		}
	}
	return treeEntry{}, false
}

func (r *Repo) diffDir(out *[]FileChange, old plumbing.Hash, dir string, lo, hi int, tb *gitindex.Trees) error {
	if !old.IsZero() && tb.Dirs[dir] == old {
		return nil
	}
	es, err := r.readTreeEntries(old)
	if err != nil {
		return err
	}
	olds := &oldEntries{es: es, taken: make([]bool, len(es))}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	for i := lo; i < hi; {
		e := tb.Entries[i]
		rest := e.Name[len(prefix):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			sub, subPrefix := rest[:j], e.Name[:len(prefix)+j+1] // dir/sub/
			k := i + 1
			for k < hi && strings.HasPrefix(tb.Entries[k].Name, subPrefix) {
				k++
			}
			oe, ok := olds.take(sub)
			var oldSub plumbing.Hash
			if ok && oe.mode == filemode.Dir {
				oldSub = oe.hash
			} else if ok {
				*out = append(*out, FileChange{Path: prefix + sub, Status: "D"})
			}
			if err := r.diffDir(out, oldSub, subPrefix[:len(subPrefix)-1], i, k, tb); err != nil {
				return err
			}
			i = k
			continue
		}
		i++
		if e.IntentToAdd() {
			continue // in the index, not in the tree
		}
		oe, ok := olds.take(rest)
		switch {
		case !ok:
			*out = append(*out, FileChange{Path: e.Name, Status: "A"})
		case oe.mode == filemode.Dir:
			if err := r.listTree(out, oe.hash, e.Name, "D"); err != nil {
				return err
			}
			*out = append(*out, FileChange{Path: e.Name, Status: "A"})
		case oe.hash == e.Hash && uint32(oe.mode) == e.Mode:
		case (uint32(oe.mode)&0o170000 == gitindex.ModeSymlink) != (e.Mode&0o170000 == gitindex.ModeSymlink) ||
			(oe.mode == filemode.Submodule) != (e.Mode == gitindex.ModeGitlink):
			*out = append(*out, FileChange{Path: e.Name, Status: "T"})
		default:
			*out = append(*out, FileChange{Path: e.Name, Status: "M"})
		}
	}
	for i, oe := range olds.es {
		if olds.taken[i] {
			continue
		}
		if oe.mode == filemode.Dir {
			if err := r.listTree(out, oe.hash, prefix+oe.name, "D"); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, FileChange{Path: prefix + oe.name, Status: "D"})
	}
	return nil
}

// listTree lists every file below the tree h (at dir) with status.
func (r *Repo) listTree(out *[]FileChange, h plumbing.Hash, dir, status string) error {
	es, err := r.readTreeEntries(h)
	if err != nil {
		return err
	}
	for _, e := range es {
		if e.mode == filemode.Dir {
			if err := r.listTree(out, e.hash, dir+"/"+e.name, status); err != nil {
				return err
			}
			continue
		}
		*out = append(*out, FileChange{Path: dir + "/" + e.name, Status: status})
	}
	return nil
}
