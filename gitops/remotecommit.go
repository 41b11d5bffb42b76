package gitops

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
	"github.com/autoagent/agent-hooks/gitops/internal/refs"
	"github.com/autoagent/agent-hooks/internal/redact"
)

// A commit can be made elsewhere than in the repository — on GitHub, through its API, which
// signs it — and then brought back: gitops stages the work tree, runs the repository's hooks and
// settles the message as for any commit, hands the staged commit to a Creator, and makes the
// local branch the exact commit the Creator made (same object, same id), as if it had been
// committed here and pushed.

// Creator makes a staged commit elsewhere (CommitOptions.Create).
type Creator interface {
	// Prepare is called before anything is staged: an error (the remote cannot take the commit)
	// stops the commit with nothing done.
	Prepare(ctx context.Context, t RemoteTarget) error
	// Create makes the commit and moves the remote branch to it.
	Create(ctx context.Context, c *StagedCommit) (*CreatedCommit, error)
}

// RemoteTarget is where a commit made elsewhere goes: the branch of the remote it is pushed to,
// and the commit it must build on.
type RemoteTarget struct {
	Remote    string // the remote's name
	RemoteURL string // its (push) URL, credentials and all: never show it unredacted
	Branch    string // the branch's short name, the same on the remote
	Parent    string // the local branch's commit, which the remote branch must be at
}

// StagedCommit is a commit staged in the repository but not made.
type StagedCommit struct {
	RemoteTarget
	Parents  []string // Parent, and MERGE_HEAD's commits when it concludes a merge
	Tree     string   // the staged root tree
	BaseTree string   // the tree of Parent
	Message  string   // as committed: cleaned up, after commit-msg
	// Author and Committer are the hook's own, when it sets them; nil leaves them to whoever
	// makes the commit (GitHub: the token's account, and then it signs the commit).
	Author, Committer *Signature
	Changes           []TreeChange // every path whose entry differs from BaseTree's
	repo              *Repo
}

// Signature is who made a commit, and when.
type Signature struct {
	Name, Email string
	When        time.Time
}

// TreeChange is one path of the staged tree that differs from the base tree.
type TreeChange struct {
	Path    string
	Mode    string // as git writes it: 100644, 100755, 120000, 160000 (a submodule's commit)
	ID      string // the blob (or the submodule's commit)
	Deleted bool   // the path is gone: Mode and ID are the base tree's
}

// ReadBlob reads a blob of the staged tree.
func (s *StagedCommit) ReadBlob(id string) ([]byte, error) {
	return s.repo.readBlob(plumbing.NewHash(id))
}

// CreatedCommit is the commit a Creator made.
type CreatedCommit struct {
	ID string
	// SignedPayload and Signature are the commit object without its gpgsig header and that
	// header's value, as GitHub reports a signed commit (verification.payload and .signature):
	// the object is rebuilt from them, byte for byte. Without them the commit is fetched from the
	// remote.
	SignedPayload, Signature string
	Verified                 bool   // the host verified the signature
	Reason                   string // the host's word on the signature: valid, unsigned, …
	URL                      string // where the commit is shown
	// Fetched is set by gitops when the commit was fetched rather than rebuilt.
	Fetched bool
}

// remoteTarget is where the current branch's commits go: branch.<name>.pushRemote,
// remote.pushDefault, branch.<name>.remote, else origin, at its pushurl or url.
func (r *Repo) remoteTarget() (RemoteTarget, head, error) {
	hd, err := r.head()
	switch {
	case err != nil:
		return RemoteTarget{}, hd, err
	case hd.branch == "":
		return RemoteTarget{}, hd, errors.New("HEAD is detached: a commit made on the remote needs a branch to go on")
	case hd.commit.IsZero():
		return RemoteTarget{}, hd, fmt.Errorf("the branch %s has no commit yet: the remote builds on a commit it has; push the first commit", hd.branch.Short())
	}
	b := hd.branch.Short()
	name := r.cfg.Get("branch", b, "pushremote")
	for _, v := range []string{r.cfg.Get("remote", "", "pushdefault"), r.cfg.Get("branch", b, "remote"), "origin"} {
		if name == "" || name == "." {
			name = v
		}
	}
	url := r.cfg.Get("remote", name, "pushurl")
	if url == "" {
		url = r.cfg.Get("remote", name, "url")
	}
	if url == "" {
		return RemoteTarget{}, hd, fmt.Errorf("no remote named %q with a URL in this repository", name)
	}
	return RemoteTarget{Remote: name, RemoteURL: url, Branch: b, Parent: hd.commit.String()}, hd, nil
}

