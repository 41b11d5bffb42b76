package gitops

import (
	"container/heap"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/autoagent/agent-hooks/gitops/internal/gitindex"
	"github.com/autoagent/agent-hooks/gitops/internal/secrets"
)

// SecretFinding is a file that looks like it holds a secret: one a commit left out, or one that
// made a push refuse.
type SecretFinding struct {
	Path        string `json:"path"`   // relative to the top of the work tree
	Rule        string `json:"rule"`   // the rule's id: "dotenv", "github-pat", "PemFile", …
	Source      string `json:"source"` // whose rule: gitleaks, github/gitignore, talisman
	Description string `json:"description"`
	Line        int    `json:"line,omitempty"`   // the line of a content match
	Commit      string `json:"commit,omitempty"` // a push's: the commit that adds the file
}

// Reason says what was found: "rule github-pat (gitleaks) on line 3".
func (f SecretFinding) Reason() string {
	return secrets.Finding{Rule: f.Rule, Source: f.Source, Line: f.Line}.Reason()
}

// SecretError is a push refused because its new commits add files that look like secrets.
type SecretError struct {
	Remote   string
	Findings []SecretFinding // the first ones found, at most maxSecretFindings
}

func (e *SecretError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "refused: the commits to push to %s add files that look like secrets:", e.Remote)
	for _, f := range e.Findings {
		fmt.Fprintf(&b, " %s in %s (%s);", f.Path, shortHash(f.Commit), f.Reason())
	}
	b.WriteString(` nothing was pushed. Take them out of those commits, or list them in "allowSecrets" of the git-push hook`)
	return b.String()
}

func shortHash(h string) string { return h[:min(len(h), 7)] }

// maxSecretFindings bounds the findings a refused push reports.
const maxSecretFindings = 10

// secretCheck decides which added or changed files a commit or a push may carry: none that
// looks like a secret (internal/secrets), unless allowed. The detector is compiled on first use,
// so that a commit of nothing costs nothing.
type secretCheck struct {
	allow []string // globs relative to the top; see Selection.Globs

	mu    sync.Mutex
	clean map[string]plumbing.Hash // files looked at and let through, by path, with their blob
}

func newSecretCheck(allow []string) *secretCheck {
	return &secretCheck{allow: allow, clean: map[string]plumbing.Hash{}}
}

// allowed reports whether the hook allows the file at p whatever it holds.
func (c *secretCheck) allowed(p string) bool {
	for _, g := range c.allow {
		if globMatch(strings.Split(strings.Trim(g, "/"), "/"), strings.Split(p, "/"), true) {
			return true
		}
	}
	return false
}

// check looks at the file at p, blob h, whose content is data (nil: not read, or too large to
// scan; then only its name is checked). Let through, it is remembered as clean.
func (c *secretCheck) check(p string, h plumbing.Hash, data []byte) (SecretFinding, bool, error) {
	if c.allowed(p) {
		return SecretFinding{}, false, nil
	}
	d, err := secrets.Default()
	if err != nil {
		return SecretFinding{}, false, fmt.Errorf("secret rules: %w", err)
	}
	if f, ok := d.Check(p, data); ok {
		return SecretFinding{Path: p, Rule: f.Rule, Source: f.Source, Description: f.Description, Line: f.Line}, true, nil
	}
	c.mu.Lock()
	c.clean[p] = h
	c.mu.Unlock()
	return SecretFinding{}, false, nil
}

// isClean reports whether the blob h at p was already let through.
func (c *secretCheck) isClean(p string, h plumbing.Hash) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	got, ok := c.clean[p]
	return ok && got == h
}

// checkBlob checks the stored blob h at p, reading its content unless it is too large to scan.
func (c *secretCheck) checkBlob(r *Repo, p string, h plumbing.Hash) (SecretFinding, bool, error) {
	if c.allowed(p) || c.isClean(p, h) {
		return SecretFinding{}, false, nil
	}
	obj, err := r.readObject(plumbing.BlobObject, h)
	if err != nil {
		return SecretFinding{}, false, err
	}
	var data []byte
	if obj.Size() < secrets.MaxContent {
		rd, err := obj.Reader()
		if err != nil {
			return SecretFinding{}, false, fmt.Errorf("read blob %s: %w", h, err)
		}
		data, err = io.ReadAll(rd)
		rd.Close()
		if err != nil {
			return SecretFinding{}, false, fmt.Errorf("read blob %s: %w", h, err)
		}
	}
	return c.check(p, h, data)
}

