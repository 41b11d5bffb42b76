package gitops

import (
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/autoagent/agent-hooks/gitops/internal/refs"
)

// localLoader opens the repository at an endpoint's path, a git directory (bare or .git), with
// reference writes that honour git's locks.
type localLoader struct{}

func (localLoader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	p := filepath.FromSlash(ep.Path)
	if _, err := os.Stat(filepath.Join(p, "objects")); err != nil {
		return nil, transport.ErrRepositoryNotFound
	}
	sto := filesystem.NewStorage(osfs.New(p), cache.NewObjectLRUDefault())
	return refs.NewLockedStorage(sto, refs.Dirs{GitDir: p, CommonDir: refs.CommonDirOf(p)}), nil
}
