package gitindex

import (
	"errors"
	"fmt"
	"os"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/lockfile"
)

// WriteFile replaces the index file path with idx and the cache tree nodes, under path.lock,
// unless the file is no longer the one idx was read from (ok false: read it and stage again).
// While the lock is held, the racily clean entries are smudged (SmudgeRacy, with root the work
// tree and clean its Cleaner).
func (idx *Index) WriteFile(path, root string, tree []TreeNode, clean Cleaner) (ok bool, err error) {
	l, err := lockfile.Lock(path, "index")
	if err != nil {
		return false, err
	}
	defer l.Release()
	if cur, err := checksum(path); err != nil || cur != idx.Sum {
		return false, err
	}
	if err := idx.SmudgeRacy(root, clean); err != nil {
		return false, err
	}
	if _, err := idx.WriteTo(l, tree); err != nil {
		return false, fmt.Errorf("write index: %w", err)
	}
	if err := l.Commit(); err != nil {
		return false, fmt.Errorf("write index: %w", err)
	}
	return true, nil
}

// checksum is the trailing checksum of the index file (zero when there is none).
func checksum(path string) (plumbing.Hash, error) {
	var h plumbing.Hash
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return h, fmt.Errorf("read index: %w", err)
	}
	if fi.Size() < 20 {
		return h, nil
	}
	if _, err := f.ReadAt(h[:], fi.Size()-20); err != nil {
		return h, fmt.Errorf("read index: %w", err)
	}
	return h, nil
}
