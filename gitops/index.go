package gitops

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
)

// The index (.git/index) is read and written here rather than with go-git's codec: staging a
// large work tree has to decode it once and encode it once, and go-git's codec is reflection
// based, drops the cache-tree extension and writes the file in place without git's lock.

const (
	flagAssumeValid = 0x8000
	flagExtended    = 0x4000
	flagStageMask   = 0x3000
	flagNameMask    = 0x0fff
	extSkipWorktree = 1 << 14
	extIntentToAdd  = 1 << 13

	modeRegular    = 0o100644
	modeExecutable = 0o100755
	modeSymlink    = 0o120000
	modeGitlink    = 0o160000
	modeTree       = 0o040000
)

// hash20 is a SHA-1 object id.
type hash20 [20]byte

func (h hash20) String() string { return fmt.Sprintf("%x", h[:]) }

func (h hash20) isZero() bool { return h == hash20{} }

// entry is one index entry, with git's stat data.
type entry struct {
	ctimeS, ctimeN uint32
	mtimeS, mtimeN uint32
	dev, ino       uint32
	mode           uint32
	uid, gid       uint32
	size           uint32
	hash           hash20
	flags          uint16 // assume-valid and stage bits; the name length is recomputed on write
	ext            uint16 // skip-worktree and intent-to-add
	name           string
	// fresh (in memory only, git's CE_UPTODATE): the stat data was taken from the file by this
	// process, together with its content.
	fresh bool
}

func (e *entry) stage() int          { return int(e.flags&flagStageMask) >> 12 }
func (e *entry) skipWorktree() bool  { return e.ext&extSkipWorktree != 0 }
func (e *entry) intentToAdd() bool   { return e.ext&extIntentToAdd != 0 }
func (e *entry) setStat(st fileStat) { st.fill(e); e.fresh = true }

// cacheTree is the TREE extension: for a directory ("" is the top), how many index entries its
// tree covers and that tree's id, when still valid.
type cacheTree map[string]cacheTreeNode

type cacheTreeNode struct {
	count int // -1: invalid
	hash  hash20
}

// index is a decoded index file.
type index struct {
	version uint32
	entries []*entry
	tree    cacheTree
	sum     hash20 // the file's trailing checksum, to notice a change on disk
	// mtime of the file when read: entries modified at or after it are "racily clean" and
	// must be compared by content.
	mtimeS, mtimeN uint32
}

var errIndexCorrupt = errors.New("index file corrupt")

// readIndex reads path; a missing file is an empty index.
func readIndex(path string) (*index, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &index{version: 2, tree: cacheTree{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	idx, err := decodeIndex(b)
	if err != nil {
		return nil, fmt.Errorf("read index %s: %w", path, err)
	}
	s := statOf(st)
	idx.mtimeS, idx.mtimeN = s.mtimeS, s.mtimeN
	return idx, nil
}

func decodeIndex(b []byte) (*index, error) {
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return nil, errIndexCorrupt
	}
	body := b[:len(b)-20]
	var sum hash20
	copy(sum[:], b[len(b)-20:])
	if sha1.Sum(body) != sum {
		return nil, fmt.Errorf("%w: bad checksum", errIndexCorrupt)
	}
	idx := &index{version: binary.BigEndian.Uint32(b[4:8]), tree: cacheTree{}, sum: sum}
	if idx.version < 2 || idx.version > 4 {
		return nil, fmt.Errorf("index version %d is not supported", idx.version)
	}
	n := int(binary.BigEndian.Uint32(b[8:12]))
	idx.entries = make([]*entry, 0, n)
	pos := 12
	prev := ""
	for range n {
		if pos+62 > len(body) {
			return nil, errIndexCorrupt
		}
		p := body[pos:]
		e := &entry{
			ctimeS: binary.BigEndian.Uint32(p[0:]), ctimeN: binary.BigEndian.Uint32(p[4:]),
			mtimeS: binary.BigEndian.Uint32(p[8:]), mtimeN: binary.BigEndian.Uint32(p[12:]),
			dev: binary.BigEndian.Uint32(p[16:]), ino: binary.BigEndian.Uint32(p[20:]),
			mode: binary.BigEndian.Uint32(p[24:]),
			uid:  binary.BigEndian.Uint32(p[28:]), gid: binary.BigEndian.Uint32(p[32:]),
			size: binary.BigEndian.Uint32(p[36:]),
		}
		copy(e.hash[:], p[40:60])
		flags := binary.BigEndian.Uint16(p[60:])
		e.flags = flags & (flagAssumeValid | flagStageMask)
		hdr := 62
		if flags&flagExtended != 0 {
			if idx.version < 3 || len(p) < 64 {
				return nil, errIndexCorrupt
			}
			e.ext = binary.BigEndian.Uint16(p[62:]) & (extSkipWorktree | extIntentToAdd)
			hdr = 64
		}
		p = p[hdr:]
		if idx.version == 4 {
			strip, k := decodeVarint(p)
			if k == 0 || strip > len(prev) {
				return nil, errIndexCorrupt
			}
			end := bytes.IndexByte(p[k:], 0)
			if end < 0 {
				return nil, errIndexCorrupt
			}
			e.name = prev[:len(prev)-strip] + string(p[k:k+end])
			pos += hdr + k + end + 1
		} else {
			end := bytes.IndexByte(p, 0)
			if end < 0 {
				return nil, errIndexCorrupt
			}
			e.name = string(p[:end])
			pos += (hdr + end + 8) &^ 7 // NUL padding to a multiple of 8
		}
		prev = e.name
		idx.entries = append(idx.entries, e)
	}
	for pos+8 <= len(body) {
		sig := string(body[pos : pos+4])
		size := int(binary.BigEndian.Uint32(body[pos+4:]))
		if pos+8+size > len(body) {
			return nil, errIndexCorrupt
		}
		data := body[pos+8 : pos+8+size]
		switch {
		case sig == "TREE":
			if err := idx.tree.decode(data); err != nil {
				return nil, err
			}
		case sig[0] >= 'A' && sig[0] <= 'Z':
			// Optional extensions (resolve-undo, untracked cache, fsmonitor, …) are dropped on
			// write; git rebuilds them.
		default:
			return nil, fmt.Errorf("index extension %q is not supported (split or sparse index)", sig)
		}
		pos += 8 + size
	}
	return idx, nil
}

func (t cacheTree) decode(data []byte) error {
	var read func(prefix string) error
	read = func(prefix string) error {
		end := bytes.IndexByte(data, 0)
		if end < 0 {
			return errIndexCorrupt
		}
		name := string(data[:end])
		data = data[end+1:]
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return errIndexCorrupt
		}
		countStr, subStr, ok := bytes.Cut(data[:nl], []byte{' '})
		if !ok {
			return errIndexCorrupt
		}
		data = data[nl+1:]
		count, err1 := strconv.Atoi(string(countStr))
		subs, err2 := strconv.Atoi(string(subStr))
		if err1 != nil || err2 != nil {
			return errIndexCorrupt
		}
		dir := joinPath(prefix, name)
		node := cacheTreeNode{count: count}
		if count >= 0 {
			if len(data) < 20 {
				return errIndexCorrupt
			}
			copy(node.hash[:], data[:20])
			data = data[20:]
		}
		t[dir] = node
		for range subs {
			if err := read(dir); err != nil {
				return err
			}
		}
		return nil
	}
	for len(data) > 0 {
		if err := read(""); err != nil {
			return err
		}
	}
	return nil
}

