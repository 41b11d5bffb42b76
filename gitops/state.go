package gitops

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/gitops/internal/gitindex"
)

// What agent-hooks does while git is in the middle of something, compared with git commit
// (checked against git 2.39):
//
//   - Unmerged index entries (stages 1-3): git commit refuses ("Committing is not possible
//     because you have unmerged files"). So does agent-hooks, even where the work tree already
//     holds a resolution: git commit -a would stage the file, conflict markers and all, and
//     agent-hooks stages everything. A conflict is resolved by `git add`/`git rm`.
//   - A merge with every conflict resolved: git commit concludes it with a merge commit whose
//     second parent is MERGE_HEAD; agent-hooks does the same.
//   - A rebase (either backend), `git am`, a cherry-pick or a revert: git commit works once the
//     conflicts are resolved, but the commit is not the operation's own: `git rebase --continue`
//     and `git cherry-pick --continue` carry the picked commit's author and message, and after a
//     commit made in the middle of `git rebase --apply`, --continue stops with "No changes".
//     agent-hooks refuses and says how to continue or abort.
//
// git push would push in any of these states; agent-hooks does not, since HEAD is then not what
// the branch is going to be.

// UnfinishedError is a commit or push refused because the repository has unresolved conflicts
// or is in the middle of a merge, rebase, am, cherry-pick or revert.
type UnfinishedError struct {
	Action   string   // "commit" or "push"
	Op       string   // "merge", "rebase", "am", "cherry-pick", "revert"; "" when none is in progress
	Unmerged []string // paths with unresolved conflicts
}

func (e *UnfinishedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cannot %s: ", e.Action)
	if len(e.Unmerged) > 0 {
		fmt.Fprintf(&b, "unresolved conflicts in %s", listPaths(e.Unmerged, 10))
		if e.Op != "" {
			fmt.Fprintf(&b, " (%s %s is in progress)", article(e.Op), e.Op)
		}
		b.WriteString(": fix them in the work tree and mark each resolved with `git add <path>` (or `git rm <path>`)")
		switch e.Op {
		case "":
		case "merge":
			b.WriteString(", then run agent-hooks again to conclude the merge; or abort it with `git merge --abort`")
		default:
			fmt.Fprintf(&b, ", then run `git %s --continue`; or abort it with `git %s --abort`", e.Op, e.Op)
		}
	} else {
		fmt.Fprintf(&b, "%s %s is in progress: ", article(e.Op), e.Op)
		if e.Op == "merge" {
			b.WriteString("conclude it with a commit, or abort it with `git merge --abort`")
		} else {
			fmt.Fprintf(&b, "finish it with `git %s --continue` or abort it with `git %s --abort`; agent-hooks does not commit or push in the middle of one", e.Op, e.Op)
		}
	}
	if e.Action == "push" {
		b.WriteString("; nothing was pushed")
	} else {
		b.WriteString("; nothing was committed")
	}
	return b.String()
}

func article(op string) string {
	if op == "am" {
		return "an"
	}
	return "a"
}

// listPaths joins up to n paths and says how many more there are.
func listPaths(ps []string, n int) string {
	if len(ps) <= n {
		return strings.Join(ps, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ps[:n], ", "), len(ps)-n)
}

// operation is the multi-step operation the work tree is in the middle of, as git status reports
// it; "" for none. The state lives in the worktree's own git directory.
func (r *Repo) operation() string {
	exists := func(name string) bool {
		_, err := os.Lstat(filepath.Join(r.GitDir, name))
		return err == nil
	}
	switch {
	case exists("rebase-merge"):
		return "rebase"
	case exists(filepath.Join("rebase-apply", "applying")):
		return "am"
	case exists("rebase-apply"):
		return "rebase"
	case exists("MERGE_HEAD"):
		return "merge"
	case exists("CHERRY_PICK_HEAD"):
		return "cherry-pick"
	case exists("REVERT_HEAD"):
		return "revert"
	case exists("sequencer"):
		// A cherry-pick or revert of several commits, stopped between two of them.
		if f, err := os.Open(filepath.Join(r.GitDir, "sequencer", "todo")); err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				switch w, _, _ := strings.Cut(strings.TrimSpace(sc.Text()), " "); w {
				case "revert", "r":
					return "revert"
				case "pick", "p":
					return "cherry-pick"
				}
			}
		}
		return "cherry-pick"
	}
	return ""
}

// checkFinished refuses action while idx has unresolved conflicts or an operation other than a
// merge with every conflict resolved is in progress (and for a push, a merge too).
func (r *Repo) checkFinished(action string, idx *gitindex.Index) error {
	e := &UnfinishedError{Action: action, Op: r.operation(), Unmerged: idx.Unmerged()}
	if len(e.Unmerged) == 0 && (e.Op == "" || e.Op == "merge" && action == "commit") {
		return nil
	}
	return e
}
