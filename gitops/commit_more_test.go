package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/gitops/internal/gitindex"
)

func TestCommitNothingToCommit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n", ".gitignore": "*.log\n"})
	before := e.git(t, dir, "rev-parse", "HEAD")
	// New stat data with the same content, and an ignored file, are not changes.
	later := time.Now().Add(time.Hour)
	must(t, os.Chtimes(filepath.Join(dir, "a.txt"), later, later))
	writeFiles(t, dir, map[string]string{"x.log": "ignored\n"})

	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "nothing"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changes || res.Hash != "" {
		t.Errorf("result = %+v, want no changes", res)
	}
	if got := e.git(t, dir, "rev-parse", "HEAD"); got != before {
		t.Errorf("HEAD moved to %s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "index.lock")); !os.IsNotExist(err) {
		t.Errorf("index.lock left behind: %v", err)
	}

	res, err = openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "empty on purpose", AllowEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changes || e.git(t, dir, "rev-parse", "HEAD~") != before {
		t.Errorf("allowEmpty: result = %+v, want a commit on top of %s", res, before)
	}
	if a, b := e.git(t, dir, "rev-parse", "HEAD^{tree}"), e.git(t, dir, "rev-parse", "HEAD~^{tree}"); a != b {
		t.Errorf("empty commit changed the tree")
	}
	e.fsck(t, dir)
}

func TestCommitInitialCommitOnUnbornBranch(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := filepath.Join(t.TempDir(), "fresh")
	e.git(t, "", "init", "-q", "-b", "trunk", dir)
	e.git(t, dir, "config", "user.name", "Repo User")
	e.git(t, dir, "config", "user.email", "repo@example.com")
	writeFiles(t, dir, map[string]string{"README.md": "# hi\n", "src/main.go": "package main\n"})
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "first\n\n\n  body  \n\n"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != "trunk" || res.Parent != "" || len(res.Files) != 2 {
		t.Errorf("result = %+v", res)
	}
	if got := e.git(t, dir, "log", "--format=%B"); got != "first\n\n  body" {
		t.Errorf("message = %q", got)
	}
	if got := e.git(t, dir, "reflog", "-1", "--format=%gs", "trunk"); got != "commit (initial): first" {
		t.Errorf("reflog = %q", got)
	}
	e.fsck(t, dir)
	e.wantClean(t, dir)
}

// TestCommitRacyTimestamp changes a file without changing its size or mtime, the mtime being the
// index's own: only the racy-timestamp rule can notice it.
func TestCommitRacyTimestamp(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "aaaa\n"})
	e.git(t, dir, "config", "core.trustctime", "false")
	idx, err := os.Stat(filepath.Join(dir, ".git", "index"))
	must(t, err)
	f, err := os.OpenFile(filepath.Join(dir, "a.txt"), os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt([]byte("bbbb\n"), 0)
	must(t, err)
	must(t, f.Close())
	must(t, os.Chtimes(filepath.Join(dir, "a.txt"), idx.ModTime(), idx.ModTime()))

	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "racy"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changes {
		t.Fatal("the racily-clean change was missed")
	}
	if got := e.git(t, dir, "show", "HEAD:a.txt"); got != "bbbb" {
		t.Errorf("committed a.txt = %q", got)
	}
	e.fsck(t, dir)
}

func TestCommitSelection(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"src/a.go": "a\n", "src/gone.go": "gone\n", "docs/x.md": "x\n", "other.txt": "o\n"})
	writeFiles(t, dir, map[string]string{"src/a.go": "a2\n", "src/new/b.go": "b\n", "docs/x.md": "x2\n", "other.txt": "o2\n", "src/a_test.txt": "t\n"})
	must(t, os.Remove(filepath.Join(dir, "src/gone.go")))

	for _, tc := range []struct {
		name string
		sel  Selection
		want string
	}{
		{"globs", Selection{Globs: []string{"src/**/*.go"}}, "M\tsrc/a.go\nD\tsrc/gone.go\nA\tsrc/new/b.go"},
		{"paths", Selection{Paths: []string{"docs/x.md", "src/new"}}, "M\tdocs/x.md\nA\tsrc/new/b.go"},
		{"nothing", Selection{Paths: []string{}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := copyTree(t, dir)
			res, err := openRepo(t, e, d).Commit(context.Background(), CommitOptions{Message: tc.name, Selection: tc.sel})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if res.Changes {
				got = e.git(t, d, "diff-tree", "-r", "--name-status", "--no-renames", "HEAD~", "HEAD")
			}
			if got != tc.want {
				t.Errorf("committed:\n%s\nwant:\n%s", got, tc.want)
			}
			e.fsck(t, d)
		})
	}
}

