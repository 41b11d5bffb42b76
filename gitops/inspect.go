package gitops

import (
	"errors"
	"fmt"

	git "github.com/go-git/go-git/v5"

	"github.com/autoagent/agent-hooks/gitops/githead"
)

// The read helpers other packages use instead of opening a repository themselves: every one finds
// the repository as Open does (dir or its nearest ancestor with a .git, a linked worktree's .git
// file included) and reads the shared config and refs from the common directory.

// ErrNotRepository is returned (wrapped) for a directory that is not inside a git work tree.
var ErrNotRepository = githead.ErrNotRepository

// ErrNoRemote is returned (wrapped) by RemoteURL for a remote the repository does not have.
var ErrNoRemote = errors.New("no such remote")

// location is where a repository's parts are.
type location struct {
	root      string // the work tree's top directory
	gitDir    string // .git, or a linked worktree's private git directory
	commonDir string // objects, refs, config and hooks
}

// locate finds the repository holding dir (package head finds it, for every program).
func locate(dir string) (location, error) {
	l, err := githead.Locate(dir)
	return location{root: l.Root, gitDir: l.GitDir, commonDir: l.CommonDir}, err
}

// locateAt is the repository whose work tree's top is dir itself (a submodule, a nested
// repository), without looking further up.
func locateAt(dir string) (location, error) {
	l, ok, err := githead.At(dir)
	if err != nil {
		return location{}, err
	}
	if !ok {
		return location{}, fmt.Errorf("open repository: %s is %w", dir, ErrNotRepository)
	}
	return location{root: l.Root, gitDir: l.GitDir, commonDir: l.CommonDir}, nil
}

// open opens the repository's storage with go-git, linked worktrees included: the only place
// agent-hooks opens a repository.
func (l location) open() (*git.Repository, error) {
	r, err := git.PlainOpenWithOptions(l.root, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", l.root, err)
	}
	return r, nil
}

func openAt(dir string) (*git.Repository, error) {
	l, err := locate(dir)
	if err != nil {
		return nil, err
	}
	return l.open()
}

// Head reads HEAD of the repository holding dir: the branch checked out ("" on a detached HEAD)
// and the commit it is at ("" on a branch without commits). It reads only HEAD and the ref it
// names (package head).
func Head(dir string) (branch, commit string, err error) { return githead.Read(dir) }

// RemoteURL is the (first) URL of the remote name of the repository holding dir, as its config
// says.
func RemoteURL(dir, name string) (string, error) {
	r, err := openAt(dir)
	if err != nil {
		return "", err
	}
	rem, err := r.Remote(name)
	if errors.Is(err, git.ErrRemoteNotFound) {
		return "", fmt.Errorf("remote %s: %w", name, ErrNoRemote)
	}
	if err != nil {
		return "", fmt.Errorf("read remote %s: %w", name, err)
	}
	if urls := rem.Config().URLs; len(urls) > 0 && urls[0] != "" {
		return urls[0], nil
	}
	return "", fmt.Errorf("remote %s has no URL", name)
}

// Origin is the URL of the origin remote of the repository holding dir.
func Origin(dir string) (string, error) { return RemoteURL(dir, "origin") }
