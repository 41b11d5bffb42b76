package ignore

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/autoagent/agent-hooks/gitops/internal/gittest"
)

// TestIgnoredIsCheckIgnore: whether a path is ignored, with the rules of every .gitignore from the
// top down and a directory's exclusion covering what is below it (the walk of a work tree prunes
// excluded directories), is git check-ignore's verdict, for patterns of every kind.
func TestIgnoredIsCheckIgnore(t *testing.T) {
	t.Parallel()
	e := gittest.New(t)
	dir := e.Repo(t, nil)
	files := map[string]string{
		".gitignore": `/root-only.txt
a/**/b
**/deep
*.log
!important.log
dir/*.tmp
\#hash
[abc].txt
[!x-z].q
?.q
logs/
!logs/keep.txt
sub/
*.swp
!/sub2/
trailing\ 
foo/**
!foo/bar
white/*
!white/*/
!white/*.go
`,
		"nested/.gitignore":        "*.txt\n!keep.txt\n/anchored\nd*/\n",
		"nested/deeper/.gitignore": "!*.txt\n",
	}
	paths := []string{
		"root-only.txt", "x/root-only.txt", "a/b", "a/x/y/b", "a/x/b/c", "q/deep", "deep", "r/deep/z",
		"x.log", "important.log", "d/important.log", "dir/a.tmp", "dir/sub/a.tmp", "other/dir/a.tmp",
		"#hash", "a.txt", "d.txt", "x/b.txt", "1.q", "12.q", "w.q", "y.q", "logs/keep.txt", "logs/a", "x/logs/y",
		"sub/a", "x/sub/b", "f.swp", "sub2/z", "trailing ", "foo/bar", "foo/baz", "foo/sub/bar",
		"white/a.go", "white/a.txt", "white/src/b.go", "white/src/c.txt",
		"nested/a.txt", "nested/keep.txt", "nested/anchored", "nested/deeper/anchored", "nested/deeper/b.txt",
		"nested/dx/f.md", "nested/c.md", "plain.md",
	}
	for _, p := range paths {
		files[p] = p
	}
	gittest.WriteFiles(t, dir, files)
	out := e.Git(t, dir, append([]string{"check-ignore", "--no-index", "-v", "-n", "--"}, paths...)...)
	want := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		src, p, _ := strings.Cut(line, "\t")
		pattern := src[strings.LastIndex(src, ":")+1:]
		want[p] = pattern != "" && !strings.HasPrefix(pattern, "!")
	}

	// patterns is the rule list that applies in a directory: every .gitignore from the top down.
	patterns := func(d string) []gitignore.Pattern {
		var ps []gitignore.Pattern
		var parts []string
		if d != "" {
			parts = strings.Split(d, "/")
		}
		for i := 0; i <= len(parts); i++ {
			f, err := ReadFile(filepath.Join(dir, filepath.FromSlash(strings.Join(parts[:i], "/")), ".gitignore"), parts[:i:i])
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, f...)
		}
		return ps
	}
	n := 0
	for _, p := range paths {
		if want[p] {
			n++
		}
	}
	if n < 10 || len(paths)-n < 10 {
		t.Fatalf("git ignores %d of %d paths: the cases are not both kinds", n, len(paths))
	}
	for _, p := range paths {
		parts := strings.Split(p, "/")
		got := false
		for i := 1; i < len(parts) && !got; i++ { // an excluded directory above
			got = Ignored(patterns(strings.Join(parts[:i-1], "/")), strings.Join(parts[:i], "/"), true)
		}
		if !got {
			got = Ignored(patterns(strings.Join(parts[:len(parts)-1], "/")), p, false)
		}
		if got != want[p] {
			t.Errorf("%q: ignored %v, git check-ignore says %v", p, got, want[p])
		}
	}
}
