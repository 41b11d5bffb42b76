package gitobj

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// packIndex is a version 2 pack index (pack-*.idx) read in place from its bytes, mapped from the
// file where the system allows: the names are searched where they lie, and the reverse index
// (offset -> object), which reading a delta against an earlier object of the pack needs, is
// built on first use as one position an object.
type packIndex struct {
	data   []byte
	unmap  func() error
	count  int
	names  []byte // count × 20
	crc    []byte // count × 4
	off32  []byte // count × 4
	off64  []byte
	byOffs []uint32 // positions sorted by offset; nil until needed
}

var errBadPackIndex = errors.New("bad pack index")

func openPackIndex(path string) (*packIndex, error) {
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	idx, err := parsePackIndex(data)
	if err != nil {
		unmap()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	idx.unmap = unmap
	return idx, nil
}

func parsePackIndex(data []byte) (*packIndex, error) {
	const hdr = 8 + 256*4
	if len(data) < hdr+40 || !bytes.Equal(data[:4], []byte("\xfftOc")) {
		return nil, fmt.Errorf("%w: only version 2 indexes are read", errBadPackIndex)
	}
	if v := binary.BigEndian.Uint32(data[4:]); v != 2 {
		return nil, fmt.Errorf("%w: version %d", errBadPackIndex, v)
	}
	n := int(binary.BigEndian.Uint32(data[8+255*4:]))
	end := hdr + n*(20+4+4)
	if n < 0 || end+40 > len(data) {
		return nil, errBadPackIndex
	}
	idx := &packIndex{data: data, count: n}
	idx.names = data[hdr : hdr+20*n]
	idx.crc = data[hdr+20*n : hdr+24*n]
	idx.off32 = data[hdr+24*n : end]
	idx.off64 = data[end : len(data)-40]
	return idx, nil
}

func (x *packIndex) close() error {
	if x.unmap == nil {
		return nil
	}
	err := x.unmap()
	x.unmap, x.data, x.names, x.crc, x.off32, x.off64 = nil, nil, nil, nil, nil, nil
	return err
}

func (x *packIndex) fanout(b int) int {
	if b < 0 {
		return 0
	}
	return int(binary.BigEndian.Uint32(x.data[8+b*4:]))
}

// find is the position of h.
func (x *packIndex) find(h plumbing.Hash) (int, bool) {
	lo, hi := x.fanout(int(h[0])-1), x.fanout(int(h[0]))
	i := lo + sort.Search(hi-lo, func(i int) bool { return bytes.Compare(x.name(lo+i), h[:]) >= 0 })
	return i, i < hi && bytes.Equal(x.name(i), h[:])
}

func (x *packIndex) name(i int) []byte { return x.names[i*20 : i*20+20] }

func (x *packIndex) offset(i int) (int64, error) {
	o := binary.BigEndian.Uint32(x.off32[i*4:])
	if o&0x80000000 == 0 {
		return int64(o), nil
	}
	j := int(o & 0x7fffffff)
	if (j+1)*8 > len(x.off64) {
		return 0, errBadPackIndex
	}
	return int64(binary.BigEndian.Uint64(x.off64[j*8:])), nil
}

func (x *packIndex) hash(i int) plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], x.name(i))
	return h
}

// The idxfile.Index methods go-git's packfile reader calls.

func (x *packIndex) Contains(h plumbing.Hash) (bool, error) {
	_, ok := x.find(h)
	return ok, nil
}

func (x *packIndex) FindOffset(h plumbing.Hash) (int64, error) {
	i, ok := x.find(h)
	if !ok {
		return 0, plumbing.ErrObjectNotFound
	}
	return x.offset(i)
}

func (x *packIndex) FindCRC32(h plumbing.Hash) (uint32, error) {
	i, ok := x.find(h)
	if !ok {
		return 0, plumbing.ErrObjectNotFound
	}
	return binary.BigEndian.Uint32(x.crc[i*4:]), nil
}

func (x *packIndex) FindHash(o int64) (plumbing.Hash, error) {
	if err := x.buildReverse(); err != nil {
		return plumbing.ZeroHash, err
	}
	var err error
	i := sort.Search(len(x.byOffs), func(i int) bool {
		v, e := x.offset(int(x.byOffs[i]))
		if e != nil {
			err = e
		}
		return v >= o
	})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if i < len(x.byOffs) {
		if v, _ := x.offset(int(x.byOffs[i])); v == o {
			return x.hash(int(x.byOffs[i])), nil
		}
	}
	return plumbing.ZeroHash, plumbing.ErrObjectNotFound
}

func (x *packIndex) buildReverse() error {
	if x.byOffs != nil {
		return nil
	}
	offs := make([]int64, x.count)
	pos := make([]uint32, x.count)
	for i := range offs {
		o, err := x.offset(i)
		if err != nil {
			return err
		}
		offs[i], pos[i] = o, uint32(i)
	}
	sort.Slice(pos, func(a, b int) bool { return offs[pos[a]] < offs[pos[b]] })
	x.byOffs = pos
	return nil
}

func (x *packIndex) Count() (int64, error) { return int64(x.count), nil }

func (x *packIndex) Entries() (idxfile.EntryIter, error) {
	return &entryIter{x: x, next: func(i int) int { return i }}, nil
}

func (x *packIndex) EntriesByOffset() (idxfile.EntryIter, error) {
	if err := x.buildReverse(); err != nil {
		return nil, err
	}
	return &entryIter{x: x, next: func(i int) int { return int(x.byOffs[i]) }}, nil
}

type entryIter struct {
	x    *packIndex
	i    int
	next func(int) int
}

func (it *entryIter) Next() (*idxfile.Entry, error) {
	if it.i >= it.x.count {
		return nil, io.EOF
	}
	p := it.next(it.i)
	it.i++
	o, err := it.x.offset(p)
	if err != nil {
		return nil, err
	}
	return &idxfile.Entry{Hash: it.x.hash(p), CRC32: binary.BigEndian.Uint32(it.x.crc[p*4:]), Offset: uint64(o)}, nil
}

func (it *entryIter) Close() error { return nil }
