// Package githead finds the git repository holding a directory and reads its HEAD, as git does, with
// nothing but the file system: the .git directory or file (linked worktrees, submodules), the
// common directory, HEAD, loose references and packed-refs. It is what a session's start needs
// (the branch and commit it began on), and it keeps go-git out of every program that records a
// session; gitops uses it to find repositories too.
package githead

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRepository is returned when no directory up from the one given holds a repository.
var ErrNotRepository = errors.New("not inside a git work tree")

// Location is where a repository is: its work tree's top, its git directory and its common
// directory (the main repository's git directory for a linked worktree; else the git directory).
type Location struct {
	Root, GitDir, CommonDir string
}

// Locate finds the repository holding dir: the nearest directory up from it with a .git.
func Locate(dir string) (Location, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Location{}, fmt.Errorf("open repository: %w", err)
	}
	for d := abs; ; {
		l, ok, err := At(d)
		if err != nil || ok {
			return l, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Location{}, fmt.Errorf("open repository: %s is %w", abs, ErrNotRepository)
		}
		d = parent
	}
}

// At is the repository whose work tree's top is dir itself (a submodule, a nested repository),
// without looking further up; ok is false when dir has no .git.
func At(dir string) (l Location, ok bool, err error) {
	p := filepath.Join(dir, ".git")
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return Location{}, false, nil
	case fi.IsDir():
		return Location{Root: dir, GitDir: p, CommonDir: CommonDir(p)}, true, nil
	}
	gd, err := ReadGitFile(p)
	if err != nil {
		return Location{}, false, err
	}
	return Location{Root: dir, GitDir: gd, CommonDir: CommonDir(gd)}, true, nil
}

// ReadGitFile reads a .git file ("gitdir: PATH"): the git directory it points to.
func ReadGitFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", fmt.Errorf("read %s: not a gitdir file", p)
	}
	gd := strings.TrimSpace(line)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(p), gd)
	}
	return filepath.Clean(gd), nil
}

// CommonDir is the common directory of a git directory: where its "commondir" file points, else
// the git directory itself.
func CommonDir(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

// Read reads HEAD of the repository holding dir: the branch checked out ("" on a detached HEAD)
// and the commit it is at ("" on a branch without commits).
func Read(dir string) (branch, commit string, err error) {
	l, err := Locate(dir)
	if err != nil {
		return "", "", err
	}
	return l.Head()
}

// Head reads the location's HEAD (see Read).
func (l Location) Head() (branch, commit string, err error) {
	target, sha, err := l.readRef("HEAD")
	if err != nil {
		return "", "", fmt.Errorf("read HEAD: %w", err)
	}
	if target == "" {
		return "", sha, nil
	}
	if b, ok := strings.CutPrefix(target, "refs/heads/"); ok {
		branch = b
	}
	for range 5 { // symbolic references pointing at symbolic references
		next, sha, err := l.readRef(target)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return branch, "", nil // a branch without commits
		case err != nil:
			return branch, "", fmt.Errorf("read %s: %w", target, err)
		case next == "":
			return branch, sha, nil
		}
		target = next
	}
	return branch, "", fmt.Errorf("read %s: symbolic references nested too deep", target)
}

// perWorktree reports whether a reference lives in a linked worktree's own git directory rather
// than the common one (git's files backend: HEAD and the other pseudo-refs, refs/worktree,
// refs/bisect, refs/rewritten).
func perWorktree(name string) bool {
	return !strings.HasPrefix(name, "refs/") || strings.HasPrefix(name, "refs/worktree/") ||
		strings.HasPrefix(name, "refs/bisect/") || strings.HasPrefix(name, "refs/rewritten/")
}

// readRef reads a reference: its target when it is symbolic ("ref: …"), else its object id; an
// error wrapping os.ErrNotExist when it does not exist.
func (l Location) readRef(name string) (target, sha string, err error) {
	dir := l.CommonDir
	if perWorktree(name) {
		dir = l.GitDir
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err == nil {
		s := strings.TrimSpace(string(b))
		if t, ok := strings.CutPrefix(s, "ref:"); ok {
			return strings.TrimSpace(t), "", nil
		}
		if !isObjectID(s) {
			return "", "", fmt.Errorf("%s holds %q, not an object id", name, s)
		}
		return "", s, nil
	}
	if !errors.Is(err, os.ErrNotExist) || perWorktree(name) {
		return "", "", err
	}
	err = l.packed(name, &sha)
	return "", sha, err
}

// packed finds name in packed-refs.
func (l Location) packed(name string, sha *string) error {
	f, err := os.Open(filepath.Join(l.CommonDir, "packed-refs"))
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	want := []byte(" " + name)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' || line[0] == '^' {
			continue
		}
		if bytes.HasSuffix(line, want) && bytes.IndexByte(line, ' ') == len(line)-len(want) {
			id := string(line[:len(line)-len(want)])
			if !isObjectID(id) {
				return fmt.Errorf("packed-refs: %s holds %q, not an object id", name, id)
			}
			*sha = id
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read packed-refs: %w", err)
	}
	return fmt.Errorf("%s: %w", name, os.ErrNotExist)
}

// isObjectID reports whether s is a SHA-1 or SHA-256 object id in hexadecimal.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
