package sessions

import (
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// GitInfo returns the branch and commit checked out in the repository holding dir (found by
// walking up to the nearest .git). It reads only HEAD and the reference it names. Outside a
// repository both are empty; on a detached HEAD the branch is empty; on a branch without commits
// the commit is empty.
func GitInfo(dir string) (branch, commit string) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return "", ""
	}
	head, err := repo.Reference(plumbing.HEAD, false)
	if err != nil {
		return "", ""
	}
	if head.Type() == plumbing.SymbolicReference {
		if head.Target().IsBranch() {
			branch = head.Target().Short()
		}
		if ref, err := repo.Reference(head.Target(), true); err == nil {
			commit = ref.Hash().String()
		}
		return branch, commit
	}
	return "", head.Hash().String()
}
