// Package gitops owns all git work of agent-hooks, and is the only package that opens a
// repository: staging every change of a work tree the way `git add -A` does (every ignore rule,
// one walk, the index read and written once), committing with the repository's own pre-commit
// and commit-msg hooks, resolving author and committer, and pushing with token or ssh
// authentication and bounded retries. It also provides the git-commit and git-push hook types,
// and the read helpers other packages use (Head, RemoteURL, Origin).
//
// go-git serves refs, remotes and pushes; git's file formats are read and written as git does
// by the packages under gitops/internal (the index, objects, attributes, ignore rules, config,
// lock files, refs), each with a conformance suite driven by the git CLI.
//
// Nothing here reads the process environment, working directory or home directory: everything
// comes in through Env.
package gitops

import (
	"fmt"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"

	"github.com/autoagent/agent-hooks/gitops/internal/gitconfig"
	"github.com/autoagent/agent-hooks/gitops/internal/gitobj"
	"github.com/autoagent/agent-hooks/gitops/internal/lockfile"
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

// xdgConfigHome is $XDG_CONFIG_HOME, else ~/.config.
func (e Env) xdgConfigHome() string { return gitconfig.XDGConfigHome(e.getenv) }

// LockedError is a lock file (index.lock, a ref's .lock) that another git process holds, or that
// one left when it crashed: nothing was changed.
type LockedError = lockfile.LockedError

// Repo is an opened non-bare repository.
type Repo struct {
	Root      string          // the work tree's top directory
	GitDir    string          // .git, or the worktree's private git directory
	CommonDir string          // where objects, refs and hooks live (equal to GitDir outside linked worktrees)
	repo      *git.Repository // refs, remotes and pushes (go-git)
	objs      *gitobj.Reader  // objects, read without go-git's storage (see gitobj.Reader)
	cfg       *gitconfig.Config
	env       Env
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
	cfg, err := gitconfig.Load(env.getenv, filepath.Join(l.commonDir, "config"))
	if err != nil {
		return nil, err
	}
	if f := cfg.Get("extensions", "", "objectformat"); f != "" && !strings.EqualFold(f, "sha1") {
		return nil, fmt.Errorf("open repository %s: object format %s is not supported", l.root, f)
	}
	return &Repo{Root: l.root, GitDir: l.gitDir, CommonDir: l.commonDir, repo: r, cfg: cfg, env: env,
		objs: gitobj.NewReader(filepath.Join(l.commonDir, "objects"))}, nil
}

// expandHome expands a leading ~/ as git does for path-valued options.
func (e Env) expandHome(p string) string { return gitconfig.ExpandHome(e.getenv, p) }
