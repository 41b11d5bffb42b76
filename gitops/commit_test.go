package gitops

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitTreeEqualsGitAddAll changes a work tree in every way staging has to notice and checks
// that the commit has exactly the tree `git add -A && git commit` makes of a copy.
func TestCommitTreeEqualsGitAddAll(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{
		".gitignore":             "*.log\nbuild/\n!keep.log\n",
		"src/.gitignore":         "generated/\n*.tmp\n",
		"src/a.go":               "package a\n",
		"src/b.go":               "package b\n",
		"src/old.go":             "package old\n",
		"docs/readme.md":         "docs\n",
		"rename/from.txt":        "same content moves\n",
		"script.sh":              "echo hi\n",
		"filethendir":            "a file\n",
		"dirthenfile/inner.txt":  "inner\n",
		"vendor/tracked.log":     "tracked despite *.log\n",
		"deep/a/b/c/d/leaf.txt":  "leaf\n",
		"deep/a/b/c/d/leaf2.txt": "leaf2\n",
	})
	// Ignore rules from every level: core.excludesFile (the XDG default), info/exclude, nested
	// .gitignore files, negation.
	writeFiles(t, e.home, map[string]string{".config/git/ignore": "*.globalignored\n"})
	writeFiles(t, dir, map[string]string{".git/info/exclude": "secret.txt\nlocalonly/\n"})

	writeFiles(t, dir, map[string]string{
		"src/a.go":               "package a // changed\n",
		"new/file.txt":           "new\n",
		"new/nested/deeper.txt":  "deeper\n",
		"debug.log":              "ignored\n",
		"keep.log":               "re-included by !keep.log\n",
		"build/out.bin":          "ignored dir\n",
		"src/generated/x.go":     "ignored by src/.gitignore\n",
		"src/scratch.tmp":        "ignored\n",
		"top.tmp":                "not ignored: the pattern lives in src/.gitignore\n",
		"secret.txt":             "ignored by info/exclude\n",
		"localonly/a.txt":        "ignored by info/exclude\n",
		"x.globalignored":        "ignored by core.excludesFile\n",
		"vendor/tracked.log":     "tracked file in an ignored pattern, modified\n",
		"vendor/untracked.log":   "ignored\n",
		"deep/a/b/c/d/leaf2.txt": "leaf2 changed\n",
		"rename/to.txt":          "same content moves\n",
	})
	must(t, os.Remove(filepath.Join(dir, "src/old.go")))
	must(t, os.Remove(filepath.Join(dir, "rename/from.txt")))
	must(t, os.Chmod(filepath.Join(dir, "script.sh"), 0o755))
	must(t, os.Symlink("src/a.go", filepath.Join(dir, "link")))
	must(t, os.MkdirAll(filepath.Join(dir, "emptydir"), 0o755))
	must(t, os.Remove(filepath.Join(dir, "filethendir")))
	writeFiles(t, dir, map[string]string{"filethendir/now.txt": "now a dir\n"})
	must(t, os.RemoveAll(filepath.Join(dir, "dirthenfile")))
	writeFiles(t, dir, map[string]string{"dirthenfile": "now a file\n"})

	// Marked unchanged: git add -A does not look at it, so neither do we.
	e.git(t, dir, "update-index", "--assume-unchanged", "docs/readme.md")
	writeFiles(t, dir, map[string]string{"docs/readme.md": "changed but assumed unchanged\n"})

	ref := copyTree(t, dir)
	e.git(t, ref, "add", "-A")
	e.git(t, ref, "commit", "-q", "-m", "by git")

	r := openRepo(t, e, dir)
	res, err := r.Commit(context.Background(), CommitOptions{Message: "by gitops"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changes {
		t.Fatal("Changes = false, want a commit")
	}
	if got, want := e.git(t, dir, "rev-parse", "HEAD^{tree}"), e.git(t, ref, "rev-parse", "HEAD^{tree}"); got != want {
		t.Errorf("tree = %s, git add -A made %s\nours:\n%s\ngit's:\n%s", got, want,
			e.git(t, dir, "ls-tree", "-r", "HEAD"), e.git(t, ref, "ls-tree", "-r", "HEAD"))
	}
	if got := e.git(t, dir, "rev-parse", "HEAD"); got != res.Hash {
		t.Errorf("HEAD = %s, result says %s", got, res.Hash)
	}
	e.fsck(t, dir)
	e.wantClean(t, dir)
	if d := e.git(t, dir, "diff", "--cached", "--stat"); d != "" {
		t.Errorf("index differs from HEAD:\n%s", d)
	}
	if got, want := filesString(res.Files), e.git(t, ref, "diff-tree", "-r", "--no-renames", "--name-status", "HEAD~", "HEAD"); got != want {
		t.Errorf("Files:\n%s\nwant (git diff-tree):\n%s", got, want)
	}
	if log := e.git(t, dir, "reflog", "-1", "--format=%gs"); log != "commit: by gitops" {
		t.Errorf("reflog = %q", log)
	}

	// git works on after us: our index is one it trusts and can update.
	writeFiles(t, dir, map[string]string{"after.txt": "after\n"})
	e.git(t, dir, "add", "-A")
	e.git(t, dir, "commit", "-q", "-m", "git after gitops")
	e.fsck(t, dir)
}

func filesString(fs []FileChange) string {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.Status + "\t" + f.Path)
	}
	return b.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCommitIgnorePatternsMatchGit stages a tree full of files that gitignore patterns of every