func writeHook(t *testing.T, dir, name, script string) {
	t.Helper()
	p := filepath.Join(dir, name)
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755))
}

func TestCommitRunsRepositoryHooks(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	before := e.git(t, dir, "rev-parse", "HEAD")
	writeFiles(t, dir, map[string]string{"a.txt": "changed\n"})

	// A failing pre-commit stops the commit and its output is shown.
	writeHook(t, dir, ".git/hooks/pre-commit", "echo 'lint: 3 problems' >&2\nexit 1\n")
	var out strings.Builder
	_, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "m", Out: &out})
	var he *HookError
	if !errors.As(err, &he) || he.Hook != "pre-commit" || he.ExitCode != 1 || !strings.Contains(err.Error(), "lint: 3 problems") {
		t.Fatalf("err = %v, want the pre-commit failure with its output", err)
	}
	if !strings.Contains(out.String(), "lint: 3 problems") {
		t.Errorf("hook output not streamed: %q", out.String())
	}
	if got := e.git(t, dir, "rev-parse", "HEAD"); got != before {
		t.Errorf("HEAD moved despite the failing hook")
	}

	// noVerify skips it.
	d2 := copyTree(t, dir)
	if res, err := openRepo(t, e, d2).Commit(context.Background(), CommitOptions{Message: "m", NoVerify: true}); err != nil || !res.Changes {
		t.Fatalf("noVerify: %+v, %v", res, err)
	}

	// A pre-commit that stages another file (as lint-staged does), and a commit-msg hook that
	// rewrites the message; the hooks see the staged index through GIT_INDEX_FILE.
	writeHook(t, dir, ".git/hooks/pre-commit", `git diff --cached --name-only > staged-by-us.txt
echo generated > gen.txt
git add gen.txt
`)
	writeHook(t, dir, ".git/hooks/commit-msg", `printf '%s\n\nSigned-off-by: Hook <hook@example.com>\n' "$(cat "$1")" > "$1"`)
	writeHook(t, dir, ".git/hooks/post-commit", `git rev-parse HEAD > post-commit-saw.txt`)
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "with hooks"})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.git(t, dir, "log", "-1", "--format=%B"); got != "with hooks\n\nSigned-off-by: Hook <hook@example.com>" {
		t.Errorf("message = %q", got)
	}
	if got := e.git(t, dir, "show", "--name-only", "--format=", "HEAD"); got != "a.txt\ngen.txt" {
		t.Errorf("committed files = %q, want a.txt and the hook's gen.txt", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "staged-by-us.txt")); strings.TrimSpace(string(b)) != "a.txt" {
		t.Errorf("pre-commit saw staged %q, want a.txt", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "post-commit-saw.txt")); strings.TrimSpace(string(b)) != res.Hash {
		t.Errorf("post-commit saw HEAD %q, want %s", b, res.Hash)
	}
	e.fsck(t, dir)
}

func TestCommitHonoursCoreHooksPath(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.git(t, dir, "config", "core.hooksPath", ".githooks")
	writeHook(t, dir, ".git/hooks/pre-commit", "exit 1\n") // not used: hooksPath wins
	writeHook(t, dir, ".githooks/pre-commit", "echo from hooksPath; exit 3\n")
	writeFiles(t, dir, map[string]string{"a.txt": "b\n"})
	_, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "m"})
	var he *HookError
	if !errors.As(err, &he) || he.ExitCode != 3 || !strings.Contains(he.Output, "from hooksPath") {
		t.Fatalf("err = %v, want the core.hooksPath hook's exit 3", err)
	}
	// A hook file that is not executable is ignored, with a hint.
	must(t, os.Chmod(filepath.Join(dir, ".githooks/pre-commit"), 0o644))
	var out strings.Builder
	if _, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "m", Out: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "not set as executable") {
		t.Errorf("no hint for the non-executable hook: %q", out.String())
	}
}