// joinPath joins a directory ("" for the top) and a name.
func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	if name == "" {
		return dir
	}
	return dir + "/" + name
}

// decodeVarint reads git's offset varint (index v4 name prefixes); k is the bytes used, 0 on error.
func decodeVarint(p []byte) (v, k int) {
	if len(p) == 0 {
		return 0, 0
	}
	c := p[0]
	v = int(c & 127)
	k = 1
	for c&128 != 0 {
		if k >= len(p) || k > 9 {
			return 0, 0
		}
		c = p[k]
		k++
		v = ((v + 1) << 7) | int(c&127)
	}
	return v, k
}

func appendVarint(b []byte, v int) []byte {
	var buf [16]byte
	pos := len(buf) - 1
	buf[pos] = byte(v & 127)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		buf[pos] = 128 | byte(v&127)
	}
	return append(b, buf[pos:]...)
}

// sortEntries puts entries in index order: by name, then stage.
func sortEntries(es []*entry) {
	sort.Slice(es, func(i, j int) bool {
		if es[i].name != es[j].name {
			return es[i].name < es[j].name
		}
		return es[i].stage() < es[j].stage()
	})
}

// encode serializes the index (entries must be sorted) with the given cache tree, a pre-order
// list of directories as treeBuilder produces it.
func (idx *index) encode(tree []treeNode) []byte {
	version := idx.version
	if version < 2 || version > 4 {
		version = 2
	}
	if version == 2 {
		for _, e := range idx.entries {
			if e.ext != 0 {
				version = 3
				break
			}
		}
	}
	b := make([]byte, 0, 12+len(idx.entries)*96)
	b = append(b, "DIRC"...)
	b = binary.BigEndian.AppendUint32(b, version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(idx.entries)))
	prev := ""
	for _, e := range idx.entries {
		start := len(b)
		for _, v := range [...]uint32{e.ctimeS, e.ctimeN, e.mtimeS, e.mtimeN, e.dev, e.ino, e.mode, e.uid, e.gid, e.size} {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		b = append(b, e.hash[:]...)
		flags := e.flags & (flagAssumeValid | flagStageMask)
		flags |= uint16(min(len(e.name), flagNameMask))
		if e.ext != 0 {
			flags |= flagExtended
		}
		b = binary.BigEndian.AppendUint16(b, flags)
		if e.ext != 0 {
			b = binary.BigEndian.AppendUint16(b, e.ext)
		}
		if version == 4 {
			common := 0
			for common < len(prev) && common < len(e.name) && prev[common] == e.name[common] {
				common++
			}
			b = appendVarint(b, len(prev)-common)
			b = append(b, e.name[common:]...)
			b = append(b, 0)
		} else {
			b = append(b, e.name...)
			n := len(b) - start
			pad := (n+8)&^7 - n
			b = append(b, make([]byte, pad)...)
		}
		prev = e.name
	}
	if len(tree) > 0 {
		var ext []byte
		for _, node := range tree {
			name := node.dir
			if i := lastSlash(name); i >= 0 {
				name = name[i+1:]
			}
			ext = append(ext, name...)
			ext = append(ext, 0)
			ext = strconv.AppendInt(ext, int64(node.count), 10)
			ext = append(ext, ' ')
			ext = strconv.AppendInt(ext, int64(node.subs), 10)
			ext = append(ext, '\n')
			ext = append(ext, node.hash[:]...)
		}
		b = append(b, "TREE"...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(ext)))
		b = append(b, ext...)
	}
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}
