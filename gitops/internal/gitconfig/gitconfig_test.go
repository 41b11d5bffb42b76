package gitconfig

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/gitops/internal/gittest"
)

// TestLoadIsGitConfig: the value of every key, through the system file, the XDG and home
// files, the repository's config and GIT_CONFIG_COUNT, later layers winning, is git config
// --get's; booleans are git config --type=bool's.
func TestLoadIsGitConfig(t *testing.T) {
	t.Parallel()
	for _, globalVar := range []bool{false, true} {
		t.Run(fmt.Sprintf("GIT_CONFIG_GLOBAL=%v", globalVar), func(t *testing.T) {
			t.Parallel()
			e := gittest.New(t)
			dir := e.Repo(t, nil)
			sys := filepath.Join(e.Home, "system")
			gittest.WriteFiles(t, e.Home, map[string]string{
				"system":             "[core]\n\tautocrlf = input\n\teol = lf\n[only]\n\tsystem = yes\n",
				".config/git/config": "[user]\n\tname = XDG\n[only]\n\txdg = on\n",
				".gitconfig":         "[user]\n\tname = Home\n\temail = home@example.com\n[core]\n\tsafecrlf = warn\n",
				"explicit-global":    "[user]\n\tname = Explicit\n[only]\n\tglobal = 1\n",
			})
			delete(e.Vars, "GIT_CONFIG_NOSYSTEM")
			e.Vars["GIT_CONFIG_SYSTEM"] = sys
			if globalVar {
				e.Vars["GIT_CONFIG_GLOBAL"] = filepath.Join(e.Home, "explicit-global")
			}
			e.Git(t, dir, "config", "core.eol", "crlf")
			e.Git(t, dir, "config", "remote.origin.url", "https://example.com/o/r.git")
			e.Git(t, dir, "config", "url.https://a.example/x.insteadOf", "gh:")
			e.Git(t, dir, "config", "--add", "multi.key", "first")
			e.Git(t, dir, "config", "--add", "multi.key", "last")
			e.Git(t, dir, "config", "bools.yes", "yes")
			e.Git(t, dir, "config", "bools.off", "off")
			e.Git(t, dir, "config", "bools.one", "1")
			e.Vars["GIT_CONFIG_COUNT"] = "2"
			e.Vars["GIT_CONFIG_KEY_0"], e.Vars["GIT_CONFIG_VALUE_0"] = "core.safecrlf", "true"
			e.Vars["GIT_CONFIG_KEY_1"], e.Vars["GIT_CONFIG_VALUE_1"] = "user.email", "env@example.com"

			c, err := Load(e.Getenv, filepath.Join(dir, ".git", "config"))
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"core.autocrlf", "core.eol", "core.safecrlf", "user.name", "user.email", "only.system",
				"only.xdg", "only.global", "remote.origin.url", "url.https://a.example/x.insteadof", "multi.key", "no.such"} {
				section, rest, _ := strings.Cut(key, ".")
				sub, name := "", rest
				if i := strings.LastIndex(rest, "."); i >= 0 {
					sub, name = rest[:i], rest[i+1:]
				}
				want, _ := e.GitErr(dir, "config", "--get-all", key)
				if i := strings.LastIndex(want, "\n"); i >= 0 {
					want = want[i+1:] // git uses the last value
				}
				if got := c.Get(section, sub, name); got != want {
					t.Errorf("%s = %q, git config says %q", key, got, want)
				}
			}
			for _, key := range []string{"bools.yes", "bools.off", "bools.one", "only.xdg", "bools.unset"} {
				want, _ := e.GitErr(dir, "config", "--type=bool", "--get", key)
				got := c.Bool("bools", "", strings.TrimPrefix(key, "bools."), false)
				if key == "only.xdg" {
					got = c.Bool("only", "", "xdg", false)
				}
				if (want == "true") != got {
					t.Errorf("%s = %v, git config --type=bool says %q", key, got, want)
				}
			}
		})
	}
}

// TestPaths: ~ and the XDG directory resolve as git resolves them.
func TestPaths(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	if got := XDGConfigHome(getenv); got != "/home/u/.config" {
		t.Errorf("XDGConfigHome = %q", got)
	}
	env["XDG_CONFIG_HOME"] = "/xdg"
	if got := XDGConfigHome(getenv); got != "/xdg" {
		t.Errorf("XDGConfigHome = %q", got)
	}
	if got := ExpandHome(getenv, "~/ignore"); got != "/home/u/ignore" {
		t.Errorf("ExpandHome = %q", got)
	}
	if got := ExpandHome(getenv, "/abs/~/x"); got != "/abs/~/x" {
		t.Errorf("ExpandHome = %q", got)
	}
}
