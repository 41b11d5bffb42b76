package gitindex

import (
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
)

// TreeNode is one directory of the trees built from an index.
type TreeNode struct {
	Dir   string // "" for the top
	Count int    // index entries below it
	Subs  int    // direct subdirectories
	Hash  plumbing.Hash
}

// Trees are the tree objects of an index, as git's cache-tree.c computes them. Directories whose
// cache-tree node is still valid are not encoded again.
type Trees struct {
	Entries []*Entry                 // stage 0, sorted
	Objs    map[plumbing.Hash][]byte // tree objects computed here (without the object header)
	Nodes   []TreeNode               // every directory, pre-order (the cache-tree extension)
	Dirs    map[string]plumbing.Hash // every directory's tree id
	cache   CacheTree
}

// BuildTrees computes the trees of entries (stage 0, sorted), reusing the valid nodes of cache,
// and returns them with the id of the top tree.
func BuildTrees(entries []*Entry, cache CacheTree) (*Trees, plumbing.Hash) {
	tb := &Trees{Entries: entries, cache: cache, Objs: map[plumbing.Hash][]byte{}, Dirs: map[string]plumbing.Hash{}}
	h := tb.build("", 0, len(entries))
	return tb, h
}

func (tb *Trees) build(dir string, lo, hi int) plumbing.Hash {
	pos := len(tb.Nodes)
	tb.Nodes = append(tb.Nodes, TreeNode{Dir: dir, Count: hi - lo})
	cached, ok := tb.cache[dir]
	useCache := ok && cached.Count == hi-lo
	var buf []byte
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	subs := 0
	for i := lo; i < hi; {
		e := tb.Entries[i]
		rest := e.Name[len(prefix):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			sub := rest[:j]
			subPrefix := prefix + sub + "/"
			k := i + 1
			for k < hi && strings.HasPrefix(tb.Entries[k].Name, subPrefix) {
				k++
			}
			h := tb.build(prefix+sub, i, k)
			subs++
			if !useCache {
				buf = append(buf, "40000 "...)
				buf = append(buf, sub...)
				buf = append(buf, 0)
				buf = append(buf, h[:]...)
			}
			i = k
			continue
		}
		if !useCache {
			buf = strconv.AppendUint(buf, uint64(e.Mode), 8)
			buf = append(buf, ' ')
			buf = append(buf, rest...)
			buf = append(buf, 0)
			buf = append(buf, e.Hash[:]...)
		}
		i++
	}
	var h plumbing.Hash
	if useCache {
		h = cached.Hash
	} else {
		h = gitobj.ID(plumbing.TreeObject, buf)
		tb.Objs[h] = buf
	}
	tb.Nodes[pos].Hash = h
	tb.Nodes[pos].Subs = subs
	tb.Dirs[dir] = h
	return h
}
