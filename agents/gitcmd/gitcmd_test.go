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
		if op.Command != op.Subcommand {
			s += "(" + op.Command + ")"
		}
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

// TestScanSeesThrough: the forms that commit or push without writing `git commit` / `git push`
// plainly — git's dashed programs, its other committing and pushing commands, aliases, commands
// git runs from its configuration and options, wrappers, xargs, find -exec — are read as the op
// they run, or as unknown when they cannot be read: never as nothing.
func TestScanSeesThrough(t *testing.T) {
	t.Parallel()
	tests := []struct{ command, want string }{
		// git's dashed programs, from its exec-path or anywhere.
		{`/usr/lib/git-core/git-commit -m x`, `commit`},
		{`/usr/libexec/git-core/git-push origin main`, `push`},
		{`git-receive-pack /srv/repo.git`, `push(receive-pack) bypass[git receive-pack runs none of the repository's hooks]`},
		{`$(git --exec-path)/git-push`, `unknown`},
		{`"$(git --exec-path)/git-commit" -m x`, `unknown`},
		{`/usr/lib/git-core/git-pu?h`, `unknown`},
		{`git-cliff -o CHANGELOG.md`, ``}, // not one of git's programs: runs only as itself
		// git's other commands that commit or push.
		{`git send-pack ../remote.git main`, `push(send-pack) bypass[git send-pack runs none of the repository's hooks]`},
		{`git http-push https://x/r.git main`, `push(http-push) bypass[git http-push runs none of the repository's hooks]`},
		{`git subtree push --prefix=lib origin lib`, `commit(subtree push) | push(subtree push)`},
		{`git subtree -P lib split --rejoin`, `commit(subtree split)`},
		{`git remote-https origin https://x/r.git`, `push(remote-https) bypass[git remote-https runs none of the repository's hooks]`},
		{`git merge --no-verify feature`, `commit(merge) no-verify bypass[--no-verify]`},
		{`git merge -n feature`, `commit(merge)`}, // merge's -n is --no-stat
		{`git pull --rebase`, `commit(pull)`},
		{`git rebase main`, `commit(rebase)`},
		{`git cherry-pick abc && git revert def`, `commit(cherry-pick) | commit(revert)`},
		{`git am < p.patch`, `commit(am)`},
		{`git stash && git stash pop`, `commit(stash)`},
		{`git stash push -m wip -- a.go`, `commit(stash push)`},
		{`git stash list; git stash show -p`, ``},
		{`git notes add -m x && git notes list`, `commit(notes add)`},
		{`git notes --ref review append -m x`, `commit(notes append)`},
		{`git update-ref refs/heads/main $(git commit-tree HEAD^{tree} -p HEAD -m x)`, `commit(commit-tree) bypass[git commit-tree runs none of the repository's hooks]`},
		{`git hash-object -w -t commit c.txt`, `commit(hash-object) bypass[git hash-object runs none of the repository's hooks]`},
		{`git hash-object -w a.txt`, ``},
		{`git fast-import < stream`, `commit(fast-import) bypass[git fast-import runs none of the repository's hooks]`},
		{`git replace --graft HEAD`, `commit(replace)`},
		{`git replace -l`, ``},
		{`git filter-branch --msg-filter cat`, `commit(filter-branch)`},
		{`git svn dcommit`, `commit(svn dcommit) | push(svn dcommit)`},
		{`git p4 submit`, `commit(p4 submit) | push(p4 submit)`},
		{`git submodule update --remote --merge`, `commit(submodule update)`},
		{`git submodule update --init`, ``},
		{`git reset --hard HEAD~1 && git branch -f x HEAD`, ``},
		// Aliases: set on the command line, in the environment or by git config in the command.
		{`git -c alias.p=push p origin`, `push`},
		{`git -c alias.P=push P`, `push`},
		{`git -c alias.c='commit --no-verify' c -m x`, `commit no-verify bypass[--no-verify]`},
		{`git -c alias.x='-c core.hooksPath=/dev/null commit' x -m y`, `commit hooksPath=/dev/null bypass[-c core.hooksPath=/dev/null]`},
		{`git -c alias.a=b -c alias.b=push a`, `push`},
		{`git -c alias.a=a a`, `unknown`}, // a loop
		{`git -c alias.s='!git push origin' s main`, `push`},
		{`git -c alias.s='!sh -c "$X"' s`, `unknown`},
		{`git -c alias.p="$P" p`, `unknown`},
		{`X=push git --config-env=alias.p=X p`, `push`},
		{`git --config-env=alias.p=FROM_ENV p`, `unknown`},
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p`, `push`},
		{`GIT_CONFIG_PARAMETERS="'alias.p'='push'" git p`, `push`},
		{`GIT_CONFIG_PARAMETERS="'core.hooksPath'='/dev/null'" git commit -m x`, `commit hooksPath=/dev/null bypass[GIT_CONFIG_PARAMETERS='core.hooksPath'='/dev/null']`},
		{`git config alias.p push && git p`, `push`},
		{`git config --global alias.p '!git push' && git p`, `push`},
		{`git config --file .git/config core.hooksPath /dev/null && git commit -m x`, `commit bypass[git config --file .git/config core.hooksPath /dev/null]`},
		{`git ci -m x`, `unknown`},         // an alias in a config file, or a git-ci program
		{`git lfs push origin`, `unknown`}, // a program git finds elsewhere
		{`git log --oneline`, ``},
		{`GIT_CONFIG_PARAMETERS="$P" git push`, `unknown`},
		// Other hook managers' switches, and configuration from files the reader does not read.
		{`HUSKY_SKIP_HOOKS=1 LEFTHOOK=0 git commit -m x`, `commit bypass[HUSKY_SKIP_HOOKS=1; LEFTHOOK=0]`},
		{`OVERCOMMIT_DISABLE=1 LEFTHOOK_EXCLUDE=lint git push`, `push bypass[LEFTHOOK_EXCLUDE=lint; OVERCOMMIT_DISABLE=1]`},
		{`LEFTHOOK=1 HUSKY=1 git commit -m x`, `commit`},
		{`GIT_CONFIG_GLOBAL=/tmp/cfg git commit -m x`, `commit bypass[GIT_CONFIG_GLOBAL=/tmp/cfg]`},
		{`git -c include.path=/tmp/cfg commit -m x`, `commit bypass[-c include.path=/tmp/cfg]`},
		{`hub push origin main`, `push`},
		{`PS4='$(git push)' bash -xc :`, `push`},
		{`hash -p /usr/bin/git g; g push`, `unknown`},
		{strings.Repeat("true; ", 5000) + "git push", `unknown`},
		{"mystery-wrapper " + strings.Repeat("sudo ", 5000) + "git push", `unknown`},
		// Commands git runs: configuration, environment, options.
		{`git -c core.pager='git push' log`, `push`},
		{`git -c core.sshCommand='sh -c "git push"' fetch`, `push`},
		{`git -c diff.x.textconv='git commit -m y' diff`, `commit`},
		{`git -c core.editor="$ED" commit`, `unknown`},
		{`GIT_EDITOR='git push' git commit`, `push | commit`},
		{`git config core.pager 'git push' && git log`, `push`},
		{`git rebase -x 'git push' main`, `push | commit(rebase)`},
		{`git rebase --exec='git push' main`, `push | commit(rebase)`},
		{`git fetch --upload-pack='git push; git-upload-pack' ../r`, `push`},
		{`git submodule foreach 'git push'`, `push`},
		{`git submodule foreach --recursive git commit -am x`, `commit`},
		{`git bisect run sh -c 'git push'`, `push`},
		{`git for-each-repo --config=maintenance.repo push`, `push`},
		{`git filter-branch --tree-filter 'git push' HEAD`, `push | commit(filter-branch)`},
		{`git push 'ext::sh -c git%20push'`, `unknown`},
		{`git -c protocol.ext.allow=user fetch origin`, `unknown`},
		{`GIT_ALLOW_PROTOCOL=file:ext git fetch origin`, `unknown`},
		{`git config protocol.allow always`, `unknown`},
		{`git -c submodule.x.update='!git push' submodule update`, `push`},
		{`GIT_SEQUENCE_EDITOR="sed -i 's/^pick/exec git push #/'" git rebase -i HEAD~2`, `unknown`},
		{`git -c sequence.editor=true rebase -i HEAD~2`, `unknown`},
		{`git rebase -i HEAD~2`, `commit(rebase)`}, // the user's own editor
		{`GIT_EDITOR=true git rebase --continue`, `commit(rebase)`},
		{`git config include.path /tmp/cfg && git commit -m x`, `commit bypass[git config include.path /tmp/cfg]`},
		{`git -c protocol.ext.allow=always fetch x`, `unknown`},
		// Wrappers, known and not.
		{`env -S 'git push' origin`, `push`},
		{`env -S'HUSKY=0 git commit' -m x`, `commit bypass[HUSKY=0]`},
		{`busybox sh -c 'git push'`, `push`},
		{`script -qc 'git push' /dev/null`, `push`},
		{`flock /tmp/lock git push`, `push`},
		{`flock /tmp/lock -c 'git commit -m x'`, `commit`},
		{`ionice -c3 git push`, `push`},
		{`watch -n 60 git push`, `push`},
		{`strace -f -o /dev/null git push`, `push`},
		{`fakeroot git commit -m x`, `commit`},
		{`parallel git ::: push`, `push`},
		{`parallel 'git {}' ::: push commit`, `push | commit`},
		{`chrt -f 10 taskset -c 0 setsid stdbuf -oL git push`, `push`},
		{`su -c 'git push' bob`, `push`},
		{`ssh localhost 'cd repo && git push'`, `push`},
		{`echo 'git push origin' | sudo -s`, `push`},
		{`echo -e 'git\x20push' | sh`, `unknown`},
		{`echo "git $SUB" | bash`, `unknown`},
		{"bash <<EOF\ngit $X\nEOF", `unknown`},
		{"cat <<EOF | sh\ngit push\nEOF", `push`},
		{`xargs git <<< "$SUB"`, `unknown`},
		{`ssh localhost < cmds.sh`, ``}, // a script from a file, as ./cmds.sh
		{"alias p='git push'\np origin", `push`},
		{`=git push`, `unknown`},
		{`ls *(e:'git push':)`, `unknown`},
		{`noglob git push`, `push`},
		{`expect -c 'spawn git push'`, `unknown`},
		{`mystery-wrapper --flag git push`, `unknown`},
		{`mystery-wrapper sudo git commit -m x`, `unknown`},
		{`mystery-wrapper 'git push'`, `unknown`},
		{`tmux new-session -d 'git push origin main'`, `unknown`},
		{`mystery-wrapper git status`, ``},
		{`mystery-wrapper sh -c "$X"`, `unknown`},
		{`mystery-wrapper --title 'sh -c "$X"'`, ``},
		{`apt-get install -y git curl`, ``},
		{`gh pr create --title "Fix git push on Windows" --body "Run git push later"`, ``},
		{`docker run --rm img git --version`, ``},
		// xargs and find.
		{`echo push | xargs git`, `push`},
		{`echo 'push origin main' | xargs git`, `push`},
		{`printf 'commit\n' | xargs -I{} git {} -m x`, `commit`},
		{`git ls-files -m | xargs git add`, ``},
		{`git ls-files -m | xargs git commit -m x`, `unknown`},
		{`cat subcommands | xargs git`, `unknown`},
		{`cat subcommands | xargs -I % git %`, `unknown`},
		{`find . -exec git push \;`, `push`},
		{`find . -name '*.go' -exec git add {} +`, ``},
		{`find . -exec {} \;`, `unknown`},
		// Interpreters' code.
		{`python3 -c 'import subprocess; subprocess.run(["git", "push"])'`, `unknown`},
		{`node -e 'require("child_process").execSync("git commit -m x")'`, `unknown`},
		{`python3 -c 'print(open(".gitignore").read())'`, ``},
		{`awk '{print $1}' f`, ``},
		// Programs named by expansions.
		{`X=git; $X push`, `unknown`},
		{`$RUNNER -c alias.p=push p`, `unknown`},
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

// FuzzScan: no command makes Scan panic (a panic would end the hook without an answer).
func FuzzScan(f *testing.F) {
	for _, c := range []string{
		`git -c alias.p=push p`, `echo push | xargs -n1 git`, `env -S'git push'`, `find . -exec git {} +`,
		`parallel 'git {}' ::: push`, `sh <<EOF` + "\ngit $X\nEOF", `su -c`, `flock f -c`, `xargs -I`,
		`git -c`, `git config alias.p`, `printf '%s' | sh`, `awk -f`, `python3 -c`, `ls *(e:x:)`,
		`PS4='$(git push)' bash -x`, `git submodule foreach`, `git -c alias.a='!' a`,
	} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, command string) {
		Scan(command)
	})
}
