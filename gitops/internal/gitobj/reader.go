package gitobj

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// Reader reads the objects of an objects directory: loose ones, packed ones and those of its
// alternates. A pack's index is mapped into memory rather than decoded (go-git's storage decodes
// every index whole and, on the first read from a pack, builds a map of every object's offset:
// on a large repository that is most of what a commit holds in memory), and objects are decoded
// with go-git's packfile reader. Packs are found on first use and forgotten by Close. A Reader is
// safe for concurrent use.
type Reader struct {
	dir   string
	depth int // of alternates

	mu         sync.Mutex
	loaded     bool
	packs      []*pack
	alternates []*Reader
}

// maxAlternateDepth is how deep alternates of alternates are followed, as git's.
const maxAlternateDepth = 5

// NewReader reads the objects directory dir.
func NewReader(dir string) *Reader { return &Reader{dir: dir} }

// Read returns the object h; plumbing.ErrObjectNotFound if the repository lacks it.
func (r *Reader) Read(h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := r.readLoose(h)
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return obj, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if obj, err := r.readPacked(h); !errors.Is(err, plumbing.ErrObjectNotFound) {
		return obj, err
	}
	// A pack may have appeared meanwhile (git gc, git repack): look again, as git does.
	if err := r.reload(); err != nil {
		return nil, err
	}
	return r.readPacked(h)
}

// Has reports whether the repository has the object h.
func (r *Reader) Has(h plumbing.Hash) bool {
	if _, err := os.Lstat(looseName(r.dir, h)); err == nil {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(); err != nil {
		return false
	}
	for _, p := range r.packs {
		if _, ok := p.idx.find(h); ok {
			return true
		}
	}
	for _, a := range r.alternates {
		if a.Has(h) {
			return true
		}
	}
	return false
}

// Close releases the packs (and their mapped indexes); the Reader finds them again if used.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.unload()
}

func (r *Reader) unload() error {
	var first error
	for _, p := range r.packs {
		if err := p.close(); err != nil && first == nil {
			first = err
		}
	}
	for _, a := range r.alternates {
		if err := a.Close(); err != nil && first == nil {
			first = err
		}
	}
	r.packs, r.alternates, r.loaded = nil, nil, false
	return first
}

func looseName(dir string, h plumbing.Hash) string {
	hx := h.String()
	return filepath.Join(dir, hx[:2], hx[2:])
}

func (r *Reader) readLoose(h plumbing.Hash) (plumbing.EncodedObject, error) {
	f, err := os.Open(looseName(r.dir, h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, plumbing.ErrObjectNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read object %s: %w", h, err)
	}
	defer f.Close()
	or, err := objfile.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("read object %s: %w", h, err)
	}
	defer or.Close()
	typ, size, err := or.Header()
	if err != nil {
		return nil, fmt.Errorf("read object %s: %w", h, err)
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(typ)
	obj.SetSize(size)
	w, _ := obj.Writer()
	if _, err := io.Copy(w, or); err != nil {
		return nil, fmt.Errorf("read object %s: %w", h, err)
	}
	return obj, nil
}

// readPacked reads h from the packs or the alternates; r.mu is held.
func (r *Reader) readPacked(h plumbing.Hash) (plumbing.EncodedObject, error) {
	if err := r.load(); err != nil {
		return nil, err
	}
	for _, p := range r.packs {
		if _, ok := p.idx.find(h); !ok {
			continue
		}
		obj, err := p.pf.Get(h)
		if err != nil {
			return nil, fmt.Errorf("read object %s from %s: %w", h, p.name, err)
		}
		return obj, nil
	}
	for _, a := range r.alternates {
		if obj, err := a.Read(h); !errors.Is(err, plumbing.ErrObjectNotFound) {
			return obj, err
		}
	}
	return nil, plumbing.ErrObjectNotFound
}

func (r *Reader) reload() error {
	if err := r.unload(); err != nil {
		return err
	}
	return r.load()
}

// load finds the packs and the alternates; r.mu is held.
func (r *Reader) load() error {
	if r.loaded {
		return nil
	}
	packDir := filepath.Join(r.dir, "pack")
	des, err := os.ReadDir(packDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read packs: %w", err)
	}
	for _, de := range des {
		base, ok := strings.CutSuffix(de.Name(), ".idx")
		if !ok || !strings.HasPrefix(base, "pack-") {
			continue
		}
		p, err := openPack(packDir, base)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed by a concurrent gc, or an index without its pack
		}
		if err != nil {
			r.unload()
			return err
		}
		r.packs = append(r.packs, p)
	}
	if r.depth < maxAlternateDepth {
		b, err := os.ReadFile(filepath.Join(r.dir, "info", "alternates"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.unload()
			return fmt.Errorf("read alternates: %w", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' {
				continue
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(r.dir, line)
			}
			r.alternates = append(r.alternates, &Reader{dir: filepath.Clean(line), depth: r.depth + 1})
		}
	}
	r.loaded = true
	return nil
}

// pack is one pack file and its index.
type pack struct {
	name string
	idx  *packIndex
	file io.Closer
	pf   *packfile.Packfile
}

func openPack(dir, base string) (*pack, error) {
	idx, err := openPackIndex(filepath.Join(dir, base+".idx"))
	if err != nil {
		return nil, err
	}
	fsys := osfs.New(dir)
	f, err := fsys.Open(base + ".pack")
	if err != nil {
		idx.close()
		return nil, err
	}
	// The cache holds delta bases while objects are rebuilt from their deltas.
	pf := packfile.NewPackfileWithCache(idx, fsys, f, cache.NewObjectLRU(8*cache.MiByte), 0)
	return &pack{name: base + ".pack", idx: idx, file: f, pf: pf}, nil
}

func (p *pack) close() error {
	err := p.file.Close()
	if e := p.idx.close(); err == nil {
		err = e
	}
	return err
}
