// Package ignore matches paths against git's exclude patterns (.gitignore files,
// $GIT_DIR/info/exclude, core.excludesFile) as git's dir.c does, against the path itself: the
// caller walks the tree and prunes excluded directories, so a rule never looks at a path's
// parents. The same patterns select the paths of a git attributes line.
package ignore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ReadFile parses an ignore file whose patterns apply below domain; a missing file has none.
func ReadFile(path string, domain []string) ([]gitignore.Pattern, error) {
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
		if r := ParseRule(line, domain); r != nil {
			ps = append(ps, r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read ignore file %s: %w", path, err)
	}
	return ps, nil
}

// Ignored applies patterns (lowest priority first) to a slash-separated path: the last pattern
// that matches decides.
func Ignored(patterns []gitignore.Pattern, path string, isDir bool) bool {
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

// Rule is one line of an ignore file (or the pattern of an attributes line), matched as git matches it: against the path itself
// only. (go-git's gitignore.Pattern also matches a path through its parent directories, so that
// `!*/` or `!somedir` re-includes every file below, and lets `dir/**` match dir itself.) The walk
// prunes excluded directories, so a rule never needs to look at a path's parents.
type Rule struct {
	domain   []string // the directory of the ignore file, below which the rule applies
	segs     []string // the pattern's segments; one (the base name's) when not anchored
	anchored bool     // the pattern has a slash: matched against the whole path below domain
	negate   bool
	dirOnly  bool
}

// ParseRule reads one non-comment line whose pattern applies below domain (the directory of its
// file, as path segments); nil when it holds no pattern.
func ParseRule(line string, domain []string) *Rule {
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	r := &Rule{domain: append([]string(nil), domain...)}
	if rest, ok := strings.CutPrefix(line, "!"); ok {
		r.negate, line = true, rest
	}
	if rest, ok := strings.CutSuffix(line, "/"); ok {
		r.dirOnly, line = true, rest
	}
	if line == "" {
		return nil
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	for _, s := range strings.Split(line, "/") {
		r.segs = append(r.segs, bracketNegation(s))
	}
	return r
}

// bracketNegation turns git's [!…] into path.Match's [^…].
func bracketNegation(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\\':
			i++
		case b[i] == '[' && i+1 < len(b) && b[i+1] == '!':
			b[i+1] = '^'
		}
	}
	return string(b)
}

// Match implements gitignore.Pattern for the path itself (slash-separated segments).
func (r *Rule) Match(p []string, isDir bool) gitignore.MatchResult {
	if len(p) <= len(r.domain) || (r.dirOnly && !isDir) {
		return gitignore.NoMatch
	}
	for i, d := range r.domain {
		if p[i] != d {
			return gitignore.NoMatch
		}
	}
	p = p[len(r.domain):]
	var ok bool
	if r.anchored {
		ok = matchSegments(r.segs, p)
	} else {
		ok = matchSegment(r.segs[0], p[len(p)-1])
	}
	switch {
	case !ok:
		return gitignore.NoMatch
	case r.negate:
		return gitignore.Include
	}
	return gitignore.Exclude
}

// matchSegments matches path segments against pattern segments: "**" matches any number of
// segments, and at the end at least one (everything inside).
func matchSegments(pat, p []string) bool {
	if len(pat) == 0 {
		return len(p) == 0
	}
	if pat[0] == "**" {
		if len(pat) == 1 {
			return len(p) > 0
		}
		for i := 0; i <= len(p); i++ {
			if matchSegments(pat[1:], p[i:]) {
				return true
			}
		}
		return false
	}
	return len(p) > 0 && matchSegment(pat[0], p[0]) && matchSegments(pat[1:], p[1:])
}

func matchSegment(pat, name string) bool {
	ok, err := path.Match(pat, name)
	return err == nil && ok
}
