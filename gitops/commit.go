package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/autoagent/agent-hooks/gitops/internal/gitindex"
	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
	"github.com/autoagent/agent-hooks/gitops/internal/refs"
)

// CommitOptions say what to commit and how.
type CommitOptions struct {
	Message    string
	Author     Person // from the hook's configuration; empty fields are resolved (see identity)
	Committer  Person
	NoVerify   bool // skip the repository's pre-commit and commit-msg hooks
	AllowEmpty bool
	Selection  Selection
	// AllowSecrets are globs (as Selection.Globs) of files committed even when they look like
	// secrets. Any other added or changed file that does (internal/secrets: dotenv, private key
	// and credential files by name, well-known token formats by content) is left out of the
	// commit, unstaged or untracked, and reported in CommitResult.Secrets.
	AllowSecrets []string
	// Before is called once the changes are known and before anything is committed (agent-hooks
	// fires PreGitCommit here). An error stops the commit and is returned as is. rescan says the
	// work tree may have changed, so the changes are computed again.
	Before func(ctx context.Context, p Pending) (rescan bool, err error)
	// Out receives the output of the repository's git hooks as they run.
	Out io.Writer
	Now func() time.Time
	// Create, when set, makes the commit elsewhere (on GitHub, through its API) instead of here,
	// and the branch then moves to the very commit it made (see Creator).
	Create Creator
}

// Pending describes the commit about to be made.
type Pending struct {
	Branch  string // short branch name, "" on a detached HEAD
	Message string
	Files   []FileChange
}

// FileChange is one path that the commit changes.
type FileChange struct {
	Path   string `json:"path"`
	Status string `json:"status"` // A added, M modified, D deleted, T type changed
}

// CommitResult is what Commit did.
type CommitResult struct {
	Changes  bool         // false: nothing to commit, no commit made
	Hash     string       // the new commit
	Parent   string       // the previous HEAD commit, "" for a root commit
	Branch   string       // the branch that moved, "" on a detached HEAD
	Message  string       // the message as committed (after commit-msg)
	Files    []FileChange // what the commit changes compared to its parent
	Warnings []string
	Created  *CreatedCommit // the commit CommitOptions.Create made, nil for a commit made here
	// Secrets are the files left out of the commit (or of the nothing committed) because they
	// look like secrets (see CommitOptions.AllowSecrets).
	Secrets []SecretFinding
}

// HookError is a repository git hook (pre-commit, commit-msg) that refused the commit.
type HookError struct {
	Hook     string
	ExitCode int
	Output   string
}

func (e *HookError) Error() string {
	msg := fmt.Sprintf("%s hook failed with exit code %d; nothing was committed", e.Hook, e.ExitCode)
	if out := strings.TrimSpace(e.Output); out != "" {
		msg += ":\n" + out
	}
	return msg
}

// head is what HEAD points at.
type head struct {
	branch plumbing.ReferenceName // "" when detached
	commit plumbing.Hash          // zero on an unborn branch
	tree   plumbing.Hash
	merge  []plumbing.Hash // MERGE_HEAD: a merge is being concluded
}

func (r *Repo) head() (head, error) {
	ref, err := r.repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return head{}, fmt.Errorf("read HEAD: %w", err)
	}
	var h head
	if ref.Type() == plumbing.SymbolicReference {
		h.branch = ref.Target()
		t, err := r.repo.Storer.Reference(h.branch)
		switch {
		case errors.Is(err, plumbing.ErrReferenceNotFound):
			h.tree = gitobj.EmptyTree
			return h, nil
		case err != nil:
			return head{}, fmt.Errorf("read %s: %w", h.branch, err)
		}
		h.commit = t.Hash()
	} else {
		h.commit = ref.Hash()
	}
	c, err := r.readCommit(h.commit)
	if err != nil {
		return head{}, fmt.Errorf("read HEAD: %w", err)
	}
	h.tree = c.TreeHash
	if b, err := os.ReadFile(filepath.Join(r.GitDir, "MERGE_HEAD")); err == nil {
		for _, line := range strings.Fields(string(b)) {
			if m := plumbing.NewHash(line); !m.IsZero() {
				h.merge = append(h.merge, m)
			}
		}
	}
	return h, nil
}