func TestCommitIdentity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		config         bool // user.name/email in the repository's config
		vars           map[string]string
		opts           CommitOptions
		author, commit string // "Name <email>"
		wantErr        string
	}{
		{name: "git config", config: true, author: "Repo User <repo@example.com>", commit: "Repo User <repo@example.com>"},
		{name: "hook config wins", config: true, opts: CommitOptions{Author: Person{"Hook Author", "hook@example.com"}},
			author: "Hook Author <hook@example.com>", commit: "Repo User <repo@example.com>"},
		{name: "hook committer", config: true, opts: CommitOptions{Committer: Person{"C", "c@example.com"}},
			author: "Repo User <repo@example.com>", commit: "C <c@example.com>"},
		{name: "environment", vars: map[string]string{"GIT_AUTHOR_NAME": "Env A", "GIT_AUTHOR_EMAIL": "a@env", "GIT_COMMITTER_NAME": "Env C", "GIT_COMMITTER_EMAIL": "c@env"},
			author: "Env A <a@env>", commit: "Env C <c@env>"},
		{name: "actions bot", vars: map[string]string{"GITHUB_ACTIONS": "true"},
			author: "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>", commit: "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"},
		{name: "hook author is the committer of last resort", opts: CommitOptions{Author: Person{"Only", "only@example.com"}},
			author: "Only <only@example.com>", commit: "Only <only@example.com>"},
		{name: "nobody", wantErr: "no author identity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
			if !tc.config {
				e.unsetIdentity(t, dir)
			}
			for k, v := range tc.vars {
				e.vars[k] = v
			}
			writeFiles(t, dir, map[string]string{"a.txt": "b\n"})
			o := tc.opts
			o.Message = "m"
			_, err := openRepo(t, e, dir).Commit(context.Background(), o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := e.git(t, dir, "log", "-1", "--format=%an <%ae>"); got != tc.author {
				t.Errorf("author = %q, want %q", got, tc.author)
			}
			if got := e.git(t, dir, "log", "-1", "--format=%cn <%ce>"); got != tc.commit {
				t.Errorf("committer = %q, want %q", got, tc.commit)
			}
		})
	}
}

func TestCommitDates(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.vars["GIT_AUTHOR_DATE"] = "@1700000000 +0200"
	e.vars["GIT_COMMITTER_DATE"] = "2024-02-03T04:05:06Z"
	writeFiles(t, dir, map[string]string{"a.txt": "b\n"})
	if _, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "m"}); err != nil {
		t.Fatal(err)
	}
	if got := e.git(t, dir, "log", "-1", "--format=%ad|%cd", "--date=raw"); got != "1700000000 +0200|1706933106 +0000" {
		t.Errorf("dates = %q", got)
	}
}

// TestCommitSubmodules stages a submodule's new commit and an embedded repository as gitlinks,
// like git add -A.
func TestCommitSubmodules(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	sub := e.newRepo(t, map[string]string{"lib.go": "package lib\n"})
	dir := e.newRepo(t, map[string]string{"main.go": "package main\n"})
	e.git(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "lib")
	e.git(t, dir, "commit", "-q", "-m", "add lib")
	// The submodule moves on; an unrelated repository appears inside the work tree.
	libDir := filepath.Join(dir, "lib")
	writeFiles(t, libDir, map[string]string{"lib.go": "package lib // v2\n"})
	e.git(t, libDir, "-c", "user.name=L", "-c", "user.email=l@example.com", "commit", "-q", "-am", "v2")
	emb := filepath.Join(dir, "vendor", "embedded")
	e.git(t, "", "init", "-q", "-b", "main", emb)
	writeFiles(t, emb, map[string]string{"x": "x\n"})
	e.git(t, emb, "add", "-A")
	e.git(t, emb, "-c", "user.name=L", "-c", "user.email=l@example.com", "commit", "-q", "-m", "x")

	ref := copyTree(t, dir)
	e.git(t, ref, "add", "-A")
	e.git(t, ref, "commit", "-q", "-m", "by git")
	if _, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "by gitops"}); err != nil {
		t.Fatal(err)
	}
	if got, want := e.git(t, dir, "ls-tree", "-r", "HEAD"), e.git(t, ref, "ls-tree", "-r", "HEAD"); got != want {
		t.Errorf("tree:\n%s\ngit's:\n%s", got, want)
	}
	if got := e.git(t, dir, "ls-tree", "HEAD", "lib"); !strings.Contains(got, "160000 commit "+e.git(t, libDir, "rev-parse", "HEAD")) {
		t.Errorf("lib gitlink = %q", got)
	}
	e.fsck(t, dir)
}

