package toolcall

import (
	"os"
	"path/filepath"
	"strings"
)

// Place is where a call's paths are relative to: the directory it runs in, the workspace, and the
// user's home (for "~/").
type Place struct {
	Cwd       string // the call's working directory ("" is the workspace)
	Workspace string
	Home      string

	realWorkspace string
}

// NewPlace returns a Place, with the workspace's own symbolic links resolved once.
func NewPlace(cwd, workspace, home string) *Place {
	p := &Place{Cwd: cwd, Workspace: workspace, Home: home}
	if workspace != "" {
		p.realWorkspace = resolve(filepath.Clean(workspace))
	}
	if p.Cwd == "" {
		p.Cwd = workspace
	}
	return p
}

// Normalize returns path as calls carry it: relative to the workspace (slash-separated) when it is
// inside, else absolute; "~/" is the home directory; symbolic links are resolved as far as the
// path exists. "" stays "".
func (p *Place) Normalize(path string) string {
	return p.NormalizeIn(p.Cwd, path)
}

// NormalizeIn is Normalize for a path relative to dir (a shell command after a cd).
func (p *Place) NormalizeIn(dir, path string) string {
	if path == "" {
		return ""
	}
	switch {
	case path == "~":
		path = p.Home
	case strings.HasPrefix(path, "~/"):
		path = filepath.Join(p.Home, path[2:])
	}
	if !filepath.IsAbs(path) {
		if dir == "" {
			dir = p.Cwd
		}
		path = filepath.Join(dir, path)
	}
	path = p.resolve(filepath.Clean(path))
	for _, ws := range []string{p.realWorkspace, filepath.Clean(p.Workspace)} {
		if ws == "" || ws == "." {
			continue
		}
		if path == ws {
			return "."
		}
		if rel, ok := strings.CutPrefix(path, ws+string(filepath.Separator)); ok {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

// resolve is resolve(path), which for a path inside the workspace looks up only the names below
// the workspace, whose own links NewPlace resolved: a call's paths are mostly there, and resolving
// each from the root looked up every folder of the workspace's path again, some twenty lstat
// calls a tool call.
func (p *Place) resolve(path string) string {
	ws := filepath.Clean(p.Workspace)
	if p.realWorkspace == "" || ws == "." || !filepath.IsAbs(ws) {
		return resolve(path)
	}
	if path == ws {
		return p.realWorkspace
	}
	if rel, ok := strings.CutPrefix(path, ws+string(filepath.Separator)); ok {
		return resolveBelow(p.realWorkspace, rel)
	}
	return resolve(path)
}

// resolveBelow is resolve(filepath.Join(base, rel)) for a clean rel and a base whose links are
// resolved: each name of rel is looked up in turn; the first that does not exist ends the walk
// (the rest is kept as it is), and a link hands the rest to resolve.
func resolveBelow(base, rel string) string {
	cur := base
	for rest := rel; rest != ""; {
		name, next, _ := strings.Cut(rest, string(filepath.Separator))
		at := filepath.Join(cur, name)
		st, err := os.Lstat(at)
		switch {
		case err != nil:
			return filepath.Join(at, next)
		case st.Mode()&os.ModeSymlink != 0:
			return resolve(filepath.Join(at, next))
		}
		cur, rest = at, next
	}
	return cur
}

// resolve resolves the symbolic links of the longest part of path that exists; the rest is kept
// as it is (a file the call is about to create). A link that dangles is followed to where it
// points: writing through it creates that file.
func resolve(path string) string { return resolveDepth(path, 40) }

func resolveDepth(path string, depth int) string {
	if real, err := filepath.EvalSymlinks(path); err == nil || depth == 0 {
		if err != nil {
			return path
		}
		return real
	}
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	if dir == path || base == "" {
		return path
	}
	if target, err := os.Readlink(path); err == nil {
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		return resolveDepth(filepath.Clean(target), depth-1)
	}
	return filepath.Join(resolveDepth(dir, depth-1), base)
}
