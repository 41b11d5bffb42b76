package gitops

import (
	"bytes"
	"compress/zlib"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
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

// Objects are written as loose objects the way git writes them (zlib at core.looseCompression,
// default 1; a temporary file renamed into objects/xx/; read-only), several at a time: on a large
// change, creating the files is most of the cost of a commit.

var zlibWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return w
}}

// hasObject reports whether the repository has the object, loose or packed.
func (r *Repo) hasObject(h hash20) bool {
	if _, err := os.Lstat(r.loosePath(h)); err == nil {
		return true
	}
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	return r.repo.Storer.HasEncodedObject(plumbing.Hash(h)) == nil
}

// readBlob reads the blob h.
func (r *Repo) readBlob(h hash20) ([]byte, error) {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	obj, err := r.repo.Storer.EncodedObject(plumbing.BlobObject, plumbing.Hash(h))
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	return b, nil
}

func (r *Repo) loosePath(h hash20) string {
	s := h.String()
	return filepath.Join(r.CommonDir, "objects", s[:2], s[2:])
}

// writeLoose stores data as the loose object h of type typ. It is safe to call concurrently.
func (r *Repo) writeLoose(typ plumbing.ObjectType, h hash20, data []byte) error {
	var buf bytes.Buffer
	buf.Grow(len(data)/2 + 64)
	zw := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(zw)
	zw.Reset(&buf)
	hdr := append(append([]byte(typ.String()), ' '), strconv.Itoa(len(data))...)
	hdr = append(hdr, 0)
	if _, err := zw.Write(hdr); err != nil {
		return fmt.Errorf("compress object %s: %w", h, err)
	}
	if _, err := zw.Write(data); err != nil {
		return fmt.Errorf("compress object %s: %w", h, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("compress object %s: %w", h, err)
	}
	final := r.loosePath(h)
	dir := filepath.Dir(final)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "tmp_obj_"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write object %s: %w", h, err)
		}
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	}
	if err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	_, werr := f.Write(buf.Bytes())
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, final)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write object %s: %w", h, werr)
	}
	return nil
}

// objectWriter writes objects in the background, a few at a time.
type objectWriter struct {
	r *Repo
	p *pool.ErrorPool
}

func (r *Repo) newObjectWriter() *objectWriter {
	return &objectWriter{r: r, p: pool.New().WithErrors().WithFirstError().WithMaxGoroutines(max(2, runtime.GOMAXPROCS(0)*2))}
}

// add writes the object unless the repository has it.
func (w *objectWriter) add(typ plumbing.ObjectType, h hash20, data []byte) {
	if w.r.hasObject(h) {
		return
	}
	w.p.Go(func() error { return w.r.writeLoose(typ, h, data) })
}

// wait waits for every write and returns the first error.
func (w *objectWriter) wait() error { return w.p.Wait() }
