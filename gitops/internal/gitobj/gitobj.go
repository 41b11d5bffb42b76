// Package gitobj computes git object ids and writes loose objects the way git writes them: zlib
// at core.looseCompression (default 1), through a temporary file renamed into objects/xx/,
// read-only. Blobs are hashed while they are read, and written as they are compressed, so a large
// file is never held in memory whole. Several objects are written at a time: on a large change,
// creating the files is most of the cost of a commit.
package gitobj

import (
	"bytes"
	"compress/zlib"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sourcegraph/conc/pool"
)

// EmptyTree is the id of the tree with no entries.
var EmptyTree = ID(plumbing.TreeObject, nil)

// ID is the id git gives an object of type typ with content data.
func ID(typ plumbing.ObjectType, data []byte) plumbing.Hash {
	h := NewHasher(typ, int64(len(data)))
	h.Write(data)
	return h.Sum()
}

// Hasher computes an object id from the content written to it, which must be as long as said.
type Hasher struct{ h hash.Hash }

// NewHasher starts the id of an object of type typ and size bytes.
func NewHasher(typ plumbing.ObjectType, size int64) Hasher {
	h := Hasher{sha1.New()}
	h.h.Write(header(typ, size))
	return h
}

func (h Hasher) Write(p []byte) (int, error) { return h.h.Write(p) }

// Sum is the id.
func (h Hasher) Sum() plumbing.Hash {
	var id plumbing.Hash
	h.h.Sum(id[:0])
	return id
}

// header is an object's header: "<type> <size>\x00".
func header(typ plumbing.ObjectType, size int64) []byte {
	b := make([]byte, 0, 32)
	b = append(b, typ.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, size, 10)
	return append(b, 0)
}

// zlibWriters are the compressors of the objects larger than smallObject and of the blobs written
// as they are read (WriteBlobFrom), one a write at a time.
var zlibWriters = sync.Pool{New: func() any { return newZlibWriter() }}

func newZlibWriter() *zlib.Writer {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return w
}

// smallObject is the size up to which an object held in memory is compressed by small.
const smallObject = 64 << 10

// small compresses the objects of up to smallObject bytes (WriteLoose), one at a time: a
// compressor weighs about 1 MB (compress/flate's hash tables), compressing a small object takes
// microseconds, and creating its file, which the writes do in parallel, is most of their cost. It
// is kept for the process, not pooled: a garbage collection empties a sync.Pool, and a commit
// would then make a new one for its last objects (its commit object, after staging).
var small struct {
	mu sync.Mutex
	zw *zlib.Writer
}

// compress appends the zlib stream of the object header hdr and data to buf.
func compress(buf *bytes.Buffer, hdr, data []byte) error {
	var zw *zlib.Writer
	if len(data) <= smallObject {
		small.mu.Lock()
		defer small.mu.Unlock()
		if small.zw == nil {
			small.zw = newZlibWriter()
		}
		zw = small.zw
	} else {
		zw = zlibWriters.Get().(*zlib.Writer)
		defer zlibWriters.Put(zw)
	}
	zw.Reset(buf)
	if _, err := zw.Write(hdr); err != nil {
		return err
	}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}

// Store is a repository's objects directory.
type Store struct {
	dir string
	// packed reports whether a pack holds the object; nil: none does.
	packed func(plumbing.Hash) bool
}

// NewStore is the objects directory dir, with packed telling whether a pack holds an object.
func NewStore(dir string, packed func(plumbing.Hash) bool) *Store {
	return &Store{dir: dir, packed: packed}
}

// Has reports whether the repository has the object, loose or packed.
func (s *Store) Has(h plumbing.Hash) bool {
	if _, err := os.Lstat(s.loosePath(h)); err == nil {
		return true
	}
	return s.packed != nil && s.packed(h)
}

func (s *Store) loosePath(h plumbing.Hash) string {
	hx := h.String()
	return filepath.Join(s.dir, hx[:2], hx[2:])
}

