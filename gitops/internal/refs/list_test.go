package refs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/autoagent/agent-hooks/gitops/internal/gittest"
)

// refLines are refs as "<id> <name>" lines (symbolic ones as "ref: <target> <name>"), sorted.
func refLines(refs []*plumbing.Reference) []string {
	var out []string
	for _, r := range refs {
		if r.Type() == plumbing.SymbolicReference {
			out = append(out, "ref: "+r.Target().String()+" "+r.Name().String())
			continue
		}
		out = append(out, r.Hash().String()+" "+r.Name().String())
	}
	slices.Sort(out)
	return out
}

// TestListIsWhatGitSees: List gives the refs git for-each-ref gives (and HEAD), loose and packed,
// a loose ref hiding its packed value, nested folders, annotated tags; as go-git's storage did
// for a repository it reads alike. A ref being written (its .lock) and a broken loose ref are
// left out, as git leaves them out, where go-git's storage failed or listed them.
func TestListIsWhatGitSees(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, map[string]string{"a.txt": "a\n"})
	gitDir := filepath.Join(dir, ".git")
	e.Git(t, dir, "branch", "packed-then-moved")
	e.Git(t, dir, "branch", "team/alice/topic")
	e.Git(t, dir, "tag", "-a", "-m", "one", "v1")
	e.Git(t, dir, "tag", "light")
	e.Git(t, dir, "update-ref", "refs/agent-hooks/sessions/session-1700000000000-abcdef", "HEAD")
	e.Git(t, dir, "pack-refs", "--all")
	gittest.WriteFiles(t, dir, map[string]string{"a.txt": "b\n"})
	e.Git(t, dir, "commit", "-q", "-am", "two")
	e.Git(t, dir, "branch", "-f", "packed-then-moved", "HEAD")
	e.Git(t, dir, "update-ref", "refs/agent-hooks/sessions/session-1700000001000-loose12", "HEAD")

	git := func() []string {
		lines := strings.Split(e.Git(t, dir, "for-each-ref", "--format=%(objectname) %(refname)"), "\n")
		lines = append(lines, "ref: "+e.Git(t, dir, "symbolic-ref", "HEAD")+" HEAD")
		slices.Sort(lines)
		return lines
	}
	want := git()
	got, err := List(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	if g := refLines(got); !slices.Equal(g, want) {
		t.Errorf("List =\n%s\nwant (git for-each-ref)\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	it, err := storage(gitDir).IterReferences()
	if err != nil {
		t.Fatal(err)
	}
	var before []*plumbing.Reference
	must(t, it.ForEach(func(r *plumbing.Reference) error { before = append(before, r); return nil }))
	if g, b := refLines(got), refLines(before); !slices.Equal(g, b) {
		t.Errorf("List =\n%s\ngo-git's storage listed\n%s", strings.Join(g, "\n"), strings.Join(b, "\n"))
	}

	// A push under way holds an empty lock; a loose ref file holds garbage.
	sessions := filepath.Join(gitDir, "refs", "agent-hooks", "sessions")
	must(t, os.WriteFile(filepath.Join(sessions, "session-1700000002000-pushing.lock"), nil, 0o644))
	must(t, os.WriteFile(filepath.Join(sessions, "session-1700000003000-broken"), []byte("not an id\n"), 0o644))
	got, err = List(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := refLines(got), git(); !slices.Equal(g, w) || !slices.Equal(g, want) {
		t.Errorf("with a lock and a broken ref, List =\n%s\nwant (git for-each-ref)\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}

	// A packed-refs file git would refuse is an error, naming the file and line.
	must(t, os.WriteFile(filepath.Join(gitDir, "packed-refs"), []byte("# pack-refs with: peeled\nnonsense\n"), 0o644))
	if _, err := List(gitDir); err == nil || !strings.Contains(err.Error(), "packed-refs:2:") {
		t.Errorf("a malformed packed-refs: err = %v", err)
	}
}