// checkStaged takes out of the staged index what the commit would add or change that looks like
// a secret and that the stager did not look at (entries staged before, with git add): such an
// entry goes back to HEAD's version, or out of the index when HEAD has none, so that the file is
// left unstaged or untracked. It reports whether it changed the index.
func (r *Repo) checkStaged(p *pending, c *secretCheck) ([]SecretFinding, bool, error) {
	var found []SecretFinding
	for _, fc := range p.files {
		if fc.Status == "D" {
			continue
		}
		i, ok := p.idx.Find(fc.Path)
		if !ok {
			continue
		}
		e := p.idx.Entries[i]
		if e.Mode == gitindex.ModeGitlink {
			continue
		}
		f, bad, err := c.checkBlob(r, fc.Path, e.Hash)
		if err != nil {
			return nil, false, err
		}
		if bad {
			found = append(found, f)
		}
	}
	if len(found) == 0 {
		return nil, false, nil
	}
	drop := map[string]bool{}
	for _, f := range found {
		drop[f.Path] = true
	}
	out := p.idx.Entries[:0:0]
	for _, e := range p.idx.Entries {
		if !drop[e.Name] {
			out = append(out, e)
			continue
		}
		p.idx.Tree.Invalidate(e.Name)
		old, ok, err := r.treeEntryAt(p.head.tree, e.Name)
		if err != nil {
			return nil, false, err
		}
		if ok && old.Mode != filemode.Dir && old.Mode != filemode.Submodule {
			// HEAD's version, with no stat data: the next look at the file hashes it again.
			out = append(out, &gitindex.Entry{Mode: uint32(old.Mode), Hash: old.Hash, Name: e.Name})
		}
	}
	p.idx.Entries = out
	return found, true, nil
}

// treeEntryAt finds the entry at the slash-separated path p below the tree h.
func (r *Repo) treeEntryAt(h plumbing.Hash, p string) (object.TreeEntry, bool, error) {
	parts := strings.Split(p, "/")
	for i, name := range parts {
		es, err := r.treeEntries(h)
		if err != nil {
			return object.TreeEntry{}, false, err
		}
		e, ok := es[name]
		switch {
		case !ok:
			return object.TreeEntry{}, false, nil
		case i == len(parts)-1:
			return e, true, nil
		case e.Mode != filemode.Dir:
			return object.TreeEntry{}, false, nil
		}
		h = e.Hash
	}
	return object.TreeEntry{}, false, nil
}

// checkPush refuses a push (SecretError) whose new commits add or change a file that looks like
// a secret: the commits reachable from tip that no branch the remote has reaches (refs, as the
// remote itself advertises them: the local remote-tracking refs are anyone's to move; its tags
// and other refs are not followed, which only checks more). A file is what a commit adds or
// changes compared to its parents (to every parent of a merge: what a merge brings from a
// branch already pushed is not new).
func (r *Repo) checkPush(ctx context.Context, remote string, refs []*plumbing.Reference, tip plumbing.Hash, c *secretCheck) error {
	var have []plumbing.Hash
	for _, ref := range refs {
		if h := ref.Hash(); ref.Name().IsBranch() && !h.IsZero() && r.objs.Has(h) {
			have = append(have, h)
		}
	}
	commits, err := r.newCommits(ctx, tip, have)
	if err != nil {
		return fmt.Errorf("find the commits to push: %w", err)
	}
	var found []SecretFinding
	seen := map[string]bool{} // path and blob already checked
	for _, cm := range commits {
		if err := ctx.Err(); err != nil {
			return err
		}
		files, err := r.commitAdds(cm)
		if err != nil {
			return err
		}
		for _, f := range files {
			key := f.path + "\x00" + f.hash.String()
			if seen[key] {
				continue
			}
			seen[key] = true
			sf, bad, err := c.checkBlob(r, f.path, f.hash)
			if err != nil {
				return err
			}
			if bad {
				sf.Commit = cm.Hash.String()
				if found = append(found, sf); len(found) == maxSecretFindings {
					return &SecretError{Remote: remote, Findings: found}
				}
			}
		}
	}
	if len(found) > 0 {
		return &SecretError{Remote: remote, Findings: found}
	}
	return nil
}

