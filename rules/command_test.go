package rules

import (
	"testing"

	"github.com/autoagent/agent-hooks/toolcall"
)

func cmd(argv ...string) toolcall.Command { return toolcall.Command{Argv: argv} }

func TestCommandPattern(t *testing.T) {
	dyn := func(c toolcall.Command, idx ...int) toolcall.Command { c.Dynamic = idx; return c }
	split := func(c toolcall.Command, idx ...int) toolcall.Command { c.Dynamic, c.Split = idx, idx; return c }
	tests := []struct {
		pattern string
		c       toolcall.Command
		want    matchResult
	}{
		{"rm -rf", cmd("rm", "-rf", "build"), matched},
		{"rm -rf", cmd("rm", "-fr", "build"), matched},
		{"rm -rf", cmd("rm", "-r", "-f", "build"), matched},
		{"rm -rf", cmd("rm", "-R", "-f", "build"), matched},
		{"rm -rf", cmd("/bin/rm", "--recursive", "--force", "build"), matched},
		{"rm -rf", cmd("rm", "-f", "build", "-r"), matched},
		{"rm -rf", cmd("rm", "-r", "build"), noMatch},
		{"rm -rf", cmd("echo", "rm -rf"), noMatch},
		{"rm -rf", cmd("grep", "-rf", "x"), noMatch},
		{"rm -rf", cmd("rm", "--", "-rf"), noMatch},
		{"rm -rf", dyn(cmd("$RM", "-rf", "/"), 0), couldMatch},
		{"rm -rf", dyn(cmd("$RM", "-r", "/"), 0), noMatch},
		{"rm -rf", split(cmd("rm", "$FLAGS", "/"), 1), couldMatch},
		{"rm -rf", dyn(cmd("rm", "-r", "$f"), 2), couldMatch},
		{"rm -rf", dyn(cmd("rm", "$f"), 1), noMatch},
		{"git push --force", cmd("git", "push", "origin", "main", "--force"), matched},
		{"git push --force", cmd("git", "push", "-f"), matched},
		{"git push --force", cmd("git", "commit", "-m", "push --force"), noMatch},
		{"git push * +*", cmd("git", "push", "origin", "+main"), matched},
		{"git push * +*", cmd("git", "push", "origin", "main"), noMatch},
		{"git push --force-with-lease=*", cmd("git", "push", "--force-with-lease=main:abc"), matched},
		{"git push --force-with-lease=*", cmd("git", "push", "--force-with-lease"), noMatch},
		{"git push --force-with-lease", cmd("git", "push", "--force-with-lease=main:abc"), matched},
		{"git push --force-with-lease=a* --force-with-lease=b*", cmd("git", "push", "--force-with-lease=b1"), matched},
		{"git push --force-with-lease=a* --force-with-lease=b*", cmd("git", "push", "--force-with-lease=a1"), noMatch},
		{"git push --force-with-lease=b*", cmd("git", "push", "--force-with-lease=a1", "--force-with-lease=b1"), matched},
		{"tar -xzf", cmd("tar", "-x", "-zf", "a.tgz"), matched},
		{"tar -xzf", cmd("tar", "-xf", "a.tgz"), noMatch},
		{"curl", cmd("/usr/bin/curl", "-s", "x"), matched},
		{"mkfs.*", cmd("mkfs.ext4", "/dev/sda"), matched},
		{"curl", toolcall.Command{Argv: []string{"xargs"}, MoreArgs: true}, noMatch},
		{"rm -rf", toolcall.Command{Argv: []string{"rm"}, MoreArgs: true, Via: "xargs"}, couldMatch},
	}
	for _, tt := range tests {
		p, err := parseCommandPattern(tt.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		if got, _ := p.match(tt.c); got != tt.want {
			t.Errorf("%q against %q (dynamic %v): got %v, want %v", tt.pattern, tt.c.Argv, tt.c.Dynamic, got, tt.want)
		}
	}
}

func TestCommandPatternErrors(t *testing.T) {
	for _, p := range []string{"", "-rf", "curl | sh", "rm 'a", "ls $HOME"} {
		if _, err := parseCommandPattern(p); err == nil {
			t.Errorf("%q: no error", p)
		}
	}
}