// kind may or may not match, and checks the tree against git's.
func TestCommitIgnorePatternsMatchGit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"README": "r\n"})
	files := map[string]string{
		".gitignore": `/root-only.txt
a/**/b
**/deep
*.log
!important.log
dir/*.tmp
\#hash
[abc].txt
?.q
logs/
!logs/keep.txt
sub/
*.swp
!/sub2/
`,
		"nested/.gitignore": "*.txt\n!keep.txt\n/anchored\n",
	}
	for _, p := range []string{
		"root-only.txt", "x/root-only.txt", "a/b", "a/x/y/b", "a/x/b/c", "q/deep", "deep", "r/deep/z",
		"x.log", "important.log", "d/important.log", "dir/a.tmp", "dir/sub/a.tmp", "other/dir/a.tmp",
		"#hash", "a.txt", "d.txt", "x/b.txt", "1.q", "12.q", "logs/keep.txt", "logs/a", "x/logs/y",
		"sub/a", "x/sub/b", "f.swp", "sub2/z", "nested/a.txt", "nested/keep.txt", "nested/anchored",
		"nested/deeper/anchored", "nested/deeper/b.txt", "nested/c.md", "plain.md",
	} {
		files[p] = p + "\n"
	}
	writeFiles(t, dir, files)
	ref := copyTree(t, dir)
	e.git(t, ref, "add", "-A")
	e.git(t, ref, "commit", "-q", "-m", "by git")
	if _, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "by gitops"}); err != nil {
		t.Fatal(err)
	}
	if got, want := e.git(t, dir, "ls-tree", "-r", "--name-only", "HEAD"), e.git(t, ref, "ls-tree", "-r", "--name-only", "HEAD"); got != want {
		t.Errorf("committed:\n%s\ngit add -A committed:\n%s", got, want)
	}
}

// TestCommitCoreExcludesFile honours core.excludesFile from the global config (with ~), which
// replaces the XDG default.
func TestCommitCoreExcludesFile(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	writeFiles(t, e.home, map[string]string{
		".gitconfig":         "[core]\n\texcludesFile = ~/.gitignore_global\n",
		".gitignore_global":  "*.mine\n",
		".config/git/ignore": "*.xdg\n", // not read: core.excludesFile is set
	})
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	writeFiles(t, dir, map[string]string{"x.mine": "ignored\n", "y.xdg": "kept\n", "z.txt": "kept\n"})
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if got := filesString(res.Files); got != "A\ty.xdg\nA\tz.txt" {
		t.Errorf("committed %q", got)
	}
	if got := e.git(t, dir, "status", "--porcelain", "--ignored"); got != "!! x.mine" {
		t.Errorf("git status --ignored = %q, want only x.mine ignored", got)
	}
}

// TestCommitIgnoreRulesMatchThePathItself checks ignore rules that go-git's matcher applies to a
// path's parent directories, or to a directory itself for a trailing "/**", where git matches the
// path alone: the whitelist idiom (`*`, `!*/`), `dir/**` with a re-included file, and negations
// naming a directory.
func TestCommitIgnoreRulesMatchThePathItself(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"README": "r\n"})
	writeFiles(t, dir, map[string]string{
		"white/.gitignore": "*\n!*/\n!*.go\n!.gitignore\n",
		"white/a.go":       "a\n", "white/a.txt": "ignored\n", "white/src/b.go": "b\n", "white/src/c.txt": "ignored\n",
		"stars/.gitignore": "foo/**\n!foo/bar\n",
		"stars/foo/bar":    "re-included\n", "stars/foo/baz": "ignored\n",
		"neg/.gitignore":      "*.log\n!important\n!doc/keep\n",
		"neg/important/x.log": "ignored: the negation names the directory, not the file\n",
		"neg/doc/keep/y.log":  "ignored too\n", "neg/important/z.txt": "kept\n",
	})
	ref := copyTree(t, dir)
	e.git(t, ref, "add", "-A")
	e.git(t, ref, "commit", "-q", "-m", "by git")
	if _, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "by gitops"}); err != nil {
		t.Fatal(err)
	}
	if got, want := e.git(t, dir, "ls-tree", "-r", "--name-only", "HEAD"), e.git(t, ref, "ls-tree", "-r", "--name-only", "HEAD"); got != want {
		t.Errorf("committed:\n%s\ngit add -A committed:\n%s", got, want)
	}
	e.wantClean(t, dir)
}
