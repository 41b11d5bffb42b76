package rules

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// pathSet is a rule's "writes" or "reads": globs over the normalized paths of a call (relative to
// the workspace inside it, absolute outside), with "**" for any number of folders. A glob with no
// slash matches a file's name in any folder (".env*" matches config/.env.local), as in
// .gitignore; one with a slash is relative to the workspace, unless it is absolute or starts with
// "~/" (the home directory). A glob that starts with "!" takes back what the globs before it
// matched (".env*", "!.env.example").
type pathSet struct {
	globs []pathGlob
}

type pathGlob struct {
	source  string
	pattern string // slash-separated, as matched
	base    bool   // no slash: matches the last element of any path
	exclude bool
}

func compilePaths(list []string, home string) (*pathSet, error) {
	if len(list) == 0 {
		return nil, nil
	}
	s := &pathSet{}
	include := false
	for _, src := range list {
		g := pathGlob{source: src}
		p := src
		if rest, ok := strings.CutPrefix(p, "!"); ok {
			g.exclude, p = true, rest
		}
		if p == "" {
			return nil, fmt.Errorf("empty glob in %q", src)
		}
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			if home == "" {
				return nil, fmt.Errorf("%q: no home directory to expand ~ in", src)
			}
			p = filepath.ToSlash(home) + p[1:]
		}
		anchored := strings.HasPrefix(p, "./") // "./name": the workspace's own, not any folder's
		if strings.HasSuffix(p, "/") {
			p += "**"
		}
		if !strings.HasPrefix(p, "/") {
			p = path.Clean(p)
		}
		g.base = !anchored && !strings.Contains(p, "/")
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("%q is not a valid glob", src)
		}
		g.pattern = p
		if !g.exclude {
			include = true
		}
		s.globs = append(s.globs, g)
	}
	if !include {
		return nil, fmt.Errorf("only exclusions (!…): nothing to match")
	}
	return s, nil
}

// matches reports whether the set selects a normalized path.
func (s *pathSet) matches(p string) bool {
	in := false
	for _, g := range s.globs {
		if g.exclude != in {
			continue // an exclusion only matters once included, an inclusion only before
		}
		if g.match(p) {
			in = !g.exclude
		}
	}
	return in
}

func (g pathGlob) match(p string) bool {
	if g.base {
		name := p
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			name = p[i+1:]
		}
		ok, _ := doublestar.Match(g.pattern, name)
		return ok
	}
	if ok, _ := doublestar.Match(g.pattern, p); ok {
		return true
	}
	// A folder's glob ("dir/**") also matches the folder itself: removing or replacing it
	// removes what is in it.
	if dir, ok := strings.CutSuffix(g.pattern, "/**"); ok {
		ok, _ := doublestar.Match(dir, p)
		return ok
	}
	return false
}

// first is the first path of the lists the set selects, "" when none.
func (s *pathSet) first(lists ...[]string) string {
	for _, l := range lists {
		for _, p := range l {
			if s.matches(p) {
				return p
			}
		}
	}
	return ""
}
