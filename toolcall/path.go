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
	path = resolve(filepath.Clean(path))
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