// WriteLoose stores data as the loose object h of type typ. It is safe to call concurrently.
func (s *Store) WriteLoose(typ plumbing.ObjectType, h plumbing.Hash, data []byte) error {
	var buf bytes.Buffer
	buf.Grow(len(data)/2 + 64)
	if err := compress(&buf, header(typ, int64(len(data))), data); err != nil {
		return fmt.Errorf("compress object %s: %w", h, err)
	}
	f, err := s.tempFile(h.String()[:2])
	if err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	_, werr := f.Write(buf.Bytes())
	return s.place(f, h, werr)
}

// tempFile creates a temporary object file in the fan-out directory sub ("": the objects
// directory itself).
func (s *Store) tempFile(sub string) (*os.File, error) {
	dir := filepath.Join(s.dir, sub)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "tmp_obj_"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	}
	return f, err
}

// place closes the temporary object file f (werr: writing it failed) and renames it to the
// object h, or removes it.
func (s *Store) place(f *os.File, h plumbing.Hash, werr error) error {
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	final := s.loosePath(h)
	if werr == nil && filepath.Dir(final) != filepath.Dir(f.Name()) {
		werr = os.MkdirAll(filepath.Dir(final), 0o755)
	}
	if werr == nil {
		werr = os.Rename(f.Name(), final)
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write object %s: %w", h, werr)
	}
	return nil
}

// ErrSizeChanged is a file whose size changed while it was read.
var ErrSizeChanged = errors.New("the file changed size while it was read")

// WriteBlobFrom reads a blob of size bytes from r, hashing it and, unless the repository already
// has it, storing it as a loose object: in one pass, without holding the content in memory. r
// yielding more or fewer bytes than size is ErrSizeChanged, and nothing is stored.
func (s *Store) WriteBlobFrom(r io.Reader, size int64) (plumbing.Hash, error) {
	f, err := s.tempFile("") // in objects/, as git's odb_mkstemp: the fan-out is known at the end
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write object: %w", err)
	}
	zw := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(zw)
	zw.Reset(f)
	hdr := header(plumbing.BlobObject, size)
	hs := NewHasher(plumbing.BlobObject, size)
	_, err = zw.Write(hdr)
	var n int64
	if err == nil {
		n, err = io.Copy(io.MultiWriter(zw, hs), io.LimitReader(r, size+1))
	}
	if err == nil && n != size {
		err = ErrSizeChanged
	}
	if err == nil {
		err = zw.Close()
	}
	h := hs.Sum()
	if err == nil && s.Has(h) {
		f.Close()
		os.Remove(f.Name())
		return h, nil
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return plumbing.ZeroHash, err
	}
	return h, s.place(f, h, nil)
}

// HashFrom is the id of an object of type typ and size bytes read from r, computed as it is
// read; ErrSizeChanged when r yields more or fewer bytes.
func HashFrom(typ plumbing.ObjectType, r io.Reader, size int64) (plumbing.Hash, error) {
	hs := NewHasher(typ, size)
	n, err := io.Copy(hs, io.LimitReader(r, size+1))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n != size {
		return plumbing.ZeroHash, ErrSizeChanged
	}
	return hs.Sum(), nil
}

// Writer writes objects in the background, a few at a time.
type Writer struct {
	s *Store
	p *pool.ErrorPool
}

// NewWriter starts a Writer into s.
func NewWriter(s *Store) *Writer {
	return &Writer{s: s, p: pool.New().WithErrors().WithFirstError().WithMaxGoroutines(max(2, runtime.GOMAXPROCS(0)*2))}
}

// Add writes the object unless the repository has it; it may wait for an earlier write to end.
func (w *Writer) Add(typ plumbing.ObjectType, h plumbing.Hash, data []byte) {
	if w.s.Has(h) {
		return
	}
	w.p.Go(func() error { return w.s.WriteLoose(typ, h, data) })
}

// Wait waits for every write and returns the first error.
func (w *Writer) Wait() error { return w.p.Wait() }
