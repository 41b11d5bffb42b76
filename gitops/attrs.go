package gitops

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gitattr"
	"github.com/autoagent/agent-hooks/gitops/internal/gitindex"
	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
)

// What git add stores for a file is its content after the clean conversion that the attributes
// and the configuration ask for (package gitattr). Clean filters and working-tree-encoding are
// not run: a warning says so where they are configured.

// loadAttrSource reads the system, global and info attributes files.
func (r *Repo) loadAttrSource() (*gitattr.Source, error) {
	src := &gitattr.Source{Base: gitattr.Stack{gitattr.Builtin}}
	var files []string
	if r.env.getenv("GIT_ATTR_NOSYSTEM") == "" {
		files = append(files, "/etc/gitattributes")
	}
	global := r.cfg.Get("core", "", "attributesfile")
	if global != "" {
		global = r.env.expandHome(global)
	} else if x := r.env.xdgConfigHome(); x != "" {
		global = filepath.Join(x, "git", "attributes")
	}
	if global != "" {
		files = append(files, global)
	}
	for _, p := range files {
		f, err := gitattr.ReadFile(p, nil, true)
		if err != nil {
			return nil, err
		}
		src.Base = src.Base.With(f)
	}
	info, err := gitattr.ReadFile(filepath.Join(r.CommonDir, "info", "attributes"), nil, true)
	if err != nil {
		return nil, err
	}
	src.Info = info
	return src, nil
}

// readDirAttrs reads the .gitattributes of dir (slash-separated, "" for the top): the work tree's
// when inWorkTree (it is a regular file there), else the blob of fallback, the index entry git
// reads instead (nil: none).
func (r *Repo) readDirAttrs(dir string, inWorkTree bool, fallback *gitindex.Entry) (*gitattr.File, error) {
	var domain []string
	if dir != "" {
		domain = strings.Split(dir, "/")
	}
	if inWorkTree {
		return gitattr.ReadFile(filepath.Join(r.Root, filepath.FromSlash(dir), ".gitattributes"), domain, dir == "")
	}
	if fallback == nil || fallback.Mode&0o170000 != 0o100000 {
		return nil, nil
	}
	b, err := r.readBlob(fallback.Hash)
	if err != nil {
		return nil, err
	}
	return gitattr.Parse(b, domain, dir == ""), nil
}

// largeBlob is the size from which a file stored as it is (see gitattr.Conversion.Identity) is
// hashed, and stored, while it is read rather than read whole first: memory stays bounded
// whatever the size of the files.
const largeBlob = 1 << 20

// readClean reads the regular file rel (at abs) as git add stores it: its id and its content
// after the clean conversion ca, and core.safecrlf's warning (when adding). A large file stored as
// it is is hashed as it is read, and with store also stored: then data is nil. old is the file's
// index entry, if any.
func (r *Repo) readClean(abs, rel string, c gitattr.Converter, ca gitattr.Conversion, old *gitindex.Entry, adding bool, store *gitobj.Store) (h plumbing.Hash, data []byte, warning string, err error) {
	f, err := os.Open(abs)
	if err != nil {
		return h, nil, "", fmt.Errorf("read %s: %w", rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return h, nil, "", fmt.Errorf("read %s: %w", rel, err)
	}
	if ca.Identity() && fi.Size() >= largeBlob {
		if store != nil {
			h, err = store.WriteBlobFrom(f, fi.Size())
		} else {
			h, err = gitobj.HashFrom(plumbing.BlobObject, f, fi.Size())
		}
		if !errors.Is(err, gitobj.ErrSizeChanged) {
			if err != nil {
				return h, nil, "", fmt.Errorf("read %s: %w", rel, err)
			}
			return h, nil, "", nil
		}
		// Being written to: take what is there now, as a smaller file would be.
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return h, nil, "", fmt.Errorf("read %s: %w", rel, err)
		}
	}
	b := make([]byte, 0, fi.Size()+512)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return h, nil, "", fmt.Errorf("read %s: %w", rel, err)
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
	indexHasCRLF := func() bool {
		if old == nil {
			return false
		}
		blob, err := r.readBlob(old.Hash)
		return err == nil && gitattr.HasCRLFText(blob)
	}
	if data, warning, err = c.ToGit(rel, b, ca, indexHasCRLF, adding); err != nil {
		return h, nil, "", err
	}
	return gitobj.ID(plumbing.BlobObject, data), data, warning, nil
}

// cleaner is the gitindex.Cleaner of the work tree idx describes: the attributes of a file come
// from the .gitattributes of the work tree, or of idx where the work tree has none.
func (r *Repo) cleaner(idx *gitindex.Index) gitindex.Cleaner {
	var (
		src    *gitattr.Source
		conv   gitattr.Converter
		stacks map[string]gitattr.Stack
		byName map[string]*gitindex.Entry
	)
	// stackOf is the attributes stack of dir.
	var stackOf func(dir string) (gitattr.Stack, error)
	stackOf = func(dir string) (gitattr.Stack, error) {
		if st, ok := stacks[dir]; ok {
			return st, nil
		}
		parent := src.Base
		if dir != "" {
			p := path.Dir(dir)
			if p == "." {
				p = ""
			}
			var err error
			if parent, err = stackOf(p); err != nil {
				return nil, err
			}
		}
		name := gitindex.JoinPath(dir, ".gitattributes")
		fi, err := os.Lstat(filepath.Join(r.Root, filepath.FromSlash(name)))
		f, err := r.readDirAttrs(dir, err == nil && fi.Mode().IsRegular(), byName[name])
		if err != nil {
			return nil, err
		}
		stacks[dir] = parent.With(f)
		return stacks[dir], nil
	}
	return func(e *gitindex.Entry, abs string) (plumbing.Hash, error) {
		if src == nil {
			var err error
			if src, err = r.loadAttrSource(); err != nil {
				return plumbing.ZeroHash, err
			}
			conv, stacks, byName = gitattr.NewConverter(r.cfg), map[string]gitattr.Stack{}, make(map[string]*gitindex.Entry, len(idx.Entries))
			for _, x := range idx.Entries {
				byName[x.Name] = x
			}
		}
		dir := path.Dir(e.Name)
		if dir == "." {
			dir = ""
		}
		stack, err := stackOf(dir)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		h, _, _, err := r.readClean(abs, e.Name, conv, conv.For(src.Lookup(stack, e.Name)), e, false, nil)
		if err != nil {
			return plumbing.ZeroHash, nil // content that cannot be read is changed, for git too
		}
		return h, nil
	}
}
