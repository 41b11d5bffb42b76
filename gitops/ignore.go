package gitops

import (
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/autoagent/agent-hooks/gitops/internal/ignore"
)

// baseIgnores are the patterns that apply everywhere, lowest priority first: core.excludesFile
// (default $XDG_CONFIG_HOME/git/ignore) and .git/info/exclude. The .gitignore files of the tree
// are added on top of them as the walk descends.
func (r *Repo) baseIgnores() ([]gitignore.Pattern, error) {
	var ps []gitignore.Pattern
	excludes := r.cfg.Get("core", "", "excludesfile")
	if excludes != "" {
		excludes = r.env.expandHome(excludes)
	} else if x := r.env.xdgConfigHome(); x != "" {
		excludes = filepath.Join(x, "git", "ignore")
	}
	if excludes != "" {
		p, err := ignore.ReadFile(excludes, nil)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p...)
	}
	p, err := ignore.ReadFile(filepath.Join(r.CommonDir, "info", "exclude"), nil)
	if err != nil {
		return nil, err
	}
	return append(ps, p...), nil
}
