package refs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// List lists the refs of the git directory gitDir as git's files backend reads them: HEAD, the
// loose refs under refs/, then the packed refs no loose ref hides. Like git, it leaves out
// .lock files (a ref being written) and loose refs whose content is neither an object id nor
// "ref: <name>".
//
// It is what the in-process server advertises, so it costs per ref what git's does: one
// listing of each folder and one open and read of each file, where go-git's filesystem
// storage resolves every component of every path, and stats each file before opening it.
func List(gitDir string) ([]*plumbing.Reference, error) {
	var refs []*plumbing.Reference
	add := func(name string, content []byte) {
		if r := parseLoose(name, content); r != nil {
			refs = append(refs, r)
		}
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	switch {
	case err == nil:
		add("HEAD", head)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if err := walkLoose(filepath.Join(gitDir, "refs"), "refs/", add); err != nil {
		return nil, err
	}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return refs, nil
	}
	if err != nil {
		return nil, err
	}
	loose := make(map[plumbing.ReferenceName]bool, len(refs))
	for _, r := range refs {
		loose[r.Name()] = true
	}
	for n, line := range strings.Split(string(packed), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue // the header, or the object a tag above peels to
		}
		id, name, ok := strings.Cut(line, " ")
		if !ok || !plumbing.IsHash(id) || name == "" || strings.Contains(name, " ") {
			return nil, fmt.Errorf("%s:%d: unexpected line %q", filepath.Join(gitDir, "packed-refs"), n+1, line)
		}
		if !loose[plumbing.ReferenceName(name)] {
			refs = append(refs, plumbing.NewHashReference(plumbing.ReferenceName(name), plumbing.NewHash(id)))
		}
	}
	return refs, nil
}

// parseLoose reads a loose ref's file: nil when it is broken.
func parseLoose(name string, content []byte) *plumbing.Reference {
	c := string(bytes.TrimSpace(content))
	if target, ok := strings.CutPrefix(c, "ref: "); ok {
		if target = strings.TrimSpace(target); target == "" {
			return nil
		}
		return plumbing.NewSymbolicReference(plumbing.ReferenceName(name), plumbing.ReferenceName(target))
	}
	if !plumbing.IsHash(c) {
		return nil
	}
	return plumbing.NewHashReference(plumbing.ReferenceName(name), plumbing.NewHash(c))
}

// skipLoose reports whether a file under refs/ is no ref (git's files backend skips these).
func skipLoose(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".lock")
}