// nothingToCommit reports whether a commit of root would change nothing. Concluding a merge
// always commits, as git does.
func (hd head) nothingToCommit(root plumbing.Hash, allowEmpty bool) bool {
	return root == hd.tree && !allowEmpty && len(hd.merge) == 0
}

// Commit stages the selected changes of the work tree and commits them on the current branch,
// running the repository's pre-commit, commit-msg and post-commit hooks unless NoVerify. Nothing
// to commit is not an error: the result says Changes false.
//
// The stages, as `git add -A && git commit` goes through them: stage the work tree and store the
// index (stageForCommit: the repository's state checked, changes staged, Before asked, trees and
// index written under index.lock), run pre-commit and take the index it leaves (runPreCommit),
// settle the message with commit-msg (commitMessage), write the commit (writeCommit), move the
// branch under its lock (advance), conclude a merge, run post-commit.
func (r *Repo) Commit(ctx context.Context, o CommitOptions) (*CommitResult, error) {
	defer r.objs.Close() // the packs a commit read are not kept open
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	res := &CommitResult{Warnings: r.unsupportedWarnings(o.Create != nil)}
	if o.Create != nil {
		if err := r.prepareElsewhere(ctx, o.Create); err != nil {
			return nil, err
		}
	}
	chk := newSecretCheck(o.AllowSecrets)
	p, err := r.stageForCommit(ctx, o, res, chk)
	if err != nil || p == nil {
		return nilIfErr(res, err)
	}
	if !o.NoVerify {
		if p, err = r.runPreCommit(ctx, p, o.AllowEmpty, chk, out); err != nil || p == nil {
			return nilIfErr(res, err)
		}
	}
	msg, err := r.commitMessage(ctx, o.Message, o.NoVerify, out)
	if err != nil {
		return nil, err
	}
	var (
		id        plumbing.Hash
		committer = p.committer
		other     *madeElsewhere
	)
	if o.Create != nil {
		if other, err = r.createElsewhere(ctx, o, p.head, p.root, msg, r.now(o)); err != nil {
			return nil, err
		}
		id, committer, msg = other.id, other.commit.Committer, other.commit.Message
	} else if id, err = r.writeCommit(p, msg); err != nil {
		return nil, err
	}
	if err := r.advance(p.head, id, committer, msg); err != nil {
		if other != nil {
			err = fmt.Errorf("%w (%s already has the commit %s: fetch it)", err, other.target.Remote, id)
		}
		return nil, err
	}
	if other != nil {
		res.Created = other.created
		if err := r.trackCreated(other, r.now(o)); err != nil {
			res.Warnings = append(res.Warnings, err.Error())
		}
	}
	r.concludeMerge(p.head)
	res.Changes, res.Hash, res.Branch, res.Message, res.Files = true, id.String(), p.head.branch.Short(), msg, p.files
	if !p.head.commit.IsZero() {
		res.Parent = p.head.commit.String()
	}
	if _, err := r.runGitHook(ctx, "post-commit", nil, out); err != nil {
		res.Warnings = append(res.Warnings, err.Error())
	}
	return res, nil
}

// nilIfErr is the result of a commit that stopped early: nothing to commit, or an error.
func nilIfErr(res *CommitResult, err error) (*CommitResult, error) {
	if err != nil {
		return nil, err
	}
	return res, nil
}

// pending is a commit being made: where HEAD was, the index staged for it and its trees.
type pending struct {
	head              head
	idx               *gitindex.Index
	trees             *gitindex.Trees
	root              plumbing.Hash
	files             []FileChange
	author, committer object.Signature
}

// unsupportedWarnings says which of the repository's settings a commit by agent-hooks ignores
// (signing, unless the commit is made elsewhere, which signs it).
func (r *Repo) unsupportedWarnings(elsewhere bool) []string {
	var ws []string
	if r.cfg.Bool("commit", "", "gpgsign", false) && !elsewhere {
		ws = append(ws, "commit.gpgSign is set but agent-hooks cannot sign commits; the commit is unsigned")
	}
	for _, f := range []string{filepath.Join(r.Root, ".gitattributes"), filepath.Join(r.CommonDir, "info", "attributes")} {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "filter=") {
			ws = append(ws, f+" names clean/smudge filters (Git LFS?); agent-hooks stores file contents as they are, without running filters")
			break
		}
	}
	return ws
}

