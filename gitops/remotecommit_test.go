package gitops

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
)

// TestSignedObjectIsGitsObject: a commit git signed (gpgsig header, a signature with an empty
// line and no final newline), less its gpgsig header, with the signature put back by
// SignedObject, is the very object git wrote: same bytes, same id.
func TestSignedObjectIsGitsObject(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	tree := e.git(t, dir, "rev-parse", "HEAD^{tree}")
	head := e.git(t, dir, "rev-parse", "HEAD")
	sig := "-----BEGIN PGP SIGNATURE-----\n\nwsBcBAABCAAQBQJl\n=abcd\n-----END PGP SIGNATURE-----"
	header := fmt.Sprintf("tree %s\nparent %s\nauthor A <a@example.com> 1700000000 +0100\ncommitter GitHub <noreply@github.com> 1700000000 +0000\n", tree, head)
	object := header + "gpgsig " + strings.ReplaceAll(sig, "\n", "\n ") + "\n\nsubject\n\nbody\n"
	cmd := exec.Command("git", "hash-object", "-t", "commit", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, e.environ(), strings.NewReader(object)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(string(out))
	if raw := e.git(t, dir, "cat-file", "commit", id); !strings.Contains(raw, "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n wsBc") {
		t.Fatalf("git did not keep the signature as written:\n%s", raw)
	}
	payload := header + "\nsubject\n\nbody\n"
	for _, s := range []string{sig, sig + "\n"} {
		got, err := SignedObject(payload, s)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != object || gitobj.ID(plumbing.CommitObject, got).String() != id {
			t.Errorf("SignedObject:\n%q\nwant git's object %s:\n%q", got, id, object)
		}
	}
	if _, err := SignedObject("no header end", sig); err == nil {
		t.Error("a payload without a blank line was taken for a commit")
	}
}

// creator is a Creator for tests: make builds the commit in the remote with the git CLI and
// returns what a host would report of it.
type creator struct {
	prepared []RemoteTarget
	staged   *StagedCommit
	make     func(s *StagedCommit) (*CreatedCommit, error)
}

func (c *creator) Prepare(_ context.Context, t RemoteTarget) error {
	c.prepared = append(c.prepared, t)
	return nil
}

func (c *creator) Create(_ context.Context, s *StagedCommit) (*CreatedCommit, error) {
	c.staged = s
	return c.make(s)
}

// TestCommitElsewhere: the Creator gets the staged commit (tree, parent, message, the changes
// with their modes, the remote the branch pushes to); a commit it reports without a signed
// payload is fetched from the remote, and one it made of another tree leaves the branch alone.
func TestCommitElsewhere(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "up")
	e.git(t, dir, "config", "branch.main.remote", "up")
	writeFiles(t, dir, map[string]string{"b.txt": "b\n"})
	e.git(t, dir, "rm", "-q", "a.txt")
	e.git(t, dir, "push", "-q", "up", "main")
	parent := e.git(t, dir, "rev-parse", "HEAD")

	wrongTree := false
	c := &creator{make: func(s *StagedCommit) (*CreatedCommit, error) {
		// As a host would: the changed blobs uploaded, the tree built on the base tree from the
		// changes alone.
		index := filepath.Join(t.TempDir(), "index")
		run := func(stdin []byte, args ...string) string {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = bare, append(e.environ(), "GIT_INDEX_FILE="+index, "GIT_AUTHOR_NAME=Host", "GIT_AUTHOR_EMAIL=host@example.com", "GIT_COMMITTER_NAME=Host", "GIT_COMMITTER_EMAIL=host@example.com")
			cmd.Stdin = bytes.NewReader(stdin)
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("git %v: %v", args, err)
			}
			return strings.TrimSpace(string(out))
		}
		run(nil, "read-tree", s.BaseTree)
		var info strings.Builder
		for _, ch := range s.Changes {
			if ch.Deleted {
				fmt.Fprintf(&info, "0 %s\t%s\n", plumbing.ZeroHash, ch.Path)
				continue
			}
			data, err := s.ReadBlob(ch.ID)
			if err != nil {
				return nil, err
			}
			run(data, "hash-object", "-w", "--stdin")
			fmt.Fprintf(&info, "%s %s\t%s\n", ch.Mode, ch.ID, ch.Path)
		}
		run([]byte(info.String()), "update-index", "--index-info")
		tree := run(nil, "write-tree")
		if tree != s.Tree {
			t.Errorf("the changes rebuild the tree %s, not the staged %s", tree, s.Tree)
		}
		if wrongTree {
			tree = s.BaseTree
		}
		id := run(nil, "commit-tree", tree, "-p", s.Parent, "-m", strings.TrimSpace(s.Message))
		e.git(t, bare, "update-ref", "refs/heads/main", id)
		return &CreatedCommit{ID: id, Reason: "unsigned"}, nil
	}}
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "add b", Create: c})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.prepared) != 1 || c.prepared[0] != (RemoteTarget{Remote: "up", RemoteURL: bare, Branch: "main", Parent: parent}) {
		t.Errorf("prepared %+v", c.prepared)
	}
	s := c.staged
	want := []TreeChange{{Path: "a.txt", Mode: "100644", ID: e.git(t, dir, "rev-parse", parent+":a.txt"), Deleted: true},
		{Path: "b.txt", Mode: "100644", ID: e.git(t, dir, "rev-parse", "HEAD:b.txt")}}
	if fmt.Sprint(s.Changes) != fmt.Sprint(want) || s.Message != "add b\n" || s.Author != nil || s.Committer != nil {
		t.Errorf("staged %+v, want the changes %+v", s, want)
	}
	head := e.git(t, dir, "rev-parse", "HEAD")
	if res.Hash != head || res.Created == nil || !res.Created.Fetched || head != e.git(t, bare, "rev-parse", "main") {
		t.Fatalf("result %+v, HEAD %s: want the remote's commit, fetched", res, head)
	}
	if got := e.git(t, dir, "log", "-1", "--format=%an %s"); got != "Host add b" {
		t.Errorf("HEAD is %q, want the host's commit", got)
	}
	e.wantClean(t, dir)
	if got := e.git(t, dir, "rev-parse", "up/main"); got != head {
		t.Errorf("up/main %s, want %s", got, head)
	}

	wrongTree = true
	writeFiles(t, dir, map[string]string{"c.txt": "c\n"})
	_, err = openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "add c", Create: c})
	if err == nil || !strings.Contains(err.Error(), "not of the staged tree") {
		t.Fatalf("a commit of another tree: %v", err)
	}
	if got := e.git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s", got)
	}
}

// TestCommitElsewhereNeedsABranch: a detached HEAD or a branch without commits is refused
// before the Creator is asked anything.
func TestCommitElsewhereNeedsABranch(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	detached := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.git(t, detached, "remote", "add", "origin", "https://github.com/o/r.git")
	e.git(t, detached, "checkout", "-q", "--detach")
	unborn := t.TempDir()
	e.git(t, "", "init", "-q", "-b", "main", unborn)
	for dir, want := range map[string]string{detached: "HEAD is detached", unborn: "the branch main has no commit yet"} {
		writeFiles(t, dir, map[string]string{"x.txt": "x\n"})
		c := &creator{}
		_, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "x", Create: c})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "nothing was committed") || len(c.prepared) != 0 {
			t.Errorf("%s: %v (prepared %v), want %q", dir, err, c.prepared, want)
		}
	}
}
