package gitops

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestCommitManyUntrackedNames commits a work tree whose top directory holds many new files and
// directories, read while other directories are (the walk reads names into reused buffers and
// must copy those it keeps): the tree and the files listed are git add -A's.
func TestCommitManyUntrackedNames(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"kept.txt": "kept\n"})
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("top-level-file-%03d.txt", i)] = fmt.Sprintf("file %d\n", i)
		if i%10 == 0 {
			for j := range 30 {
				files[fmt.Sprintf("top-level-dir-%03d/nested-%02d/f%d", i, j%3, j)] = fmt.Sprintf("%d %d\n", i, j)
			}
		}
	}
	writeFiles(t, dir, files)
	ref := copyTree(t, dir)
	e.git(t, ref, "add", "-A")
	e.git(t, ref, "commit", "-q", "-m", "by git")

	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "by gitops"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.git(t, dir, "rev-parse", "HEAD^{tree}"), e.git(t, ref, "rev-parse", "HEAD^{tree}"); got != want {
		t.Errorf("tree = %s, git add -A made %s", got, want)
	}
	want := slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield("A\t" + p) {
				return
			}
		}
	})
	if got := filesString(res.Files); got != strings.Join(want, "\n") {
		t.Errorf("files (%d) differ from the %d added", len(res.Files), len(want))
	}
	e.fsck(t, dir)
	e.wantClean(t, dir)
}

// TestReadTreeEntries reads trees of every entry mode as go-git's decoder does.
func TestReadTreeEntries(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n", "run.sh": "#!/bin/sh\n", "sub/b": "b\n", "sub-c": "c\n", "sub.d/e": "e\n"})
	e.git(t, dir, "update-index", "--chmod=+x", "run.sh")
	e.git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+e.git(t, dir, "rev-parse", "HEAD")+",module")
	e.git(t, dir, "commit", "-q", "-m", "modes")
	r := openRepo(t, e, dir)
	for _, rev := range []string{"HEAD^{tree}", "HEAD:sub", "HEAD~1^{tree}"} {
		h := plumbing.NewHash(e.git(t, dir, "rev-parse", rev))
		got, err := r.readTreeEntries(h)
		if err != nil {
			t.Fatalf("%s: %v", rev, err)
		}
		tree, err := r.readTree(h)
		if err != nil {
			t.Fatal(err)
		}
		var want []treeEntry
		for _, te := range tree.Entries {
			want = append(want, treeEntry{name: te.Name, mode: te.Mode, hash: te.Hash})
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: entries\n%v\nwant (object.Tree)\n%v", rev, got, want)
		}
	}
	if _, err := r.readTreeEntries(plumbing.NewHash(e.git(t, dir, "rev-parse", "HEAD:a.txt"))); err == nil {
		t.Error("a blob read as a tree")
	}
}

// TestStagedIndexLetGoOnceStored: once the staged index is stored, the commit being made holds
// neither its entries nor its trees' (the pre-commit hook's index is read meanwhile: holding
// both doubled a commit's peak memory with a pre-commit hook), and what it commits is unchanged.
func TestStagedIndexLetGoOnceStored(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"})
	writeFiles(t, dir, map[string]string{"sub/c.txt": "c\n"})
	r := openRepo(t, e, dir)
	res := &CommitResult{}
	p, err := r.stageForCommit(context.Background(), CommitOptions{Message: "m"}, res, newSecretCheck(nil))
	if err != nil || p == nil {
		t.Fatalf("stageForCommit = %v, %v", p, err)
	}
	if p.idx != nil || p.trees == nil || len(p.trees.Entries) > 0 || len(p.trees.Nodes) > 0 || len(p.trees.Dirs) > 0 {
		t.Errorf("the commit still holds its staged index once stored (idx %v, trees %+v)", p.idx != nil, p.trees)
	}
	id, err := r.writeCommit(p, "m\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.git(t, dir, "rev-parse", id.String()+"^{tree}"), e.git(t, dir, "write-tree"); got != want {
		t.Errorf("tree %s, the index's is %s", got, want)
	}
	if got := filesString(p.files); got != "A\tsub/c.txt" {
		t.Errorf("files = %q", got)
	}
}
