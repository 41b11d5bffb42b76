package gitops

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// baseIgnores are the patterns that apply everywhere, lowest priority first: core.excludesFile
// (default $XDG_CONFIG_HOME/git/ignore) and .git/info/exclude. The .gitignore files of the tree
// are added on top of them as the walk descends.
func (r *Repo) baseIgnores() ([]gitignore.Pattern, error) {
	var ps []gitignore.Pattern
	excludes := r.cfg.get("core", "", "excludesfile")
	if excludes != "" {
		excludes = r.env.expandHome(excludes)
	} else if x := r.env.xdgConfigHome(); x != "" {
		excludes = filepath.Join(x, "git", "ignore")
	}
	if excludes != "" {
		p, err := readIgnoreFile(excludes, nil)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p...)
	}
	p, err := readIgnoreFile(filepath.Join(r.CommonDir, "info", "exclude"), nil)
	if err != nil {
		return nil, err
	}
	return append(ps, p...), nil
}

// readIgnoreFile parses an ignore file whose patterns apply below domain; a missing file has none.
func readIgnoreFile(path string, domain []string) ([]gitignore.Pattern, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read ignore file %s: %w", path, err)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read ignore file %s: %w", path, err)
	}
	return ps, nil
}

// ignored applies patterns (lowest priority first) to a slash-separated path: the last pattern
// that matches decides.
func ignored(patterns []gitignore.Pattern, path string, isDir bool) bool {
	if len(patterns) == 0 {
		return false
	}
	parts := strings.Split(path, "/")
	for i := len(patterns) - 1; i >= 0; i-- {
		switch patterns[i].Match(parts, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}
