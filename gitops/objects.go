package gitops

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
)

// objects is the repository's object store for writing (package gitobj): loose objects, next to
// those the repository has already.
func (r *Repo) objects() *gitobj.Store {
	return gitobj.NewStore(filepath.Join(r.CommonDir, "objects"), r.objs.Has)
}

// readObject reads the object h, which must be of type typ.
func (r *Repo) readObject(typ plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := r.objs.Read(h)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", typ, h, err)
	}
	if obj.Type() != typ {
		return nil, fmt.Errorf("read %s %s: it is a %s", typ, h, obj.Type())
	}
	return obj, nil
}

// readBlob reads the blob h.
func (r *Repo) readBlob(h plumbing.Hash) ([]byte, error) {
	obj, err := r.readObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, err
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

// readCommit reads the commit h.
func (r *Repo) readCommit(h plumbing.Hash) (*object.Commit, error) {
	obj, err := r.readObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	c := &object.Commit{}
	if err := c.Decode(obj); err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c, nil
}

// readTree reads the tree h.
func (r *Repo) readTree(h plumbing.Hash) (*object.Tree, error) {
	obj, err := r.readObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	t := &object.Tree{}
	if err := t.Decode(obj); err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	return t, nil
}

// writeObject stores an encoded object (a commit) as a loose object.
func (r *Repo) writeObject(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	rd, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	id := gitobj.ID(obj.Type(), data)
	if r.objs.Has(id) {
		return id, nil
	}
	return id, r.objects().WriteLoose(obj.Type(), id, data)
}
