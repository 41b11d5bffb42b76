package gitindex

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
)

// TreeNode is one directory of the trees built from an index, as the cache-tree extension
// records it.
type TreeNode struct {
	Dir   string // "" for the top
	Count int    // index entries below it; -1: the node is invalid (see BuildTrees)
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
	// scratch holds the trees being encoded, a directory's after its parent's: one buffer
	// for all of them, each copied out at its exact size once complete.
	scratch []byte
}

// BuildTrees computes the trees of entries (stage 0, sorted), reusing the valid nodes of cache,
// and returns them with the id of the top tree.
//
// An intent-to-add entry (git add -N) is in the index but not in any tree: as git does, it is
// left out of its directory's tree, a directory left empty by it is left out of its parent's, and
// the cache-tree nodes of every directory above it are invalid (git trusts a valid node's entry
// count to skip that many index entries).
func BuildTrees(entries []*Entry, cache CacheTree) (*Trees, plumbing.Hash) {
	// Every directory has had a node of the cache tree, unless the tree changed since.
	dirs := len(cache) + 16
	tb := &Trees{Entries: entries, cache: cache, Objs: map[plumbing.Hash][]byte{},
		Nodes: make([]TreeNode, 0, dirs), Dirs: make(map[string]plumbing.Hash, dirs)}
	h, _ := tb.build("", 0, len(entries))
	tb.scratch = nil
	return tb, h
}

// build computes the tree of dir, whose entries are Entries[lo:hi]; ita reports an intent-to-add
// entry below it.
func (tb *Trees) build(dir string, lo, hi int) (h plumbing.Hash, ita bool) {
	pos := len(tb.Nodes)
	tb.Nodes = append(tb.Nodes, TreeNode{Dir: dir, Count: hi - lo})
	cached, ok := tb.cache[dir]
	useCache := ok && cached.Count == hi-lo && !tb.hasIntentToAdd(lo, hi)
	start := len(tb.scratch) // this tree is tb.scratch[start:]
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
			h, subITA := tb.build(prefix+sub, i, k)
			subs++
			ita = ita || subITA
			if !useCache && !(subITA && h == gitobj.EmptyTree) {
				tb.scratch = append(tb.scratch, "40000 "...)
				tb.scratch = append(tb.scratch, sub...)
				tb.scratch = append(tb.scratch, 0)
				tb.scratch = append(tb.scratch, h[:]...)
			}
			i = k
			continue
		}
		i++
		if e.IntentToAdd() {
			ita = true
			continue
		}
		if !useCache {
			tb.scratch = strconv.AppendUint(tb.scratch, uint64(e.Mode), 8)
			tb.scratch = append(tb.scratch, ' ')
			tb.scratch = append(tb.scratch, rest...)
			tb.scratch = append(tb.scratch, 0)
			tb.scratch = append(tb.scratch, e.Hash[:]...)
		}
	}
	if useCache {
		h = cached.Hash
	} else {
		buf := tb.scratch[start:]
		h = gitobj.ID(plumbing.TreeObject, buf)
		if _, ok := tb.Objs[h]; !ok {
			tb.Objs[h] = bytes.Clone(buf)
		}
		tb.scratch = tb.scratch[:start]
	}
	tb.Nodes[pos].Hash = h
	tb.Nodes[pos].Subs = subs
	if ita {
		tb.Nodes[pos].Count = -1
	}
	tb.Dirs[dir] = h
	return h, ita
}

func (tb *Trees) hasIntentToAdd(lo, hi int) bool {
	for _, e := range tb.Entries[lo:hi] {
		if e.IntentToAdd() {
			return true
		}
	}
	return false
}
