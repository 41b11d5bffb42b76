package gitcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// summary is a compact, comparable form of a report.
func summary(r Report) string {
	if r.Unknown {
		return "unknown"
	}
	var parts []string
	for _, op := range r.Ops {
		s := op.Subcommand
		if op.Dir != "" {
			s += " dir=" + op.Dir
		}
		if op.NoVerify {
			s += " no-verify"
		}
		if op.HooksPath != nil {
			s += " hooksPath=" + *op.HooksPath
		}
		if len(op.Bypasses) > 0 {
			s += " bypass[" + strings.Join(op.Bypasses, "; ") + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | ")
}

func TestScan(t *testing.T) {
	t.Parallel()
	tests := []struct{ command, want string }{
		{`git commit -m "fix: x"`, `commit`},
		{`git push origin main`, `push`},
		{`git status && git diff`, ``},
		{`ls -la; echo git commit`, ``}, // echo only prints it
		{`git add -A && git commit -m wip && git push`, `commit | push`},
		{`git -C sub/repo commit -am x`, `commit dir=sub/repo`},
		{`git -C a -C b push`, `push dir=a/b`},
		{`git -C /abs -C rel push`, `push dir=/abs/rel`},
		{`git --git-dir=.git --work-tree . commit -m x`, `commit`},
		{`git -c user.name=bot -c user.email=b@x commit -m x`, `commit`},
		{`git -c core.hooksPath=/dev/null commit -m x`, `commit hooksPath=/dev/null bypass[-c core.hooksPath=/dev/null]`},
		{`git -c core.hookspath= push`, `push hooksPath= bypass[-c core.hookspath=]`},
		{`git --config-env=core.hooksPath=EMPTY commit -m x`, `commit hooksPath=$EMPTY bypass[--config-env core.hooksPath=EMPTY]`},
		{`git commit --no-verify -m x`, `commit no-verify bypass[--no-verify]`},
		{`git commit -n -m x`, `commit no-verify bypass[--no-verify]`},
		{`git commit -anm x`, `commit no-verify bypass[--no-verify]`},
		{`git commit -m -n`, `commit`}, // -n is the message
		{`git commit -mn`, `commit`},   // so is this
		{`git commit -F msg.txt -n`, `commit no-verify bypass[--no-verify]`},
		{`git commit --message -n`, `commit`},
		{`git commit --no-verif -m x`, `commit no-verify bypass[--no-verify]`}, // git takes unique prefixes
		{`git commit --no-verify --verify -m x`, `commit`},
		{`git commit -m x -- -n`, `commit`}, // a path
		{`git push -n`, `push`},             // push's -n is --dry-run
		{`git push --no-verify`, `push no-verify bypass[--no-verify]`},
		{`HUSKY=0 git commit -m x`, `commit bypass[HUSKY=0]`},
		{`SKIP=lint git commit -m x`, `commit bypass[SKIP=lint]`},
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x git push`, `push hooksPath=/x bypass[GIT_CONFIG_KEY_0=core.hooksPath]`},
		{`git config core.hooksPath /dev/null && git commit -m x`, `commit bypass[git config core.hooksPath /dev/null]`},
		{`git config --get core.hooksPath && git commit -m x`, `commit`},
		{`env GIT_AUTHOR_NAME=x git commit -m y`, `commit`},
		{`env -i HUSKY=0 /usr/bin/git commit -m y`, `commit bypass[HUSKY=0]`},
		{`sudo -u bot git push`, `push`},
		{`timeout 30 git push`, `push`},
		{`nice -n 5 command git commit -m x`, `commit`},
		{`(cd sub && git commit -m x)`, `commit`},
		{`{ git push; }`, `push`},
		{`echo $(git commit -m x)`, `commit`},
		{`if true; then git push; fi`, `push`},
		{`for r in a b; do git -C "$r" push; done`, `push dir="$r"`}, // as written
		{`git log | grep x && git push --force`, `push`},
		{`bash -c 'git commit -m "a b" --no-verify'`, `commit no-verify bypass[--no-verify]`},
		{`sh -lc "git push"`, `push`},
		{`eval "git commit -n -m x"`, `commit no-verify bypass[--no-verify]`},
		{`'git' "commit" -m x`, `commit`},
		{`g\it push`, `push`},
		{`git commit -m "$(cat msg)"`, `commit`},
		{"cat <<'EOF' > notes.txt\ngit commit -m x\nEOF", ``}, // a heredoc is data
		// What cannot be read may commit or push.
		{`$GIT commit -m x`, `unknown`},
		{`git $SUB`, `unknown`},
		{`sh -c "$SCRIPT"`, `unknown`},
		{`eval "$CMD"`, `unknown`},
		{`git commit -m "unterminated`, `unknown`},
		{`$EDITOR file.txt`, ``}, // an expansion, but nothing of git in sight
	}
	for _, tt := range tests {
		if got := summary(Scan(tt.command)); got != tt.want {
			t.Errorf("Scan(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}

func TestReportHas(t *testing.T) {
	t.Parallel()
	r := Scan("git commit -m x")
	if !r.Has("commit") || r.Has("push") || len(r.Of("commit")) != 1 {
		t.Errorf("%+v", r)
	}
	u := Scan("$GIT push")
	if !u.Has("commit") || !u.Has("push") || u.Why == "" {
		t.Errorf("unknown: %+v", u)
	}
}

// TestNoVerifyAgreesWithGit: for each commit and push command, whether Scan says the repository's
// hook is skipped agrees with whether the real git CLI ran it.
func TestNoVerifyAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	t.Parallel()
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.git")
	repo := filepath.Join(dir, "repo")
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "EMPTY=")
	run := func(dir, command string) error {
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", command, err, out)
		}
		return nil
	}
	for _, c := range []string{"git init -q --bare " + remote, "git init -q -b main " + repo} {
		if err := run(dir, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{
		"git remote add origin " + remote,
		"printf '#!/bin/sh\\necho ran >> .git/hook-ran\\n' > .git/hooks/pre-commit",
		"cp .git/hooks/pre-commit .git/hooks/pre-push",
		"chmod +x .git/hooks/pre-commit .git/hooks/pre-push",
	} {
		if err := run(repo, c); err != nil {
			t.Fatal(err)
		}
	}
	commands := []string{
		"git commit --allow-empty -m x",
		"git commit --allow-empty -n -m x",
		"git commit --allow-empty -nm x",
		"git commit --allow-empty -m -n",
		"git commit --allow-empty --no-verif -m x",
		"git commit --allow-empty --no-verify --verify -m x",
		"git -c core.hooksPath=/nonexistent commit --allow-empty -m x",
		"git --config-env=core.hooksPath=EMPTY commit --allow-empty -m x",
		"git push -q origin main",
		"git push -q --no-verify origin main",
		"git push -q -n origin main",
	}
	for _, c := range commands {
		hookRan := filepath.Join(repo, ".git", "hook-ran")
		os.Remove(hookRan)
		if err := run(repo, c); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(hookRan)
		ran := err == nil
		r := Scan(c)
		if len(r.Ops) != 1 {
			t.Fatalf("%q: %+v", c, r)
		}
		skipped := r.Ops[0].NoVerify || r.Ops[0].HooksPath != nil
		if skipped == ran {
			t.Errorf("%q: git ran the hook: %v; Scan says skipped: %v", c, ran, skipped)
		}
	}
}
