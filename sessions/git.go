package sessions

import "github.com/autoagent/agent-hooks/gitops/githead"

// GitInfo returns the branch and commit checked out in the repository holding dir (found by
// walking up to the nearest .git; linked worktrees included). It reads only HEAD and the
// reference it names. Outside a repository both are empty; on a detached HEAD the branch is
// empty; on a branch without commits the commit is empty.
func GitInfo(dir string) (branch, commit string) {
	branch, commit, err := githead.Read(dir)
	if err != nil {
		return "", ""
	}
	return branch, commit
}