// TestCommitInLinkedWorktree commits from a `git worktree add` checkout, whose .git is a file and
// whose index and HEAD live apart from the shared objects and refs.
func TestCommitInLinkedWorktree(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	wt := filepath.Join(t.TempDir(), "wt")
	e.git(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	writeHook(t, dir, ".git/hooks/commit-msg", `echo "Worktree: yes" >> "$1"`)
	writeFiles(t, wt, map[string]string{"a.txt": "changed in the worktree\n", "new.txt": "n\n"})
	res, err := openRepo(t, e, filepath.Join(wt)).Commit(context.Background(), CommitOptions{Message: "from the worktree"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != "feature" {
		t.Errorf("branch = %q", res.Branch)
	}
	e.wantRef(t, dir, "feature", res.Hash)
	if got := e.git(t, wt, "log", "-1", "--format=%B"); got != "from the worktree\nWorktree: yes" {
		t.Errorf("message = %q (the shared commit-msg hook should run)", got)
	}
	e.wantClean(t, wt)
	e.wantClean(t, dir)
	if got := e.git(t, wt, "reflog", "-1", "--format=%gs", "feature"); got != "commit: from the worktree" {
		t.Errorf("reflog = %q", got)
	}
}

func TestCommitNothingToCommitNeedsNoIdentity(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	e.unsetIdentity(t, dir)
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "m"})
	if err != nil || res.Changes {
		t.Fatalf("result = %+v, %v; want no changes and no error", res, err)
	}
}

// TestCommitIndexFormats reads and writes the index versions git may leave (v4's compressed
// paths, as feature.manyFiles sets up, with an untracked cache), and refuses a split index
// clearly.
func TestCommitIndexFormats(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("dir%d/sub/file-with-a-long-shared-prefix-%02d.txt", i%3, i)] = fmt.Sprint(i)
	}
	dir := e.newRepo(t, files)
	e.git(t, dir, "config", "core.untrackedCache", "true")
	e.git(t, dir, "update-index", "--index-version", "4")
	e.git(t, dir, "status", "--porcelain") // writes the untracked cache
	writeFiles(t, dir, map[string]string{"dir1/sub/file-with-a-long-shared-prefix-04.txt": "changed", "dir2/new.txt": "new"})
	res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "v4"})
	if err != nil {
		t.Fatal(err)
	}
	if got := filesString(res.Files); got != "M\tdir1/sub/file-with-a-long-shared-prefix-04.txt\nA\tdir2/new.txt" {
		t.Errorf("files = %q", got)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".git", "index")); err != nil || b[7] != 4 {
		t.Errorf("index version = %v (%v), want 4 kept", b[4:8], err)
	}
	e.wantClean(t, dir)
	e.git(t, dir, "ls-files", "--stage") // git reads our v4 index
	e.fsck(t, dir)

	e.git(t, dir, "update-index", "--split-index")
	writeFiles(t, dir, map[string]string{"dir2/new.txt": "newer"})
	if _, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "split"}); err == nil || !strings.Contains(err.Error(), "split or sparse index") {
		t.Errorf("split index: err = %v", err)
	}
}

