// Package gitops owns all git work of agent-hooks, done with go-git: staging every change of a
// work tree the way `git add -A` does (every ignore rule, one walk, the index read and written
// once), committing with the repository's own pre-commit and commit-msg hooks, resolving author
// and committer, and pushing with token or ssh authentication and bounded retries. It also
// provides the git-commit and git-push hook types.
//
// Nothing here reads the process environment, working directory or home directory: everything
// comes in through Env.
package gitops

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v5"
	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Env is the part of the outside world gitops may look at.
type Env struct {
	// Getenv reads the environment (GIT_AUTHOR_*, HOME, XDG_CONFIG_HOME, GITHUB_*, tokens, …).
	Getenv func(string) string
	// Environ is the base environment of the repository's git hooks.
	Environ []string
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// home is $HOME, the directory ~ stands for in git config and ignore files.
func (e Env) home() string { return e.getenv("HOME") }

// xdgConfigHome is $XDG_CONFIG_HOME, else ~/.config.
func (e Env) xdgConfigHome() string {
	if x := e.getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	if h := e.home(); h != "" {
		return filepath.Join(h, ".config")
	}
	return ""
}

// Repo is an opened non-bare repository.
type Repo struct {
	Root      string // the work tree's top directory
	GitDir    string // .git, or the worktree's private git directory
	CommonDir string // where objects, refs and hooks live (equal to GitDir outside linked worktrees)
	repo      *git.Repository
	cfg       *gitConfig
	env       Env
	storeMu   sync.Mutex // go-git's object storage is not safe for concurrent use
}

// Open finds the repository containing dir (dir or its nearest ancestor with a .git) and opens it.
func Open(dir string, env Env) (*Repo, error) {
	l, err := locate(dir)
	if err != nil {
		return nil, err
	}
	r, err := l.open()
	if err != nil {
		return nil, err
	}
	cfg, err := loadGitConfig(env, filepath.Join(l.commonDir, "config"))
	if err != nil {
		return nil, err
	}
	if f := cfg.get("extensions", "", "objectformat"); f != "" && !strings.EqualFold(f, "sha1") {
		return nil, fmt.Errorf("open repository %s: object format %s is not supported", l.root, f)
	}
	return &Repo{Root: l.root, GitDir: l.gitDir, CommonDir: l.commonDir, repo: r, cfg: cfg, env: env}, nil
}

// findGitDir walks up from dir to the first directory holding .git (a directory, or a file
// pointing to the git directory as linked worktrees and submodules have).
func findGitDir(dir string) (root, gitDir string, err error) {
	for d := dir; ; {
		p := filepath.Join(d, ".git")
		fi, err := os.Stat(p)
		if err == nil {
			if fi.IsDir() {
				return d, p, nil
			}
			gd, err := readGitFile(p)
			if err != nil {
				return "", "", err
			}
			return d, gd, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", fmt.Errorf("open repository: %s is %w", dir, ErrNotRepository)
		}
		d = parent
	}
}

// readGitFile reads a .git file ("gitdir: PATH").
func readGitFile(p string) (string, error) {
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

// gitConfig is git's configuration as git itself layers it: system, global, repository, then
// GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n; later layers win. Includes are not followed.
type gitConfig struct {
	layers []*formatcfg.Config
}

func loadGitConfig(env Env, repoConfig string) (*gitConfig, error) {
	var files []string
	if env.getenv("GIT_CONFIG_NOSYSTEM") == "" {
		sys := env.getenv("GIT_CONFIG_SYSTEM")
		if sys == "" {
			sys = "/etc/gitconfig"
		}
		files = append(files, sys)
	}
	if g := env.getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		if x := env.xdgConfigHome(); x != "" {
			files = append(files, filepath.Join(x, "git", "config"))
		}
		if h := env.home(); h != "" {
			files = append(files, filepath.Join(h, ".gitconfig"))
		}
	}
	files = append(files, repoConfig)
	c := &gitConfig{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read git config %s: %w", f, err)
		}
		layer := formatcfg.New()
		if err := formatcfg.NewDecoder(bytes.NewReader(b)).Decode(layer); err != nil {
			return nil, fmt.Errorf("parse git config %s: %w", f, err)
		}
		c.layers = append(c.layers, layer)
	}
	if n := env.getenv("GIT_CONFIG_COUNT"); n != "" {
		layer := formatcfg.New()
		var count int
		if _, err := fmt.Sscan(n, &count); err == nil {
			for i := range count {
				key := env.getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
				section, rest, ok := strings.Cut(key, ".")
				if !ok {
					continue
				}
				sub, name := "", rest
				if j := strings.LastIndex(rest, "."); j >= 0 {
					sub, name = rest[:j], rest[j+1:]
				}
				layer.AddOption(section, sub, name, env.getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i)))
			}
		}
		c.layers = append(c.layers, layer)
	}
	return c, nil
}

// get returns the last value of section[.subsection].key, or "".
func (c *gitConfig) get(section, subsection, key string) string {
	for i := len(c.layers) - 1; i >= 0; i-- {
		l := c.layers[i]
		if !l.HasSection(section) {
			continue
		}
		s := l.Section(section)
		var opts formatcfg.Options
		if subsection == "" {
			opts = s.Options
		} else if s.HasSubsection(subsection) {
			opts = s.Subsection(subsection).Options
		}
		if all := opts.GetAll(key); len(all) > 0 {
			return all[len(all)-1]
		}
	}
	return ""
}

// bool reads a boolean option with git's spellings; def when unset or unreadable.
func (c *gitConfig) bool(section, subsection, key string, def bool) bool {
	switch strings.ToLower(c.get(section, subsection, key)) {
	case "true", "yes", "on", "1":
		return true
	case "false", "no", "off", "0":
		return false
	}
	return def
}

// expandHome expands a leading ~/ as git does for path-valued options.
func (e Env) expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && e.home() != "" {
		return filepath.Join(e.home(), rest)
	}
	return p
}
