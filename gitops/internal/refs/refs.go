// Package refs writes references as git's files backend writes them, not with go-git's
// SetReference (which rewrites the ref file in place under flock, unseen by git): the ref's .lock
// is taken, its value checked while the lock is held, the reflogs appended, and the lock renamed
// over it. It also gives the storage the in-process server receives pushes into and serves
// fetches from, and lists refs as git does (List).
package refs

import (
	"errors"
	"fmt"
	"github.com/autoagent/agent-hooks/gitops/githead"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/autoagent/agent-hooks/gitops/internal/lockfile"
)

// Dirs locates refs: HEAD and the per-worktree refs live in a worktree's own git directory,
// the others in the common directory.
type Dirs struct{ GitDir, CommonDir string }

// Path is the file of the loose ref name.
func (d Dirs) Path(name plumbing.ReferenceName) string {
	n := name.String()
	dir := d.CommonDir
	if n == "HEAD" || strings.HasPrefix(n, "refs/worktree/") || strings.HasPrefix(n, "refs/bisect/") || strings.HasPrefix(n, "refs/rewritten/") {
		dir = d.GitDir
	}
	return filepath.Join(dir, filepath.FromSlash(n))
}

// ErrMoved is a ref that is no longer where the update expected it.
var ErrMoved = errors.New("it moved")

// Update moves one ref under its lock, from Old (zero: the ref must not exist) to New.
type Update struct {
	Dirs     Dirs
	Refs     storer.ReferenceStorer // to read the current value, loose or packed
	Name     plumbing.ReferenceName
	Old, New plumbing.Hash
	// Also locks other refs for the duration (git locks HEAD when it moves the branch HEAD is on).
	Also []plumbing.ReferenceName
	// Check is called under the locks, after the value check; Reflog appends reflog lines.
	Check  func() error
	Reflog func() error
}

// Apply makes the update: ErrMoved when the ref is not at Old, a *lockfile.LockedError when
// another process holds a lock.
func (u Update) Apply() error {
	l, err := lockfile.Lock(u.Dirs.Path(u.Name), u.Name.String())
	if err != nil {
		return err
	}
	defer l.Release()
	for _, n := range u.Also {
		al, err := lockfile.Lock(u.Dirs.Path(n), n.String())
		if err != nil {
			return err
		}
		defer al.Release() // a lock held only to keep others out: dropped, never renamed
	}
	cur, err := u.Refs.Reference(u.Name)
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		if !u.Old.IsZero() {
			return ErrMoved
		}
	case err != nil:
		return err
	case cur.Type() != plumbing.HashReference || cur.Hash() != u.Old:
		return ErrMoved
	}
	if u.Check != nil {
		if err := u.Check(); err != nil {
			return err
		}
	}
	if u.Reflog != nil {
		if err := u.Reflog(); err != nil {
			return fmt.Errorf("write reflog: %w", err)
		}
	}
	return l.CommitData([]byte(u.New.String() + "\n"))
}

// LockedStorage is a repository's storage whose reference writes honour git's locks, for the
// in-process server that receives pushes to repositories on this machine. It also does what
// git-receive-pack does and go-git's server does not: a ref is updated only if it still has the
// value the push was shown (the first advertisement), so a push that arrived meanwhile is not
// overwritten.
type LockedStorage struct {
	*filesystem.Storage
	dirs       Dirs
	advertised map[plumbing.ReferenceName]plumbing.Hash // nil until the refs are first listed
}

// IterReferences lists the refs (see List) and remembers the first listing as what was
// advertised.
func (s *LockedStorage) IterReferences() (storer.ReferenceIter, error) {
	refs, err := List(s.dirs.GitDir)
	if err != nil {
		return nil, err
	}
	if s.advertised == nil {
		s.advertised = make(map[plumbing.ReferenceName]plumbing.Hash, len(refs))
		for _, r := range refs {
			if r.Type() == plumbing.HashReference {
				s.advertised[r.Name()] = r.Hash()
			}
		}
	}
	return storer.NewReferenceSliceIter(refs), nil
}

// NewLockedStorage is sto, the storage of the git directory of dirs, with reference writes that
// honour git's locks.
func NewLockedStorage(sto *filesystem.Storage, dirs Dirs) *LockedStorage {
	return &LockedStorage{Storage: sto, dirs: dirs}
}

// SetReference moves a branch from its advertised value (absent: it must not exist).
func (s *LockedStorage) SetReference(ref *plumbing.Reference) error {
	var old plumbing.Hash
	if s.advertised != nil {
		old = s.advertised[ref.Name()]
	} else if cur, err := s.Storage.Reference(ref.Name()); err == nil {
		old = cur.Hash()
	}
	return s.set(ref, old)
}

// CheckAndSetReference moves a ref from old (nil: from wherever it is).
func (s *LockedStorage) CheckAndSetReference(ref, old *plumbing.Reference) error {
	if old == nil {
		return s.SetReference(ref)
	}
	return s.set(ref, old.Hash())
}

func (s *LockedStorage) set(ref *plumbing.Reference, old plumbing.Hash) error {
	if ref.Type() != plumbing.HashReference {
		return fmt.Errorf("update %s: only branches and tags are written here", ref.Name())
	}
	err := Update{Dirs: s.dirs, Refs: s.Storage, Name: ref.Name(), Old: old, New: ref.Hash()}.Apply()
	if errors.Is(err, ErrMoved) {
		return fmt.Errorf("update %s: it moved while the push was under way", ref.Name())
	}
	return err
}

// RemoveReference deletes a ref holding its lock and packed-refs.lock, as git does.
func (s *LockedStorage) RemoveReference(name plumbing.ReferenceName) error {
	l, err := lockfile.Lock(s.dirs.Path(name), name.String())
	if err != nil {
		return err
	}
	defer l.Release()
	pl, err := lockfile.Lock(filepath.Join(s.dirs.CommonDir, "packed-refs"), "packed-refs")
	if err != nil {
		return err
	}
	defer pl.Release()
	return s.Storage.RemoveReference(name)
}

// CommonDirOf is the common directory of a git directory (itself, unless it is a linked
// worktree's).
func CommonDirOf(gitDir string) string { return githead.CommonDir(gitDir) }