// TestCommitRunsHookWithoutShebang runs a hook script that has no #! line with sh, as git does
// (git falls back to the shell when the kernel cannot execute the file).
func TestCommitRunsHookWithoutShebang(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	writeFiles(t, dir, map[string]string{"a.txt": "changed\n"})
	hook := filepath.Join(dir, ".git/hooks/pre-commit")
	must(t, os.WriteFile(hook, []byte("echo 'no shebang here' >&2\nexit 1\n"), 0o755))
	var he *HookError
	_, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "m"})
	if !errors.As(err, &he) || he.ExitCode != 1 || !strings.Contains(he.Output, "no shebang here") {
		t.Fatalf("err = %v, want the hook's own failure with its output", err)
	}
	must(t, os.WriteFile(hook, []byte("test \"$1\" = '' && exit 0\nexit 1\n"), 0o755))
	if res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "m"}); err != nil || !res.Changes {
		t.Fatalf("passing hook: %+v, %v", res, err)
	}
	e.fsck(t, dir)
}

// TestCommitSelectionKeepsRacyChangesVisible: a change that only git's racy-timestamp rule can
// see (same size, modified in the second the index was written) must stay visible to git after a
// commit of other files. git smudges such an entry when it writes the index
// (ce_smudge_racily_clean_entry); writing its old stat data under a newer index makes git status
// and git add -A take the file for unchanged. The times are set explicitly; ctime cannot be, so
// core.trustctime is off (with it on, the same happens whenever the ctimes share a second).
func TestCommitSelectionKeepsRacyChangesVisible(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	for _, tc := range []struct {
		name  string
		attrs string
		old   string
		new   string
	}{
		{"plain", "", "1\n", "2\n"},
		{"converted", "*.txt text\n", "1\r\n", "2\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := e.newRepo(t, map[string]string{".gitattributes": tc.attrs, "a.txt": tc.old, "b.txt": tc.old, "c.txt": tc.old})
			e.git(t, dir, "config", "core.trustctime", "false")
			second := time.Unix(1600000000, 0)
			at := func(ms int) time.Time { return second.Add(time.Duration(ms) * time.Millisecond) }
			for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
				must(t, os.Chtimes(filepath.Join(dir, f), at(100), at(100)))
			}
			e.git(t, dir, "update-index", "--refresh")
			must(t, os.Chtimes(filepath.Join(dir, ".git", "index"), at(500), at(500)))
			// a.txt changes within the index's second, keeping its size; c.txt is rewritten with
			// the same content (racy, but clean: it must not be smudged).
			writeFiles(t, dir, map[string]string{"a.txt": tc.new, "b.txt": tc.new, "c.txt": tc.old})
			must(t, os.Chtimes(filepath.Join(dir, "a.txt"), at(300), at(300)))
			must(t, os.Chtimes(filepath.Join(dir, "c.txt"), at(300), at(300)))
			if got := e.gitStdout(t, dir, "--no-optional-locks", "status", "--porcelain"); got != "M a.txt\n M b.txt" {
				t.Fatalf("before: git status = %q", got)
			}

			res, err := openRepo(t, e, dir).Commit(context.Background(), CommitOptions{Message: "b only", Selection: Selection{Paths: []string{"b.txt"}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Files) != 1 || res.Files[0].Path != "b.txt" {
				t.Errorf("committed %v", res.Files)
			}
			if got := e.gitStdout(t, dir, "status", "--porcelain"); got != "M a.txt" {
				t.Errorf("git status = %q, want a.txt modified", got)
			}
			if got := e.gitStdout(t, dir, "diff-files", "--name-only"); got != "a.txt" {
				t.Errorf("git diff-files = %q, want a.txt", got)
			}
			idx, err := gitindex.Read(filepath.Join(dir, ".git", "index"))
			must(t, err)
			for _, en := range idx.Entries {
				if en.Name == "c.txt" && en.Size == 0 {
					t.Error("the clean racy entry c.txt was smudged")
				}
			}
			e.git(t, dir, "add", "-A")
			if got := e.gitStdout(t, dir, "diff", "--cached", "--name-only"); got != "a.txt" {
				t.Errorf("git add -A staged %q, want a.txt", got)
			}
		})
	}
}
