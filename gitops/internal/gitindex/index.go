// Package gitindex reads and writes git's index file (.git/index) as git does: versions 2, 3
// and 4, the cache-tree extension (TREE) kept up to date and written back, the resolve-undo
// record (REUC) kept as git add and git commit keep it, the optional extensions git rebuilds by
// itself (untracked cache, fsmonitor, entry offsets) dropped, a split or sparse index refused; racily clean
// entries compared by content when read and smudged when written; the file replaced under
// index.lock only if it is still the one that was read. It also computes the trees of an index
// (git's cache-tree.c), which is what a commit records.
//
// go-git's own codec is not used: it is reflection based, drops the cache tree and writes the
// file in place without git's lock, and staging a large work tree has to decode the index once
// and encode it once.
package gitindex

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unsafe"

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
	Flags uint16 // assume-valid and stage bits; in memory also flagFresh
	Ext   uint16 // skip-worktree and intent-to-add
	Name  string
}

// flagFresh (in memory only, git's CE_UPTODATE) marks an entry whose stat data was taken from
// its file by this process, together with its content. It lives in the bits that hold the name
// length on disk, which are computed on write.
const flagFresh = 0x0001

// Stage is the entry's merge stage: 0, or 1-3 for an unresolved conflict.
func (e *Entry) Stage() int { return int(e.Flags&FlagStageMask) >> 12 }

// SkipWorktree reports the skip-worktree bit (sparse checkout).
func (e *Entry) SkipWorktree() bool { return e.Ext&ExtSkipWorktree != 0 }

// IntentToAdd reports an entry added with `git add -N`.
func (e *Entry) IntentToAdd() bool { return e.Ext&ExtIntentToAdd != 0 }

// AssumeValid reports `git update-index --assume-unchanged`.
func (e *Entry) AssumeValid() bool { return e.Flags&FlagAssumeValid != 0 }

// Fresh reports whether the entry's stat data was taken from its file, with its content, by this
// process (SetStat).
func (e *Entry) Fresh() bool { return e.Flags&flagFresh != 0 }

// SetStat records st as the entry's stat data, taken together with the file's content.
func (e *Entry) SetStat(st FileStat) { e.Stat = st.Stat; e.Flags |= flagFresh }

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
	// ResolveUndo is the REUC extension as read: the conflicts resolved with git add, which
	// `git checkout -m` can bring back. It is written back unchanged, as git add does.
	ResolveUndo []byte
	Sum         plumbing.Hash // the file's trailing checksum, to notice a change on disk
	// MtimeS and MtimeN are the file's mtime when read: entries modified at or after it are
	// "racily clean" and must be compared by content (Racy).
	MtimeS, MtimeN uint32
}

// ErrCorrupt is an index file git would not read either.
var ErrCorrupt = errors.New("index file corrupt")

