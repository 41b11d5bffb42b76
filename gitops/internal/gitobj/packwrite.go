package gitobj

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// PackStream writes a version 2 pack of whole (undeltified) objects whose content is already
// compressed, to a writer: the header, each entry as it comes, and the checksum. It notes each
// entry's offset and the CRC32 of its bytes, which are what a pack index needs besides the ids.
type PackStream struct {
	w       io.Writer
	sum     hash.Hash
	off     int64
	want    uint32
	entries []packEntry
	err     error
}

type packEntry struct {
	id  plumbing.Hash
	off int64
	crc uint32
}

// NewPackStream starts a pack of count objects on w.
func NewPackStream(w io.Writer, count uint32) *PackStream {
	p := &PackStream{sum: sha1.New(), want: count}
	p.w = io.MultiWriter(w, p.sum)
	var head [12]byte
	copy(head[:], "PACK")
	binary.BigEndian.PutUint32(head[4:], 2)
	binary.BigEndian.PutUint32(head[8:], count)
	p.write(head[:])
	return p
}

func (p *PackStream) write(b []byte) {
	if p.err == nil {
		var n int
		n, p.err = p.w.Write(b)
		p.off += int64(n)
	}
}

// Add writes the object id of type typ and size bytes, compressed (zlib) as compressed.
func (p *PackStream) Add(id plumbing.Hash, typ plumbing.ObjectType, size int64, compressed []byte) error {
	if p.err != nil {
		return p.err
	}
	if len(p.entries) == int(p.want) {
		p.err = fmt.Errorf("write pack: more than the %d objects announced", p.want)
		return p.err
	}
	var hdr [16]byte
	c := byte(typ)<<4 | byte(size&0x0f)
	size >>= 4
	n := 0
	for size > 0 {
		hdr[n] = c | 0x80
		n++
		c = byte(size & 0x7f)
		size >>= 7
	}
	hdr[n] = c
	n++
	crc := crc32.Update(crc32.ChecksumIEEE(hdr[:n]), crc32.IEEETable, compressed)
	p.entries = append(p.entries, packEntry{id: id, off: p.off, crc: crc})
	p.write(hdr[:n])
	p.write(compressed)
	return p.err
}

// Close writes the pack's checksum, which it returns; the pack must hold the objects announced.
func (p *PackStream) Close() (plumbing.Hash, error) {
	var sum plumbing.Hash
	if p.err == nil && len(p.entries) != int(p.want) {
		p.err = fmt.Errorf("write pack: %d objects written, %d announced", len(p.entries), p.want)
	}
	if p.err != nil {
		return sum, p.err
	}
	p.sum.Sum(sum[:0])
	_, p.err = p.w.Write(sum[:]) // not into the sum: the checksum ends the pack
	return sum, p.err
}

// PackFile is a pack being written into a repository's objects/pack, under a temporary name
// until Install gives it its index and its name, as git's index-pack does: nothing reads a pack
// before it is whole and indexed.
type PackFile struct {
	*PackStream
	dir string // objects/pack
	f   *os.File
	bw  *bufio.Writer
}

// CreatePack starts a pack of count objects in the objects directory objectsDir.
func CreatePack(objectsDir string, count uint32) (*PackFile, error) {
	dir := filepath.Join(objectsDir, "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write pack: %w", err)
	}
	f, err := createTemp(dir, "tmp_pack_")
	if err != nil {
		return nil, fmt.Errorf("write pack: %w", err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	return &PackFile{PackStream: NewPackStream(bw, count), dir: dir, f: f, bw: bw}, nil
}

// createTemp creates a new read-only file in dir named prefix and random characters (git's
// odb_mkstemp: pack files are read-only, and tmp_* files are what git gc cleans up).
func createTemp(dir, prefix string) (*os.File, error) {
	for range 10 {
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		f, err := os.OpenFile(filepath.Join(dir, prefix+hex.EncodeToString(rnd[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("create a temporary file in %s: %w", dir, os.ErrExist)
}

// Abort removes the pack if it was not installed.
func (p *PackFile) Abort() {
	if p.f != nil {
		p.f.Close()
		os.Remove(p.f.Name())
		p.f = nil
	}
}

// Install ends the pack, writes its index and renames both to pack-<checksum>.{pack,idx}, the
// pack first, so that the pack is never seen without its index. It returns the checksum.
func (p *PackFile) Install() (plumbing.Hash, error) {
	defer p.Abort()
	sum, err := p.Close()
	if err == nil {
		err = p.bw.Flush()
	}
	if err == nil {
		err = p.f.Sync()
	}
	if err == nil {
		err = p.f.Close()
	}
	if err != nil {
		return sum, fmt.Errorf("write pack: %w", err)
	}
	tmpPack := p.f.Name()
	p.f = nil
	idx, err := createTemp(p.dir, "tmp_idx_")
	if err == nil {
		bw := bufio.NewWriter(idx)
		err = writePackIndex(bw, p.entries, sum)
		if err == nil {
			err = bw.Flush()
		}
		if err == nil {
			err = idx.Sync()
		}
		if cerr := idx.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(idx.Name())
		}
	}
	if err != nil {
		os.Remove(tmpPack)
		return sum, fmt.Errorf("write pack index: %w", err)
	}
	base := filepath.Join(p.dir, "pack-"+sum.String())
	if err := os.Rename(tmpPack, base+".pack"); err != nil {
		os.Remove(tmpPack)
		os.Remove(idx.Name())
		return sum, fmt.Errorf("install pack: %w", err)
	}
	if err := os.Rename(idx.Name(), base+".idx"); err != nil {
		os.Remove(idx.Name())
		return sum, fmt.Errorf("install pack index: %w", err)
	}
	return sum, nil
}

// writePackIndex writes a version 2 pack index of entries (git's Documentation/gitformat-pack):
// the fan-out table, the sorted ids, their CRC32s, their offsets (those past 2^31 in a table of
// 64-bit offsets), the pack's checksum and the index's own.
func writePackIndex(w io.Writer, entries []packEntry, packSum plumbing.Hash) error {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b packEntry) int { return bytes.Compare(a.id[:], b.id[:]) })
	sum := sha1.New()
	bw := io.MultiWriter(w, sum)
	var buf []byte
	buf = append(buf, 0xff, 't', 'O', 'c', 0, 0, 0, 2)
	var fanout [256]uint32
	for _, e := range sorted {
		fanout[e.id[0]]++
	}
	var total uint32
	for _, n := range fanout {
		total += n
		buf = binary.BigEndian.AppendUint32(buf, total)
	}
	for _, e := range sorted {
		buf = append(buf, e.id[:]...)
	}
	for _, e := range sorted {
		buf = binary.BigEndian.AppendUint32(buf, e.crc)
	}
	var large []byte
	for _, e := range sorted {
		if e.off < 1<<31 {
			buf = binary.BigEndian.AppendUint32(buf, uint32(e.off))
			continue
		}
		buf = binary.BigEndian.AppendUint32(buf, 1<<31|uint32(len(large)/8))
		large = binary.BigEndian.AppendUint64(large, uint64(e.off))
	}
	buf = append(buf, large...)
	buf = append(buf, packSum[:]...)
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}
