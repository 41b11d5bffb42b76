// Package gitindex reads and writes git's index file (.git/index) as git does: versions 2, 3
// and 4, the cache-tree extension (TREE) kept up to date and written back, the optional
// extensions git rebuilds by itself dropped, a split or sparse index refused; racily clean
// entries compared by content when read and smudged when written; the file replaced under
// index.lock only if it is still the one that was read. It also computes the trees of an index
// (git's cache-tree.c), which is what a commit records.
//
// go-git's own codec is not used: it is reflection based, drops the cache tree and writes the
// file in place without git's lock, and staging a large work tree has to decode the index once
// and encode it once.
package gitindex

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// Entry modes.
const (
	ModeRegular    = 0o100644
	ModeExecutable = 0o100755
	ModeSymlink    = 0o120000
	ModeGitlink    = 0o160000
	ModeTree       = 0o040000
)

// Entry flags (Flags) and extended flags (Ext).
const (
	FlagAssumeValid = 0x8000
	flagExtended    = 0x4000
	FlagStageMask   = 0x3000
	flagNameMask    = 0x0fff
	ExtSkipWorktree = 1 << 14
	ExtIntentToAdd  = 1 << 13
)

// Entry is one index entry, with git's stat data.
type Entry struct {
	Stat
	Mode  uint32
	Hash  plumbing.Hash
	Flags uint16 // assume-valid and stage bits; the name length is recomputed on write
	Ext   uint16 // skip-worktree and intent-to-add
	Name  string
	// Fresh (in memory only, git's CE_UPTODATE): the stat data was taken from the file by this
	// process, together with its content.
	Fresh bool
}

// Stage is the entry's merge stage: 0, or 1-3 for an unresolved conflict.
func (e *Entry) Stage() int { return int(e.Flags&FlagStageMask) >> 12 }

// SkipWorktree reports the skip-worktree bit (sparse checkout).
func (e *Entry) SkipWorktree() bool { return e.Ext&ExtSkipWorktree != 0 }

// IntentToAdd reports an entry added with `git add -N`.
func (e *Entry) IntentToAdd() bool { return e.Ext&ExtIntentToAdd != 0 }

// AssumeValid reports `git update-index --assume-unchanged`.
func (e *Entry) AssumeValid() bool { return e.Flags&FlagAssumeValid != 0 }

// SetStat records st as the entry's stat data, taken together with the file's content.
func (e *Entry) SetStat(st FileStat) { e.Stat = st.Stat; e.Fresh = true }

// CacheTree is the TREE extension: for a directory ("" is the top), how many index entries its
// tree covers and that tree's id, when still valid.
type CacheTree map[string]CacheTreeNode

// CacheTreeNode is one directory's node of the cache tree.
type CacheTreeNode struct {
	Count int // -1: invalid
	Hash  plumbing.Hash
}

// Index is a decoded index file.
type Index struct {
	Version uint32
	Entries []*Entry // sorted by name, then stage
	Tree    CacheTree
	Sum     plumbing.Hash // the file's trailing checksum, to notice a change on disk
	// MtimeS and MtimeN are the file's mtime when read: entries modified at or after it are
	// "racily clean" and must be compared by content (Racy).
	MtimeS, MtimeN uint32
}

// ErrCorrupt is an index file git would not read either.
var ErrCorrupt = errors.New("index file corrupt")

