package gitops

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// References are written as git's files backend writes them, not with go-git's SetReference
// (which rewrites the ref file in place under flock, unseen by git): the ref's .lock is taken,
// its value checked while the lock is held, the reflogs appended, and the lock renamed over it.

// refDirs locates refs: HEAD and the per-worktree refs live in a worktree's own git directory,
// the others in the common directory.
type refDirs struct{ gitDir, commonDir string }

func (d refDirs) path(name plumbing.ReferenceName) string {
	n := name.String()
	dir := d.commonDir
	if n == "HEAD" || strings.HasPrefix(n, "refs/worktree/") || strings.HasPrefix(n, "refs/bisect/") || strings.HasPrefix(n, "refs/rewritten/") {
		dir = d.gitDir
	}
	return filepath.Join(dir, filepath.FromSlash(n))
}

// errRefMoved is a ref that is no longer where the update expected it.
var errRefMoved = errors.New("it moved")

// refUpdate moves one ref under its lock, from old (zero: the ref must not exist) to new.
type refUpdate struct {
	dirs     refDirs
	refs     storer.ReferenceStorer // to read the current value, loose or packed
	name     plumbing.ReferenceName
	old, new plumbing.Hash
	// also locks other refs for the duration (git locks HEAD when it moves the branch HEAD is on).
	also []plumbing.ReferenceName
	// check is called under the locks, after the value check; reflog appends reflog lines.
	check  func() error
	reflog func() error
}

func (u refUpdate) apply() error {
	l, err := lock(u.dirs.path(u.name), u.name.String())
	if err != nil {
		return err
	}
	defer l.release()
	for _, n := range u.also {
		al, err := lock(u.dirs.path(n), n.String())
		if err != nil {
			return err
		}
		defer al.release() // a lock held only to keep others out: dropped, never renamed
	}
	cur, err := u.refs.Reference(u.name)
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		if !u.old.IsZero() {
			return errRefMoved
		}
	case err != nil:
		return err
	case cur.Type() != plumbing.HashReference || cur.Hash() != u.old:
		return errRefMoved
	}
	if u.check != nil {
		if err := u.check(); err != nil {
			return err
		}
	}
	if u.reflog != nil {
		if err := u.reflog(); err != nil {
			return fmt.Errorf("write reflog: %w", err)
		}
	}
	return l.commit([]byte(u.new.String() + "\n"))
}

// lockedStorage is a repository's storage whose reference writes honour git's locks, for the
// in-process server that receives pushes to repositories on this machine. It also does what
// git-receive-pack does and go-git's server does not: a ref is updated only if it still has the
// value the push was shown (the first advertisement), so a push that arrived meanwhile is not
// overwritten.
type lockedStorage struct {
	*filesystem.Storage
	dirs       refDirs
	advertised map[plumbing.ReferenceName]plumbing.Hash // nil until the refs are first listed
}

// IterReferences lists the refs and remembers the first listing as what was advertised.
func (s *lockedStorage) IterReferences() (storer.ReferenceIter, error) {
	it, err := s.Storage.IterReferences()
	if err != nil || s.advertised != nil {
		return it, err
	}
	var refs []*plumbing.Reference
	s.advertised = map[plumbing.ReferenceName]plumbing.Hash{}
	err = it.ForEach(func(r *plumbing.Reference) error {
		refs = append(refs, r)
		if r.Type() == plumbing.HashReference {
			s.advertised[r.Name()] = r.Hash()
		}
		return nil
	})
	if err != nil {
		s.advertised = nil
		return nil, err
	}
	return storer.NewReferenceSliceIter(refs), nil
}

// SetReference moves a branch from its advertised value (absent: it must not exist).
func (s *lockedStorage) SetReference(ref *plumbing.Reference) error {
	var old plumbing.Hash
	if s.advertised != nil {
		old = s.advertised[ref.Name()]
	} else if cur, err := s.Storage.Reference(ref.Name()); err == nil {
		old = cur.Hash()
	}
	return s.set(ref, old)
}

// CheckAndSetReference moves a ref from old (nil: from wherever it is).
func (s *lockedStorage) CheckAndSetReference(ref, old *plumbing.Reference) error {
	if old == nil {
		return s.SetReference(ref)
	}
	return s.set(ref, old.Hash())
}

func (s *lockedStorage) set(ref *plumbing.Reference, old plumbing.Hash) error {
	if ref.Type() != plumbing.HashReference {
		return fmt.Errorf("update %s: only branches and tags are written here", ref.Name())
	}
	err := refUpdate{dirs: s.dirs, refs: s.Storage, name: ref.Name(), old: old, new: ref.Hash()}.apply()
	if errors.Is(err, errRefMoved) {
		return fmt.Errorf("update %s: it moved while the push was under way", ref.Name())
	}
	return err
}

// RemoveReference deletes a ref holding its lock and packed-refs.lock, as git does.
func (s *lockedStorage) RemoveReference(name plumbing.ReferenceName) error {
	l, err := lock(s.dirs.path(name), name.String())
	if err != nil {
		return err
	}
	defer l.release()
	pl, err := lock(filepath.Join(s.dirs.commonDir, "packed-refs"), "packed-refs")
	if err != nil {
		return err
	}
	defer pl.release()
	return s.Storage.RemoveReference(name)
}

// commonDirOf is the common directory of a git directory (itself, unless it is a linked
// worktree's).
func commonDirOf(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}