// stageForCommit stages the selected changes but what looks like a secret, asks o.Before, and
// stores the trees and the index (under git's lock); it stages again when Before says the work
// tree changed or another process changed the index meanwhile. nil: nothing to commit. Staging
// warnings and the files left out go to res.
func (r *Repo) stageForCommit(ctx context.Context, o CommitOptions, res *CommitResult, chk *secretCheck) (*pending, error) {
	var (
		asked             bool
		author, committer object.Signature
	)
	for attempt := 0; ; attempt++ {
		if attempt > 3 {
			return nil, errors.New("commit: the index keeps changing under agent-hooks; is another git command running?")
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, warnings, leftOut, err := r.stageChanges(o.Selection, chk)
		if err != nil {
			return nil, err
		}
		if attempt == 0 {
			res.Warnings = append(res.Warnings, warnings...)
		}
		res.Secrets = leftOut
		if p.head.nothingToCommit(p.root, o.AllowEmpty) {
			return nil, nil
		}
		if !asked {
			asked = true
			// Only now that there is something to commit must there be someone to commit it.
			if author, committer, err = r.signatures(o); err != nil {
				return nil, err
			}
			if o.Before != nil {
				rescan, err := o.Before(ctx, Pending{Branch: p.head.branch.Short(), Message: o.Message, Files: p.files})
				if err != nil {
					return nil, err
				}
				if rescan {
					continue
				}
			}
		}
		p.author, p.committer = author, committer
		if ok, err := r.storeStaged(p); err != nil || ok {
			return p, err
		}
	}
}

// stageChanges reads HEAD and the index, refuses to go on in the middle of an unfinished
// operation, stages the selected changes of the work tree but what looks like a secret (staged
// before or not: leftOut), and computes the trees and what they change.
func (r *Repo) stageChanges(sel Selection, chk *secretCheck) (p *pending, warnings []string, leftOut []SecretFinding, err error) {
	hd, err := r.head()
	if err != nil {
		return nil, nil, nil, err
	}
	idx, err := gitindex.Read(r.indexPath())
	if err != nil {
		return nil, nil, nil, err
	}
	if err := r.checkFinished("commit", idx); err != nil {
		return nil, nil, nil, err
	}
	st, err := r.stage(idx, sel, chk)
	if err != nil {
		return nil, nil, nil, err
	}
	p = &pending{head: hd, idx: st.idx}
	if err := r.build(p); err != nil {
		return nil, nil, nil, err
	}
	more, changed, err := r.checkStaged(p, chk)
	if err != nil {
		return nil, nil, nil, err
	}
	if changed {
		if err := r.build(p); err != nil {
			return nil, nil, nil, err
		}
	}
	leftOut = append(st.secrets, more...)
	slices.SortFunc(leftOut, func(a, b SecretFinding) int { return strings.Compare(a.Path, b.Path) })
	return p, st.warnings, leftOut, nil
}

// build computes the trees of p's index and the files they change from HEAD.
func (r *Repo) build(p *pending) (err error) {
	if p.trees, p.root, err = buildFromIndex(p.idx); err != nil {
		return err
	}
	p.files, err = r.diff(p.head.tree, p.trees)
	return err
}

// signatures resolves the author and committer, dated now (see identity).
func (r *Repo) signatures(o CommitOptions) (author, committer object.Signature, err error) {
	t := r.now(o)
	if author, err = r.identity("author", o.Author, Person{}, t); err != nil {
		return author, committer, err
	}
	committer, err = r.identity("committer", o.Committer, o.Author, t)
	return author, committer, err
}

// now is o.Now's time, else the clock's.
func (r *Repo) now(o CommitOptions) time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// storeStaged writes the trees of p, then its index under index.lock: the index's cache tree
// must name only trees the repository has. ok false: the index changed on disk meanwhile. Once
// stored, p lets go of the index (dropIndex).
func (r *Repo) storeStaged(p *pending) (ok bool, err error) {
	if err := r.writeTrees(p.trees); err != nil {
		return false, err
	}
	if ok, err = r.writeIndex(p.idx, p.trees); ok && err == nil {
		p.dropIndex()
	}
	return ok, err
}

// dropIndex lets go of the entries of p's index and trees once the index is stored: the commit
// needs only the top tree's id and the tree objects not yet written from here on, and the
// pre-commit hook's index is read while p is held, which would otherwise hold two indexes.
func (p *pending) dropIndex() {
	p.idx = nil
	p.trees = &gitindex.Trees{Objs: p.trees.Objs}
}

// runPreCommit runs the pre-commit hook. A hook that ran may have staged or unstaged files, so
// the commit is then made of what the index says afterwards (nil: nothing to commit any more);
// if the hook staged a file that looks like a secret, nothing is committed.
func (r *Repo) runPreCommit(ctx context.Context, p *pending, allowEmpty bool, chk *secretCheck, out io.Writer) (*pending, error) {
	run, err := r.runGitHook(ctx, "pre-commit", nil, out)
	if err != nil {
		return nil, err
	}
	if run.ran && run.exitCode != 0 {
		return nil, &HookError{Hook: "pre-commit", ExitCode: run.exitCode, Output: run.output}
	}
	if !run.ran {
		return p, nil
	}
	// The staged index, let go of once stored (dropIndex), is most of the heap and garbage now:
	// collected before the hook's index is read, the two are never in memory together. With
	// little else live, the collection takes a millisecond or two, less than starting the hook.
	runtime.GC()
	idx, err := gitindex.Read(r.indexPath())
	if err != nil {
		return nil, err
	}
	tb, root, err := buildFromIndex(idx)
	if err != nil {
		return nil, err
	}
	if p.head.nothingToCommit(root, allowEmpty) {
		return nil, nil
	}
	after := *p
	after.idx, after.trees, after.root = idx, tb, root
	if after.files, err = r.diff(p.head.tree, tb); err != nil {
		return nil, err
	}
	// What the hook staged was not looked at; the check only reads the index it was given here.
	if found, _, err := r.checkStaged(&pending{head: p.head, idx: idx, files: after.files}, chk); err != nil {
		return nil, err
	} else if len(found) > 0 {
		return nil, fmt.Errorf("the pre-commit hook staged %s, which looks like a secret (%s); nothing was committed",
			found[0].Path, found[0].Reason())
	}
	return &after, nil
}

// writeCommit stores the trees of p the repository lacks and the commit object.
func (r *Repo) writeCommit(p *pending, msg string) (plumbing.Hash, error) {
	if err := r.writeTrees(p.trees); err != nil {
		return plumbing.ZeroHash, err
	}
	c := &object.Commit{Author: p.author, Committer: p.committer, Message: msg, TreeHash: p.root}
	if !p.head.commit.IsZero() {
		c.ParentHashes = append([]plumbing.Hash{p.head.commit}, p.head.merge...)
	}
	obj := &plumbing.MemoryObject{}
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	id, err := r.writeObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write commit: %w", err)
	}
	return id, nil
}