// Read reads the index file path; a missing file is an empty index. The file is read as a
// stream: what is kept of it is its entries.
func Read(path string) (*Index, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Index{Version: 2, Tree: CacheTree{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	idx, err := decode(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("read index %s: %w", path, err)
	}
	s := StatOf(fi)
	idx.MtimeS, idx.MtimeN = s.MtimeS, s.MtimeN
	return idx, nil
}

// Decode decodes the content of an index file.
func Decode(b []byte) (*Index, error) { return decode(bytes.NewReader(b), int64(len(b))) }

// decoder reads an index file's body (everything but the trailing checksum), hashing it.
type decoder struct {
	r   *bufio.Reader
	pos int64 // bytes of the body read
	end int64 // the body's length
	buf [64]byte
}

// read reads exactly n (at most 64) bytes.
func (d *decoder) read(n int) ([]byte, error) {
	if d.pos+int64(n) > d.end {
		return nil, ErrCorrupt
	}
	if _, err := io.ReadFull(d.r, d.buf[:n]); err != nil {
		return nil, corrupt(err)
	}
	d.pos += int64(n)
	return d.buf[:n], nil
}

// name appends the bytes up to the next NUL (not included) to arena.
func (d *decoder) name(arena []byte) ([]byte, error) {
	for {
		chunk, err := d.r.ReadSlice(0)
		d.pos += int64(len(chunk))
		if d.pos > d.end {
			return nil, ErrCorrupt
		}
		switch {
		case err == nil:
			return append(arena, chunk[:len(chunk)-1]...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			arena = append(arena, chunk...)
		default:
			return nil, corrupt(err)
		}
	}
}

func (d *decoder) discard(n int64) error {
	if d.pos+n > d.end {
		return ErrCorrupt
	}
	for n > 0 {
		k := int(min(n, 1<<30))
		if _, err := d.r.Discard(k); err != nil {
			return corrupt(err)
		}
		n -= int64(k)
		d.pos += int64(k)
	}
	return nil
}

func corrupt(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ErrCorrupt
	}
	return err
}

// decode reads an index file of size bytes from r. Entries are allocated in one block and their
// names in one string: a large index is a few allocations, not two an entry.
func decode(r io.Reader, size int64) (*Index, error) {
	if size < 12+20 {
		return nil, ErrCorrupt
	}
	h := sha1.New()
	d := &decoder{r: bufio.NewReaderSize(io.TeeReader(io.LimitReader(r, size-20), h), 64<<10), end: size - 20}
	hdr, err := d.read(12)
	if err != nil {
		return nil, err
	}
	if string(hdr[:4]) != "DIRC" {
		return nil, ErrCorrupt
	}
	idx := &Index{Version: binary.BigEndian.Uint32(hdr[4:8]), Tree: CacheTree{}}
	if idx.Version < 2 || idx.Version > 4 {
		return nil, fmt.Errorf("index version %d is not supported", idx.Version)
	}
	n := int64(binary.BigEndian.Uint32(hdr[8:12]))
	if n*62 > d.end {
		return nil, ErrCorrupt
	}
	slab := make([]Entry, n)
	idx.Entries = make([]*Entry, n)
	var names nameArena
	prev := ""
	for i := range slab {
		e := &slab[i]
		idx.Entries[i] = e
		p, err := d.read(62)
		if err != nil {
			return nil, err
		}
		e.Stat = Stat{
			CtimeS: binary.BigEndian.Uint32(p[0:]), CtimeN: binary.BigEndian.Uint32(p[4:]),
			MtimeS: binary.BigEndian.Uint32(p[8:]), MtimeN: binary.BigEndian.Uint32(p[12:]),
			Dev: binary.BigEndian.Uint32(p[16:]), Ino: binary.BigEndian.Uint32(p[20:]),
			UID: binary.BigEndian.Uint32(p[28:]), GID: binary.BigEndian.Uint32(p[32:]),
			Size: binary.BigEndian.Uint32(p[36:]),
		}
		e.Mode = binary.BigEndian.Uint32(p[24:])
		copy(e.Hash[:], p[40:60])
		flags := binary.BigEndian.Uint16(p[60:])
		e.Flags = flags & (FlagAssumeValid | FlagStageMask)
		hdrLen := 62
		if flags&flagExtended != 0 {
			if idx.Version < 3 {
				return nil, ErrCorrupt
			}
			x, err := d.read(2)
			if err != nil {
				return nil, err
			}
			e.Ext = binary.BigEndian.Uint16(x) & (ExtSkipWorktree | ExtIntentToAdd)
			hdrLen = 64
		}
		b := names.start(int(flags & flagNameMask))
		if idx.Version == 4 {
			strip, err := d.varint()
			if err != nil {
				return nil, err
			}
			if strip > len(prev) {
				return nil, ErrCorrupt
			}
			b = append(b, prev[:len(prev)-strip]...)
			if b, err = d.name(b); err != nil {
				return nil, err
			}
		} else {
			if b, err = d.name(b); err != nil {
				return nil, err
			}
			n := hdrLen + len(b) + 1 // with the NUL read
			if err := d.discard(int64((n+7)&^7 - n)); err != nil {
				return nil, err
			}
		}
		e.Name = names.end(b)
		prev = e.Name
	}
	for d.pos+8 <= d.end {
		x, err := d.read(8)
		if err != nil {
			return nil, err
		}
		sig := string(x[:4])
		size := int64(binary.BigEndian.Uint32(x[4:]))
		switch {
		case sig == "TREE":
			if d.pos+size > d.end {
				return nil, ErrCorrupt
			}
			data := make([]byte, size)
			if _, err := io.ReadFull(d.r, data); err != nil {
				return nil, corrupt(err)
			}
			d.pos += size
			if err := idx.Tree.decode(data); err != nil {
				return nil, err
			}
		case sig == "REUC":
			if d.pos+size > d.end {
				return nil, ErrCorrupt
			}
			idx.ResolveUndo = make([]byte, size)
			if _, err := io.ReadFull(d.r, idx.ResolveUndo); err != nil {
				return nil, corrupt(err)
			}
			d.pos += size
		case sig[0] >= 'A' && sig[0] <= 'Z':
			// The other optional extensions (untracked cache, fsmonitor, end of index entries,
			// index entry offsets) are dropped on write: they describe the work tree or the
			// file's layout, git rebuilds them, and it drops the ones it does not know.
			if err := d.discard(size); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("index extension %q is not supported (split or sparse index)", sig)
		}
	}
	if d.pos != d.end {
		return nil, ErrCorrupt
	}
	if _, err := io.ReadFull(r, idx.Sum[:]); err != nil {
		return nil, corrupt(err)
	}
	if !bytes.Equal(h.Sum(nil), idx.Sum[:]) {
		return nil, fmt.Errorf("%w: bad checksum", ErrCorrupt)
	}
	return idx, nil
}

// nameArena holds the names of a decoded index: appended to chunks that are never moved nor
// written again once a name is taken from them, so that every name is a string pointing into a
// chunk, without a copy or an allocation of its own, and the chunks hold little more than the
// names (the file's size bounds them only with its padding and extensions).
type nameArena struct {
	chunk []byte
}

// arenaChunk is the size of a chunk of names.
const arenaChunk = 64 << 10

// start returns the buffer to append a name of about size bytes to (its length as the entry's
// flags say; a longer name still fits, the buffer growing by append).
func (a *nameArena) start(size int) []byte {
	if cap(a.chunk)-len(a.chunk) < size+1 {
		a.chunk = make([]byte, 0, max(arenaChunk, size+1))
	}
	return a.chunk[len(a.chunk):len(a.chunk)]
}

// end takes the name appended to b, which start returned, as a string and moves past it.
func (a *nameArena) end(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if &b[0] == &a.chunk[:cap(a.chunk)][len(a.chunk)] && len(b) <= cap(a.chunk)-len(a.chunk) {
		a.chunk = a.chunk[:len(a.chunk)+len(b)] // b is in the chunk: move past it
	} else {
		a.chunk = nil // b outgrew the chunk into an array of its own
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// varint reads git's offset varint (index v4 name prefixes).
func (d *decoder) varint() (int, error) {
	c, err := d.r.ReadByte()
	if err != nil {
		return 0, corrupt(err)
	}
	d.pos++
	v := int(c & 127)
	for k := 1; c&128 != 0; k++ {
		if k > 9 {
			return 0, ErrCorrupt
		}
		if c, err = d.r.ReadByte(); err != nil {
			return 0, corrupt(err)
		}
		d.pos++
		v = ((v + 1) << 7) | int(c&127)
	}
	if d.pos > d.end {
		return 0, ErrCorrupt
	}
	return v, nil
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

// Find returns the position of the entry named name (at stage 0, or its first stage), or
// where it would be inserted and false.
func (idx *Index) Find(name string) (int, bool) {
	es := idx.Entries
	i := sort.Search(len(es), func(i int) bool { return es[i].Name >= name })
	return i, i < len(es) && es[i].Name == name
}

// FindIn is Find(dir + "/" + name), or Find(name) when dir is "", without building the path.
func (idx *Index) FindIn(dir, name string) (int, bool) {
	es := idx.Entries
	i := sort.Search(len(es), func(i int) bool { return compareJoined(es[i].Name, dir, name) >= 0 })
	return i, i < len(es) && compareJoined(es[i].Name, dir, name) == 0
}

// compareJoined compares s with dir + "/" + name (name when dir is ""), as strings.Compare would.
func compareJoined(s, dir, name string) int {
	if dir != "" {
		n := min(len(s), len(dir))
		if c := strings.Compare(s[:n], dir[:n]); c != 0 {
			return c
		}
		if len(s) == n {
			return -1 // s is dir, or a prefix of it
		}
		switch s = s[n:]; {
		case s[0] < '/':
			return -1
		case s[0] > '/':
			return 1
		}
		s = s[1:]
	}
	return strings.Compare(s, name)
}

// Encode serializes the index (entries must be sorted) with the given cache tree, a pre-order
// list of directories as BuildTrees produces it.
func (idx *Index) Encode(tree []TreeNode) []byte {
	var b bytes.Buffer
	_, _ = idx.WriteTo(&b, tree) // a bytes.Buffer does not fail
	return b.Bytes()
}

// WriteTo writes the index file (entries must be sorted) with the given cache tree, a pre-order
// list of directories as BuildTrees produces it, as a stream.
func (idx *Index) WriteTo(w io.Writer, tree []TreeNode) (int64, error) {
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
	h := sha1.New()
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(io.MultiWriter(cw, h), 64<<10)
	var buf [64 + 16]byte
	b := append(buf[:0], "DIRC"...)
	b = binary.BigEndian.AppendUint32(b, version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(idx.Entries)))
	bw.Write(b)
	var zeros [8]byte
	prev := ""
	for _, e := range idx.Entries {
		b = buf[:0]
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
			bw.Write(b)
			bw.WriteString(e.Name[common:])
			bw.WriteByte(0)
		} else {
			n := len(b) + len(e.Name)
			bw.Write(b)
			bw.WriteString(e.Name)
			bw.Write(zeros[:(n+8)&^7-n]) // NUL padding to a multiple of 8
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
			if node.Count >= 0 {
				ext = append(ext, node.Hash[:]...)
			}
		}
		b = append(buf[:0], "TREE"...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(ext)))
		bw.Write(b)
		bw.Write(ext)
	}
	if len(idx.ResolveUndo) > 0 {
		b = append(buf[:0], "REUC"...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(idx.ResolveUndo)))
		bw.Write(b)
		bw.Write(idx.ResolveUndo)
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	_, err := cw.Write(h.Sum(nil))
	return cw.n, err
}

// countingWriter counts what it writes.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}