// Read reads the index file path; a missing file is an empty index.
func Read(path string) (*Index, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Index{Version: 2, Tree: CacheTree{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	idx, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("read index %s: %w", path, err)
	}
	s := StatOf(st)
	idx.MtimeS, idx.MtimeN = s.MtimeS, s.MtimeN
	return idx, nil
}

// Decode decodes the content of an index file.
func Decode(b []byte) (*Index, error) {
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return nil, ErrCorrupt
	}
	body := b[:len(b)-20]
	var sum plumbing.Hash
	copy(sum[:], b[len(b)-20:])
	if sha1.Sum(body) != sum {
		return nil, fmt.Errorf("%w: bad checksum", ErrCorrupt)
	}
	idx := &Index{Version: binary.BigEndian.Uint32(b[4:8]), Tree: CacheTree{}, Sum: sum}
	if idx.Version < 2 || idx.Version > 4 {
		return nil, fmt.Errorf("index version %d is not supported", idx.Version)
	}
	n := int(binary.BigEndian.Uint32(b[8:12]))
	idx.Entries = make([]*Entry, 0, n)
	pos := 12
	prev := ""
	for range n {
		if pos+62 > len(body) {
			return nil, ErrCorrupt
		}
		p := body[pos:]
		e := &Entry{
			Stat: Stat{
				CtimeS: binary.BigEndian.Uint32(p[0:]), CtimeN: binary.BigEndian.Uint32(p[4:]),
				MtimeS: binary.BigEndian.Uint32(p[8:]), MtimeN: binary.BigEndian.Uint32(p[12:]),
				Dev: binary.BigEndian.Uint32(p[16:]), Ino: binary.BigEndian.Uint32(p[20:]),
				UID: binary.BigEndian.Uint32(p[28:]), GID: binary.BigEndian.Uint32(p[32:]),
				Size: binary.BigEndian.Uint32(p[36:]),
			},
			Mode: binary.BigEndian.Uint32(p[24:]),
		}
		copy(e.Hash[:], p[40:60])
		flags := binary.BigEndian.Uint16(p[60:])
		e.Flags = flags & (FlagAssumeValid | FlagStageMask)
		hdr := 62
		if flags&flagExtended != 0 {
			if idx.Version < 3 || len(p) < 64 {
				return nil, ErrCorrupt
			}
			e.Ext = binary.BigEndian.Uint16(p[62:]) & (ExtSkipWorktree | ExtIntentToAdd)
			hdr = 64
		}
		p = p[hdr:]
		if idx.Version == 4 {
			strip, k := decodeVarint(p)
			if k == 0 || strip > len(prev) {
				return nil, ErrCorrupt
			}
			end := bytes.IndexByte(p[k:], 0)
			if end < 0 {
				return nil, ErrCorrupt
			}
			e.Name = prev[:len(prev)-strip] + string(p[k:k+end])
			pos += hdr + k + end + 1
		} else {
			end := bytes.IndexByte(p, 0)
			if end < 0 {
				return nil, ErrCorrupt
			}
			e.Name = string(p[:end])
			pos += (hdr + end + 8) &^ 7 // NUL padding to a multiple of 8
		}
		prev = e.Name
		idx.Entries = append(idx.Entries, e)
	}
	for pos+8 <= len(body) {
		sig := string(body[pos : pos+4])
		size := int(binary.BigEndian.Uint32(body[pos+4:]))
		if pos+8+size > len(body) {
			return nil, ErrCorrupt
		}
		data := body[pos+8 : pos+8+size]
		switch {
		case sig == "TREE":
			if err := idx.Tree.decode(data); err != nil {
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

func (t CacheTree) decode(data []byte) error {
	var read func(prefix string) error
	read = func(prefix string) error {
		end := bytes.IndexByte(data, 0)
		if end < 0 {
			return ErrCorrupt
		}
		name := string(data[:end])
		data = data[end+1:]
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return ErrCorrupt
		}
		countStr, subStr, ok := bytes.Cut(data[:nl], []byte{' '})
		if !ok {
			return ErrCorrupt
		}
		data = data[nl+1:]
		count, err1 := strconv.Atoi(string(countStr))
		subs, err2 := strconv.Atoi(string(subStr))
		if err1 != nil || err2 != nil {
			return ErrCorrupt
		}
		dir := JoinPath(prefix, name)
		node := CacheTreeNode{Count: count}
		if count >= 0 {
			if len(data) < 20 {
				return ErrCorrupt
			}
			copy(node.Hash[:], data[:20])
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

// Invalidate drops the cache-tree nodes of every directory above path.
func (t CacheTree) Invalidate(path string) {
	for {
		i := lastSlash(path)
		if i < 0 {
			delete(t, "")
			return
		}
		path = path[:i]
		delete(t, path)
	}
}

// JoinPath joins a directory ("" for the top) and a name.
func JoinPath(dir, name string) string {
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

// SortEntries puts entries in index order: by name, then stage.
func SortEntries(es []*Entry) {
	sort.Slice(es, func(i, j int) bool {
		if es[i].Name != es[j].Name {
			return es[i].Name < es[j].Name
		}
		return es[i].Stage() < es[j].Stage()
	})
}

// Unmerged lists the paths with unresolved conflicts.
func (idx *Index) Unmerged() []string {
	var out []string
	for _, e := range idx.Entries {
		if e.Stage() != 0 && (len(out) == 0 || out[len(out)-1] != e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
}

// Encode serializes the index (entries must be sorted) with the given cache tree, a pre-order
// list of directories as BuildTrees produces it.
func (idx *Index) Encode(tree []TreeNode) []byte {
	version := idx.Version
	if version < 2 || version > 4 {
		version = 2
	}
	if version == 2 {
		for _, e := range idx.Entries {
			if e.Ext != 0 {
				version = 3
				break
			}
		}
	}
	b := make([]byte, 0, 12+len(idx.Entries)*96)
	b = append(b, "DIRC"...)
	b = binary.BigEndian.AppendUint32(b, version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(idx.Entries)))
	prev := ""
	for _, e := range idx.Entries {
		start := len(b)
		for _, v := range [...]uint32{e.CtimeS, e.CtimeN, e.MtimeS, e.MtimeN, e.Dev, e.Ino, e.Mode, e.UID, e.GID, e.Size} {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		b = append(b, e.Hash[:]...)
		flags := e.Flags & (FlagAssumeValid | FlagStageMask)
		flags |= uint16(min(len(e.Name), flagNameMask))
		if e.Ext != 0 {
			flags |= flagExtended
		}
		b = binary.BigEndian.AppendUint16(b, flags)
		if e.Ext != 0 {
			b = binary.BigEndian.AppendUint16(b, e.Ext)
		}
		if version == 4 {
			common := 0
			for common < len(prev) && common < len(e.Name) && prev[common] == e.Name[common] {
				common++
			}
			b = appendVarint(b, len(prev)-common)
			b = append(b, e.Name[common:]...)
			b = append(b, 0)
		} else {
			b = append(b, e.Name...)
			n := len(b) - start
			pad := (n+8)&^7 - n
			b = append(b, make([]byte, pad)...)
		}
		prev = e.Name
	}
	if len(tree) > 0 {
		var ext []byte
		for _, node := range tree {
			name := node.Dir
			if i := lastSlash(name); i >= 0 {
				name = name[i+1:]
			}
			ext = append(ext, name...)
			ext = append(ext, 0)
			ext = strconv.AppendInt(ext, int64(node.Count), 10)
			ext = append(ext, ' ')
			ext = strconv.AppendInt(ext, int64(node.Subs), 10)
			ext = append(ext, '\n')
			ext = append(ext, node.Hash[:]...)
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