// concludeMerge removes the state of the merge a commit concluded, as git commit does.
func (r *Repo) concludeMerge(hd head) {
	if len(hd.merge) == 0 {
		return
	}
	for _, f := range []string{"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "AUTO_MERGE"} {
		_ = os.Remove(filepath.Join(r.GitDir, f))
	}
}

// buildFromIndex computes the trees of an index, which must have no unresolved conflicts (the
// pre-commit hook, which may change the index, could have left some).
func buildFromIndex(idx *gitindex.Index) (*gitindex.Trees, plumbing.Hash, error) {
	if u := idx.Unmerged(); len(u) > 0 {
		return nil, plumbing.ZeroHash, &UnfinishedError{Action: "commit", Unmerged: u}
	}
	tb, root := gitindex.BuildTrees(idx.Entries, idx.Tree)
	return tb, root, nil
}

// writeIndex writes idx with the trees of tb under index.lock, unless the index on disk is no
// longer the one idx was read from (ok false: stage again).
func (r *Repo) writeIndex(idx *gitindex.Index, tb *gitindex.Trees) (ok bool, err error) {
	return idx.WriteFile(r.indexPath(), r.Root, tb.Nodes, r.cleaner(idx))
}

// writeTrees stores the tree objects the builder computed that the repository lacks.
func (r *Repo) writeTrees(tb *gitindex.Trees) error {
	w := gitobj.NewWriter(r.objects())
	for h, data := range tb.Objs {
		w.Add(plumbing.TreeObject, h, data)
	}
	tb.Objs = map[plumbing.Hash][]byte{} // written: a second call has nothing to do
	return w.Wait()
}

