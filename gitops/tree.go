package gitops

import (
	"crypto/sha1"
	"fmt"
	"strconv"
	"strings"
)

// treeNode is one directory of the tree built from the index.
type treeNode struct {
	dir   string // "" for the top
	count int    // index entries below it
	subs  int    // direct subdirectories
	hash  hash20
}

// treeBuilder computes the tree objects of an index. Directories whose cache-tree node is still
// valid are not re-encoded; the others are kept in objs until they are written.
type treeBuilder struct {
	entries []*entry // stage 0, sorted
	cache   cacheTree
	objs    map[hash20][]byte // tree objects computed here (without the object header)
	nodes   []treeNode        // every directory, pre-order (the cache-tree extension)
	dirs    map[string]hash20 // every directory's tree id
}

func buildTrees(entries []*entry, cache cacheTree) (*treeBuilder, hash20) {
	tb := &treeBuilder{entries: entries, cache: cache, objs: map[hash20][]byte{}, dirs: map[string]hash20{}}
	h := tb.build("", 0, len(entries))
	return tb, h
}

func (tb *treeBuilder) build(dir string, lo, hi int) hash20 {
	pos := len(tb.nodes)
	tb.nodes = append(tb.nodes, treeNode{dir: dir, count: hi - lo})
	cached, ok := tb.cache[dir]
	useCache := ok && cached.count == hi-lo
	var buf []byte
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	subs := 0
	for i := lo; i < hi; {
		e := tb.entries[i]
		rest := e.name[len(prefix):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			sub := rest[:j]
			subPrefix := prefix + sub + "/"
			k := i + 1
			for k < hi && strings.HasPrefix(tb.entries[k].name, subPrefix) {
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
			buf = strconv.AppendUint(buf, uint64(e.mode), 8)
			buf = append(buf, ' ')
			buf = append(buf, rest...)
			buf = append(buf, 0)
			buf = append(buf, e.hash[:]...)
		}
		i++
	}
	var h hash20
	if useCache {
		h = cached.hash
	} else {
		h = objectID("tree", buf)
		tb.objs[h] = buf
	}
	tb.nodes[pos].hash = h
	tb.nodes[pos].subs = subs
	tb.dirs[dir] = h
	return h
}

// objectID is the id git gives an object of type typ with content data.
func objectID(typ string, data []byte) hash20 {
	s := sha1.New()
	fmt.Fprintf(s, "%s %d\x00", typ, len(data))
	s.Write(data)
	var h hash20
	copy(h[:], s.Sum(nil))
	return h
}

// invalidate drops the cache-tree nodes of every directory above path.
func (c cacheTree) invalidate(path string) {
	for {
		i := lastSlash(path)
		if i < 0 {
			delete(c, "")
			return
		}
		path = path[:i]
		delete(c, path)
	}
}