// prepareElsewhere asks the Creator whether the branch's remote can take a commit.
func (r *Repo) prepareElsewhere(ctx context.Context, c Creator) error {
	t, _, err := r.remoteTarget()
	if err == nil {
		err = c.Prepare(ctx, t)
	}
	if err != nil {
		return fmt.Errorf("commit on the remote: %w; nothing was committed", err)
	}
	return nil
}

// madeElsewhere is a commit a Creator made, now in the repository.
type madeElsewhere struct {
	id      plumbing.Hash
	commit  *object.Commit
	created *CreatedCommit
	target  RemoteTarget
}

// createElsewhere has the Creator make the staged commit (tree root on hd, with msg), then
// stores the very object it made: rebuilt from its signed payload and signature when its id
// matches, else fetched from the remote. The object must be the staged tree on hd's commits.
func (r *Repo) createElsewhere(ctx context.Context, o CommitOptions, hd head, root plumbing.Hash, msg string, when time.Time) (*madeElsewhere, error) {
	t, _, err := r.remoteTarget()
	if err != nil {
		return nil, fmt.Errorf("commit on the remote: %w; nothing was committed", err)
	}
	if t.Parent != hd.commit.String() || t.Branch != hd.branch.Short() {
		return nil, fmt.Errorf("commit on the remote: %s moved while committing; nothing was committed", hd.branch.Short())
	}
	s := &StagedCommit{RemoteTarget: t, Tree: root.String(), BaseTree: hd.tree.String(), Message: msg, repo: r}
	for _, p := range append([]plumbing.Hash{hd.commit}, hd.merge...) {
		s.Parents = append(s.Parents, p.String())
	}
	for _, who := range []struct {
		role string
		set  Person
		dst  **Signature
	}{{"author", o.Author, &s.Author}, {"committer", o.Committer, &s.Committer}} {
		if who.set.Name == "" && who.set.Email == "" {
			continue
		}
		sig, err := r.identity(who.role, who.set, o.Author, when)
		if err != nil {
			return nil, err
		}
		*who.dst = &Signature{Name: sig.Name, Email: sig.Email, When: sig.When}
	}
	if s.Changes, err = r.treeChanges(hd.tree, root); err != nil {
		return nil, err
	}
	created, err := o.Create.Create(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("commit on the remote: %w", err)
	}
	m := &madeElsewhere{id: plumbing.NewHash(created.ID), created: created, target: t}
	if err := r.storeCreated(ctx, m); err != nil {
		return nil, fmt.Errorf("commit on the remote: %s has the commit %s, but it could not be brought here: %w", t.Remote, created.ID, err)
	}
	c := m.commit
	if c.TreeHash != root || len(c.ParentHashes) != len(s.Parents) {
		return nil, fmt.Errorf("commit on the remote: %s made %s of tree %s, not of the staged tree %s; the local branch is left as it was", t.Remote, m.id, c.TreeHash, root)
	}
	for i, p := range c.ParentHashes {
		if p.String() != s.Parents[i] {
			return nil, fmt.Errorf("commit on the remote: %s made %s on %s, not on %s; the local branch is left as it was", t.Remote, m.id, p, s.Parents[i])
		}
	}
	return m, nil
}

// treeChanges lists the paths whose entries differ between the trees from and to.
func (r *Repo) treeChanges(from, to plumbing.Hash) ([]TreeChange, error) {
	a, err := object.GetTree(r.repo.Storer, from)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", from, err)
	}
	b, err := object.GetTree(r.repo.Storer, to)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", to, err)
	}
	diff, err := object.DiffTree(a, b)
	if err != nil {
		return nil, fmt.Errorf("compare trees %s and %s: %w", from, to, err)
	}
	var out []TreeChange
	for _, ch := range diff {
		if ch.From.Name != "" && ch.From.Name != ch.To.Name {
			out = append(out, TreeChange{Path: ch.From.Name, Mode: gitMode(ch.From.TreeEntry.Mode), ID: ch.From.TreeEntry.Hash.String(), Deleted: true})
		}
		if ch.To.Name != "" {
			out = append(out, TreeChange{Path: ch.To.Name, Mode: gitMode(ch.To.TreeEntry.Mode), ID: ch.To.TreeEntry.Hash.String()})
		}
	}
	return out, nil
}

