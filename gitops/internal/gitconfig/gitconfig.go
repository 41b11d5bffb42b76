// Package gitconfig reads git's configuration as git itself layers it: the system file, the
// global files, the repository's config, then GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/
// GIT_CONFIG_VALUE_n; later layers win. Includes are not followed. It also resolves the paths
// git derives from the environment ($HOME, $XDG_CONFIG_HOME, a leading ~/).
package gitconfig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Config is the layered configuration of one repository.
type Config struct {
	layers []*formatcfg.Config
}

// Load reads the configuration that applies to the repository whose config file is repoConfig,
// with getenv as the environment (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL,
// HOME, XDG_CONFIG_HOME, GIT_CONFIG_COUNT, …). Missing or unreadable files are skipped, as git
// skips them.
func Load(getenv func(string) string, repoConfig string) (*Config, error) {
	var files []string
	if getenv("GIT_CONFIG_NOSYSTEM") == "" {
		sys := getenv("GIT_CONFIG_SYSTEM")
		if sys == "" {
			sys = "/etc/gitconfig"
		}
		files = append(files, sys)
	}
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		if x := XDGConfigHome(getenv); x != "" {
			files = append(files, filepath.Join(x, "git", "config"))
		}
		if h := getenv("HOME"); h != "" {
			files = append(files, filepath.Join(h, ".gitconfig"))
		}
	}
	files = append(files, repoConfig)
	c := &Config{}
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
	if n := getenv("GIT_CONFIG_COUNT"); n != "" {
		layer := formatcfg.New()
		var count int
		if _, err := fmt.Sscan(n, &count); err == nil {
			for i := range count {
				key := getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
				section, rest, ok := strings.Cut(key, ".")
				if !ok {
					continue
				}
				sub, name := "", rest
				if j := strings.LastIndex(rest, "."); j >= 0 {
					sub, name = rest[:j], rest[j+1:]
				}
				layer.AddOption(section, sub, name, getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i)))
			}
		}
		c.layers = append(c.layers, layer)
	}
	return c, nil
}

// Get returns the last value of section[.subsection].key, or "".
func (c *Config) Get(section, subsection, key string) string {
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

// Bool reads a boolean option with git's spellings; def when unset or unreadable.
func (c *Config) Bool(section, subsection, key string, def bool) bool {
	switch strings.ToLower(c.Get(section, subsection, key)) {
	case "true", "yes", "on", "1":
		return true
	case "false", "no", "off", "0":
		return false
	}
	return def
}

// XDGConfigHome is $XDG_CONFIG_HOME, else ~/.config ("" without either).
func XDGConfigHome(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config")
	}
	return ""
}

// ExpandHome expands a leading ~/ as git does for path-valued options.
func ExpandHome(getenv func(string) string, p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && getenv("HOME") != "" {
		return filepath.Join(getenv("HOME"), rest)
	}
	return p
}