// commitMessage cleans the message up as `git commit -m` does, lets the commit-msg hook rewrite
// it through .git/COMMIT_EDITMSG, and refuses an empty one.
func (r *Repo) commitMessage(ctx context.Context, msg string, noVerify bool, out io.Writer) (string, error) {
	msg = cleanupMessage(msg)
	path := filepath.Join(r.GitDir, "COMMIT_EDITMSG")
	if err := os.WriteFile(path, []byte(msg), 0o644); err != nil {
		return "", fmt.Errorf("write commit message: %w", err)
	}
	if !noVerify {
		run, err := r.runGitHook(ctx, "commit-msg", []string{path}, out)
		if err != nil {
			return "", err
		}
		if run.ran && run.exitCode != 0 {
			return "", &HookError{Hook: "commit-msg", ExitCode: run.exitCode, Output: run.output}
		}
		if run.ran {
			b, err := os.ReadFile(path)
			if err != nil {
				return "", fmt.Errorf("read commit message back from the commit-msg hook: %w", err)
			}
			msg = cleanupMessage(string(b))
		}
	}
	if msg == "" {
		return "", errors.New("aborting commit due to empty commit message")
	}
	return msg, nil
}

// cleanupMessage is git's "whitespace" cleanup: trailing spaces removed, runs of blank lines
// collapsed, no blank lines at either end, one final newline.
func cleanupMessage(msg string) string {
	var lines []string
	blank := false
	for _, l := range strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			blank = len(lines) > 0
			continue
		}
		if blank {
			lines = append(lines, "")
			blank = false
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// advance moves the branch (or a detached HEAD) from hd to id as git does: holding the branch's
// lock and HEAD's, failing if another process holds either or moved them meanwhile, and recording
// the move in the reflogs.
func (r *Repo) advance(hd head, id plumbing.Hash, who object.Signature, msg string) error {
	u := refs.Update{
		Dirs: refs.Dirs{GitDir: r.GitDir, CommonDir: r.CommonDir}, Refs: r.repo.Storer,
		Name: hd.branch, Old: hd.commit, New: id,
	}
	if hd.branch == "" {
		u.Name = plumbing.HEAD
	} else {
		u.Also = []plumbing.ReferenceName{plumbing.HEAD}
		// HEAD must still be on the branch (git checkout waits for HEAD.lock).
		u.Check = func() error {
			ref, err := r.repo.Storer.Reference(plumbing.HEAD)
			if err != nil {
				return err
			}
			if ref.Type() != plumbing.SymbolicReference || ref.Target() != hd.branch {
				return refs.ErrMoved
			}
			return nil
		}
	}
	if r.cfg.Bool("core", "", "logallrefupdates", true) {
		u.Reflog = func() error { return r.writeReflogs(hd, id, who, msg) }
	}
	err := u.Apply()
	if errors.Is(err, refs.ErrMoved) {
		return fmt.Errorf("update %s: it moved while committing; nothing was committed", u.Name)
	}
	return err
}

// writeReflogs appends the commit to the reflogs of HEAD and the branch.
func (r *Repo) writeReflogs(hd head, id plumbing.Hash, who object.Signature, msg string) error {
	subject, _, _ := strings.Cut(msg, "\n")
	what := "commit: "
	switch {
	case hd.commit.IsZero():
		what = "commit (initial): "
	case len(hd.merge) > 0:
		what = "commit (merge): "
	}
	line := fmt.Sprintf("%s %s %s <%s> %d %s\t%s%s\n", hd.commit, id, who.Name, who.Email, who.When.Unix(), who.When.Format("-0700"), what, subject)
	logs := []string{filepath.Join(r.GitDir, "logs", "HEAD")}
	if hd.branch != "" {
		logs = append(logs, filepath.Join(r.CommonDir, "logs", filepath.FromSlash(hd.branch.String())))
	}
	for _, p := range logs {
		if err := appendLine(p, line); err != nil {
			return err
		}
	}
	return nil
}

func appendLine(path, line string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