// newCommits lists the commits reachable from tip but not from any of have, newest first by
// committer date, walking both sides by date as git's rev-list does (tip --not have): the
// remote's side is followed only until it meets the commits of tip. A commit read as new before
// a later remote commit reaches it (clock skew) counts as new: a push is checked more, not less.
func (r *Repo) newCommits(ctx context.Context, tip plumbing.Hash, have []plumbing.Hash) ([]*object.Commit, error) {
	const (
		fromTip    = 1
		fromRemote = 2
	)
	var (
		flags   = map[plumbing.Hash]int{}
		queued  = map[plumbing.Hash]bool{}
		tipOnly int // queued commits reached from tip alone
		q       = &commitQueue{}
		out     []*object.Commit
	)
	push := func(h plumbing.Hash, f int) error {
		old := flags[h]
		if old|f == old {
			return nil
		}
		flags[h] = old | f
		switch {
		case queued[h]:
			if old == fromTip {
				tipOnly--
			}
			return nil
		case old|f == fromTip:
			tipOnly++
		}
		c, err := r.readCommit(h)
		if err != nil {
			return err
		}
		queued[h] = true
		heap.Push(q, c)
		return nil
	}
	// A shallow clone's boundary commits have parents this repository never had (actions/checkout
	// fetches one commit by default): as git's rev-list does, they are walked as roots.
	boundary, err := r.repo.Storer.Shallow()
	if err != nil {
		return nil, fmt.Errorf("read the shallow commits: %w", err)
	}
	shallow := make(map[plumbing.Hash]bool, len(boundary))
	for _, h := range boundary {
		shallow[h] = true
	}
	for _, h := range have {
		if err := push(h, fromRemote); err != nil {
			return nil, err
		}
	}
	if err := push(tip, fromTip); err != nil {
		return nil, err
	}
	for tipOnly > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := heap.Pop(q).(*object.Commit)
		delete(queued, c.Hash)
		f := flags[c.Hash]
		if f == fromTip {
			tipOnly--
			out = append(out, c)
		}
		if shallow[c.Hash] {
			continue
		}
		for _, p := range c.ParentHashes {
			if err := push(p, f); err != nil {
				return nil, err
			}
		}
	}
	kept := out[:0]
	for _, c := range out {
		if flags[c.Hash] == fromTip {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// commitQueue is a max-heap of commits by committer date.
type commitQueue []*object.Commit

func (q commitQueue) Len() int           { return len(q) }
func (q commitQueue) Less(i, j int) bool { return q[i].Committer.When.After(q[j].Committer.When) }
func (q commitQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)        { *q = append(*q, x.(*object.Commit)) }
func (q *commitQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}

// addedFile is a file a commit adds or changes.
type addedFile struct {
	path string
	hash plumbing.Hash
}

// commitAdds lists the files (blobs, not submodules) the commit c adds or changes compared to
// every one of its parents; for a root commit, all its files.
func (r *Repo) commitAdds(c *object.Commit) ([]addedFile, error) {
	parents := c.ParentHashes
	first := plumbing.ZeroHash
	if len(parents) > 0 {
		pc, err := r.readCommit(parents[0])
		if err != nil {
			return nil, err
		}
		first = pc.TreeHash
	}
	var out []addedFile
	if err := r.treeAdds(&out, first, c.TreeHash, ""); err != nil {
		return nil, err
	}
	for i := 1; i < len(parents); i++ {
		ph := parents[i]
		pc, err := r.readCommit(ph)
		if err != nil {
			return nil, err
		}
		kept := out[:0]
		for _, f := range out {
			e, ok, err := r.treeEntryAt(pc.TreeHash, f.path)
			if err != nil {
				return nil, err
			}
			if !ok || e.Hash != f.hash {
				kept = append(kept, f)
			}
		}
		out = kept
	}
	return out, nil
}

// treeAdds lists the blobs of the tree h (at dir) that the tree old lacks at the same path,
// descending only into subtrees that differ.
func (r *Repo) treeAdds(out *[]addedFile, old, h plumbing.Hash, dir string) error {
	if old == h {
		return nil
	}
	olds, err := r.treeEntries(old)
	if err != nil {
		return err
	}
	news, err := r.treeEntries(h)
	if err != nil {
		return err
	}
	for name, e := range news {
		p := name
		if dir != "" {
			p = dir + "/" + name
		}
		oe, ok := olds[name]
		switch {
		case e.Mode == filemode.Submodule:
		case e.Mode == filemode.Dir:
			var sub plumbing.Hash
			if ok && oe.Mode == filemode.Dir {
				sub = oe.Hash
			}
			if err := r.treeAdds(out, sub, e.Hash, p); err != nil {
				return err
			}
		case !ok || oe.Hash != e.Hash:
			*out = append(*out, addedFile{path: p, hash: e.Hash})
		}
	}
	return nil
}