// gitMode is a mode as git writes it in a tree ("100644", not filemode's "0100644").
func gitMode(m filemode.FileMode) string { return strconv.FormatUint(uint64(m), 8) }

// SignedObject is the commit object whose payload (the object less its gpgsig header) and
// signature a host reports: the signature goes in as git puts it, a gpgsig header at the end of
// the header, each of its lines after a space.
func SignedObject(payload, signature string) ([]byte, error) {
	i := strings.Index(payload, "\n\n")
	if i < 0 {
		return nil, errors.New("the signed payload is not a commit object: no blank line after its header")
	}
	var b strings.Builder
	b.WriteString(payload[:i+1])
	b.WriteString("gpgsig")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(signature, "\n")+"\n", "\n") {
		if line != "" {
			b.WriteString(" " + line)
		}
	}
	b.WriteString(payload[i+1:])
	return []byte(b.String()), nil
}

// storeCreated puts the commit m.created names in the repository, rebuilt or fetched, and reads
// it into m.commit.
func (r *Repo) storeCreated(ctx context.Context, m *madeElsewhere) error {
	c := m.created
	stored := false
	if c.SignedPayload != "" {
		if raw, err := SignedObject(c.SignedPayload, c.Signature); err == nil && gitobj.ID(plumbing.CommitObject, raw) == m.id {
			obj := &plumbing.MemoryObject{}
			obj.SetType(plumbing.CommitObject)
			obj.Write(raw)
			if _, err := r.writeObject(obj); err != nil {
				return fmt.Errorf("write commit %s: %w", m.id, err)
			}
			stored = true
		}
	}
	if !stored {
		if err := r.fetchBranch(ctx, m.target); err != nil {
			return err
		}
		c.Fetched = true
	}
	commit, err := object.GetCommit(r.repo.Storer, m.id)
	if err != nil {
		return fmt.Errorf("read commit %s: %w", m.id, err)
	}
	m.commit = commit
	return nil
}

// fetchBranch fetches the target's branch into its remote-tracking branch.
func (r *Repo) fetchBranch(ctx context.Context, t RemoteTarget) error {
	u, err := r.transportURL(t.RemoteURL, plumbing.NewBranchReferenceName(t.Branch))
	if err != nil {
		return err
	}
	auth, secrets, err := r.auth(u)
	if err != nil {
		return err
	}
	spec := config.RefSpec(fmt.Sprintf("+refs/heads/%s:refs/remotes/%s/%s", t.Branch, t.Remote, t.Branch))
	err = r.repo.FetchContext(ctx, &git.FetchOptions{RemoteName: t.Remote, RemoteURL: u, RefSpecs: []config.RefSpec{spec}, Auth: auth})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fmt.Errorf("fetch %s from %s: %s", t.Branch, t.Remote, redact.String(err.Error(), secrets))
	}
	return nil
}

// trackCreated records the commit as the remote's branch (refs/remotes/REMOTE/BRANCH), as a
// push would have, so that git status says the branch is up to date and a push has nothing to
// do. A fetch already did.
func (r *Repo) trackCreated(m *madeElsewhere, now time.Time) error {
	if m.created.Fetched {
		return nil
	}
	name := plumbing.NewRemoteReferenceName(m.target.Remote, m.target.Branch)
	var old plumbing.Hash
	if ref, err := r.repo.Storer.Reference(name); err == nil {
		old = ref.Hash()
	}
	u := refs.Update{Dirs: refs.Dirs{GitDir: r.GitDir, CommonDir: r.CommonDir}, Refs: r.repo.Storer, Name: name, Old: old, New: m.id}
	if r.cfg.Bool("core", "", "logallrefupdates", true) {
		u.Reflog = func() error {
			who := m.commit.Committer
			line := fmt.Sprintf("%s %s %s <%s> %d %s\tupdate by push\n", old, m.id, who.Name, who.Email, now.Unix(), now.Format("-0700"))
			return appendLine(filepath.Join(r.CommonDir, "logs", filepath.FromSlash(name.String())), line)
		}
	}
	if err := u.Apply(); err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	return nil
}
