package gitops

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
)

// objects is the repository's object store for writing (package gitobj): loose objects, with
// go-git telling which objects a pack holds.
func (r *Repo) objects() *gitobj.Store {
	return gitobj.NewStore(filepath.Join(r.CommonDir, "objects"), func(h plumbing.Hash) bool {
		r.storeMu.Lock()
		defer r.storeMu.Unlock()
		return r.repo.Storer.HasEncodedObject(h) == nil
	})
}

// readBlob reads the blob h.
func (r *Repo) readBlob(h plumbing.Hash) ([]byte, error) {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	obj, err := r.repo.Storer.EncodedObject(plumbing.BlobObject, h)
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
