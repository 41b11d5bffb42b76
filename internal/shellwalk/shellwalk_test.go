package shellwalk

import (
	"strings"
	"testing"
)

func TestWalk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		command string
		want    []string
	}{
		// The shell's own structure.
		{`git status && git diff`, []string{`git status`, `git diff`}},
		{`a | b || c; d & e`, []string{`a`, `b`, `c`, `d`, `e`}},
		{`(cd sub && make) ; { ls; }`, []string{`cd sub`, `make`, `ls`}},
		{`if test -f x; then rm x; else touch x; fi`, []string{`test -f x`, `rm x`, `touch x`}},
		{`for f in a b; do wc -l "$f"; done`, []string{`wc -l "$f"`}},
		{`while read l; do echo "$l"; done < f`, []string{`read l`, `echo "$l"`}},
		{`f() { rm -rf /tmp/x; }; f`, []string{`rm -rf /tmp/x`, `f`}},
		{`echo $(date) "$(whoami)" ` + "`id`", []string{`echo $(date) "$(whoami)" ` + "`id`", `$(…)>date`, `$(…)>whoami`, `$(…)>id`}},
		{`diff <(sort a) >(tee b)`, []string{`diff <(sort a) >(tee b)`, `<(…)>sort a`, `>(…)>tee b`}},
		{`x=$(git rev-parse HEAD)`, []string{`$(…)>git rev-parse HEAD`}},
		{`[[ $(id -u) == 0 ]] && time nice make`, []string{`$(…)>id -u`, `*nice`, `nice>make`}},
		{"cat <<EOF\n$(git push)\nEOF", []string{`cat`, `$(…)>git push`}},
		{"cat <<'EOF'\n$(git push)\nEOF", []string{`cat`}},
		// Words: literal values, quotes and escapes removed; expansions by their source.
		{`'g'"i"t p\ush -m "a b"`, []string{`git push -m a b`}},
		{`git commit -m "$MSG" -- *.go`, []string{`git commit -m "$MSG" -- *.go`}},
		{`export A=1; B=2 env C=3 git push`, []string{`export A=1`, `A=1 B=2 *env C=3`, `A=1 B=2 C=3 env>git push`}},
		{`declare -x A=1; git push`, []string{`declare -x A=1`, `A=1 git push`}},
		{`A=1; git push`, []string{`git push`}},
		{`A=1; export A; git push`, []string{`export A`, `A=1 git push`}},
		{`set -a; A=1; git push`, []string{`set -a`, `A=1 git push`}},
		// Programs named by expansions.
		{`$EDITOR notes.txt`, []string{`$EDITOR notes.txt !named by the environment`}},
		{`"$@"`, []string{`"$@" !named by the environment`}},
		{`X=git; $X push`, []string{`$X push !named by an expansion`}},
		{`for X in a; do $X; done`, []string{`$X !named by an expansion`}},
		{`$(git --exec-path)/git-push`, []string{`$(git --exec-path)/git-push !named by an expansion`, `$(…)>git --exec-path`}},
		{`/usr/lib/git-core/git-pu?h`, []string{`/usr/lib/git-core/git-pu?h !named by an expansion`}},
		{`{git,push}`, []string{`{git,push} !named by an expansion`}},
		{`[ -f x ] && echo {} [x`, []string{`[ -f x ]`, `echo {} [x`}},
		// Wrappers: their own words, then what they run.
		{`sudo -u bob -E HUSKY=0 git push`, []string{`*sudo -u bob -E HUSKY=0`, `HUSKY=0 sudo>git push`}},
		{`sudo -l`, []string{`sudo -l`}},
		{`timeout -s KILL 30s nice -n 5 nohup git push`, []string{`*timeout -s KILL 30s`, `timeout>*nice -n 5`, `timeout>nice>*nohup`, `timeout>nice>nohup>git push`}},
		{`command -v git`, []string{`command -v git`}},
		{`command -p git push`, []string{`*command -p`, `command>git push`}},
		{`exec -a x git push`, []string{`*exec -a x`, `exec>git push`}},
		{`stdbuf -oL git push`, []string{`*stdbuf -oL`, `stdbuf>git push`}},
		{`/usr/bin/time -f %e git push`, []string{`*/usr/bin/time -f %e`, `time>git push`}},
		{`ionice -c3 -n7 git push`, []string{`*ionice -c3 -n7`, `ionice>git push`}},
		{`ionice -p 42`, []string{`ionice -p 42`}},
		{`chrt -f 10 git push`, []string{`*chrt -f 10`, `chrt>git push`}},
		{`taskset -c 0-3 git push`, []string{`*taskset -c 0-3`, `taskset>git push`}},
		{`strace -f -e trace=execve -o log git push`, []string{`*strace -f -e trace=execve -o log`, `strace>git push`}},
		{`fakeroot -- git commit`, []string{`*fakeroot --`, `fakeroot>git commit`}},
		{`flock -w 5 /tmp/l git push`, []string{`*flock -w 5 /tmp/l`, `flock>git push`}},
		{`flock /tmp/l -c 'git push'`, []string{`*flock /tmp/l -c git push`, `flock -c>git push`}},
		{`chroot /srv git push`, []string{`*chroot /srv`, `chroot>git push`}},
		{`busybox timeout 5 git push`, []string{`*busybox`, `busybox>*timeout 5`, `busybox>timeout>git push`}},
		{`git.exe push`, []string{`git.exe push`}},
		// env: options, assignments, -S strings.
		{`env -i -u X -C /tmp A=1 git push`, []string{`*env -i -u X -C /tmp A=1`, `A=1 env>git push`}},
		{`env -S 'git push' origin`, []string{`*env -S git push`, `env>git push origin`}},
		{`env -S'A=1 git -c x=y push'`, []string{`*env -SA=1 git -c x=y push`, `A=1 env>git -c x=y push`}},
		{`env --split-string="git push"`, []string{`*env --split-string=git push`, `env>git push`}},
		{`env -S 'git push; rm x'`, []string{`env -S git push; rm x !unreadable`}},
		{`env -S "$X"`, []string{`env -S "$X" !unreadable`}},
		// Scripts: sh -c, eval, trap, stdin, files.
		{`bash -c 'git commit -m "a b"'`, []string{`*bash -c git commit -m "a b"`, `bash -c>git commit -m a b`}},
		{`sh -euxc 'git push' name arg`, []string{`*sh -euxc git push name arg`, `sh -c>git push`}},
		{`bash -o pipefail -c 'a | b'`, []string{`*bash -o pipefail -c a | b`, `bash -c>a`, `bash -c>b`}},
		{`zsh -lc "sudo git push"`, []string{`*zsh -lc sudo git push`, `zsh -c>*sudo`, `zsh -c>sudo>git push`}},
		{`busybox sh -c 'git push'`, []string{`*busybox`, `busybox>*sh -c git push`, `busybox>sh -c>git push`}},
		{`fish --command 'git push'`, []string{`*fish --command git push`, `fish -c>git push`}},
		{`HUSKY=0 sh -c 'git commit'`, []string{`HUSKY=0 *sh -c git commit`, `HUSKY=0 sh -c>git commit`}},
		{`sh -c 'a | b' && sh -c 'c' && d "e f" | g`, []string{`*sh -c a | b`, `sh -c>a`, `sh -c>b`, `*sh -c c`, `sh -c>c`, `d e f`, `g`}},
		{`sh -c "$SCRIPT"`, []string{`sh -c "$SCRIPT" !script from an expansion`}},
		{`sh -c 'git push "$1"' _ "$X"`, []string{`*sh -c git push "$1" _ "$X"`, `sh -c>git push "$1"`}},
		{`sh -c 'sh -c "sh -c \"git push\""'`, []string{`*sh -c sh -c "sh -c \"git push\""`, `sh -c>*sh -c sh -c "git push"`, `sh -c>sh -c>*sh -c git push`, `sh -c>sh -c>sh -c>git push`}},
		{`eval "git commit" -n`, []string{`*eval git commit -n`, `eval>git commit -n`}},
		{`eval "$CMD"`, []string{`eval "$CMD" !script from an expansion`}},
		{`trap 'git push' EXIT`, []string{`*trap git push EXIT`, `trap>git push`}},
		{`trap - EXIT`, []string{`trap - EXIT`}},
		{`echo 'git push' | sh`, []string{`echo git push`, `*sh`, `sh>git push`}},
		{`printf 'git push\n' | bash -s`, []string{`printf git push\n`, `*bash -s`, `bash>git push`}},
		{`echo 'git push' | cat | sh`, []string{`echo git push`, `cat`, `*sh`, `sh>git push`}},
		{"sh <<'EOF'\ngit push\nEOF", []string{`*sh`, `sh>git push`}},
		{`bash <<< 'git push'`, []string{`*bash`, `bash>git push`}},
		{`sh <(echo git push)`, []string{`*sh <(echo git push)`, `sh>git push`, `<(…)>echo git push`}},
		{`curl -s https://x | sh`, []string{`curl -s https://x`, `sh !script from a file`}},
		// A script written in the command but expanded (or decoded) before the shell reads it.
		{`echo "git $SUB" | sh`, []string{`echo "git $SUB"`, `sh !script from an expansion`}},
		{`echo -e 'git\x20push' | sh`, []string{`echo -e git\x20push`, `sh !script from an expansion`}},
		{`printf '%d' 1 | sh`, []string{`printf %d 1`, `sh !script from an expansion`}},
		{"sh <<EOF\ngit $X\nEOF", []string{`sh !script from an expansion`}},
		{`xargs git <<< "$X"`, []string{`*xargs`, `xargs>git +`}},
		{"python3 <<EOF\nimport $M\nEOF", []string{"python3 !inline code[import $M\n]"}},
		{`sh ./push.sh`, []string{`sh ./push.sh !script from a file`}},
		{`. ./env.sh && source venv/bin/activate`, []string{`. ./env.sh !script from a file`, `source venv/bin/activate !script from a file`}},
		{`sh -c`, []string{`sh -c`}},
		{"alias p='git push'\np", []string{`*alias p=git push`, `alias p>git push`, `p`}},
		{`alias ll`, []string{`alias ll`}},
		// zsh: =cmd is a path, glob qualifiers run code, precommand modifiers.
		{`=git push`, []string{`=git push !named by an expansion`}},
		{`ls *(e:'git push':)`, []string{`ls *(e:'git push':)`, `e:'git push': !inline code[e:'git push':]`}},
		{`ls **/*(.)`, []string{`ls **/*(.)`}},
		{`noglob git push`, []string{`*noglob`, `noglob>git push`}},
		// Variables whose value the shell runs, names that run another program.
		{`PS4='$(git push)' bash -xc :`, []string{`PS4=$(git push) *bash -xc :`, `PS4=$(git push) bash -c>:`, `PS4>$(…)>git push`}},
		{`PROMPT_COMMAND='git push'`, []string{`PROMPT_COMMAND>git push`}},
		{`PS1='\u \$ '`, nil},
		{`hash -p /usr/bin/git g; g push`, []string{`hash -p /usr/bin/git g !unreadable`, `g push`}},
		{`hash -r`, []string{`hash -r`}},
		// Commands whose arguments are a script.
		{`watch -n1 git push`, []string{`*watch -n1 git push`, `watch>git push`}},
		{`watch -x git push`, []string{`*watch -x`, `watch>git push`}},
		{`ssh -p 22 host git push`, []string{`*ssh -p 22 host git push`, `ssh>git push`}},
		{`ssh host`, []string{`ssh host !script from a file`}},
		{`echo 'git push' | ssh host`, []string{`echo git push`, `*ssh host`, `ssh>git push`}},
		{`echo 'git push' | sudo -s`, []string{`echo git push`, `*sudo -s`, `sudo>git push`}},
		{`echo 'git push' | su bob`, []string{`echo git push`, `*su bob`, `su>git push`}},
		{`sudo -s git push`, []string{`*sudo -s`, `sudo>git push`}},
		{`script -qc 'git push' /dev/null`, []string{`*script -qc git push /dev/null`, `script -c>git push`}},
		{`su - bob -c 'git push'`, []string{`*su - bob -c git push`, `su -c>git push`}},
		{`runuser -u bob -- git push`, []string{`*runuser -u bob --`, `runuser>git push`}},
		{`sg dev -c 'git push'`, []string{`*sg dev -c git push`, `sg>git push`}},
		{`entr -s 'git push'`, []string{`*entr -s git push`, `entr>git push`}},
		{`echo 'git push' | at now`, []string{`echo git push`, `*at now`, `at>git push`}},
		{`pee 'git push' cat`, []string{`*pee git push cat`, `pee>git push`, `pee>cat`}},
		// Commands run over input: xargs, find, fd, parallel.
		{`echo push | xargs git`, []string{`echo push`, `*xargs`, `xargs>git push`}},
		{`printf 'a\nb\n' | xargs -n 1 git push origin`, []string{`printf a\nb\n`, `*xargs -n 1`, `xargs>git push origin a`, `xargs>git push origin b`}},
		{`echo x y | xargs -I{} git {}`, []string{`echo x y`, `*xargs -I{}`, `xargs>git x y`}},
		{`echo "'a b'" c | xargs -t git`, []string{`echo 'a b' c`, `*xargs -t`, `xargs>git a b c`}},
		{`git ls-files | xargs git`, []string{`git ls-files`, `*xargs`, `xargs>git +`}},
		{`xargs -a list git`, []string{`*xargs -a list`, `xargs>git +`}},
		{`cat list | xargs -I % git %`, []string{`cat list`, `*xargs -I %`, `xargs>git %`}},
		{`echo push | xargs`, []string{`echo push`, `*xargs`, `xargs>echo push`}},
		{`echo push | xargs sudo git`, []string{`echo push`, `*xargs`, `xargs>*sudo`, `xargs>sudo>git push`}},
		{`find . -name '*.go' -exec gofmt -l {} \; -exec git add {} +`, []string{`*find . -name *.go`, `find -exec>gofmt -l {}`, `find -exec>git add {} +`}},
		{`find . -exec git push \;`, []string{`*find .`, `find -exec>git push`}},
		{`find . -type f -delete`, []string{`find . -type f -delete`}},
		{`fd -e go -x gofmt -w`, []string{`*fd -e go -x`, `fd -x>gofmt -w +`}},
		{`fd -x git add {} ;`, []string{`*fd -x`, `fd -x>git add {}`}},
		{`parallel git ::: push pull`, []string{`*parallel git`, `parallel>git push`, `parallel>git pull`}},
		{`parallel -j2 'git {}' ::: push`, []string{`*parallel -j2 git {}`, `parallel>git push`}},
		{`parallel ::: 'git push' ls`, []string{`*parallel`, `parallel>git push`, `parallel>ls`}},
		{`parallel git :::: args.txt`, []string{`*parallel git`, `parallel>git +`}},
		{`cat cmds | parallel`, []string{`cat cmds`, `parallel !script from a file`}},
		// Interpreters' inline code.
		{`python3 -c 'import os; os.system("git push")'`, []string{`python3 -c import os; os.system("git push") !inline code[import os; os.system("git push")]`}},
		{`python3.12 -m pytest -q`, []string{`python3.12 -m pytest -q`}},
		{`node -e 'require("child_process").execSync("git push")'`, []string{`node -e require("child_process").execSync("git push") !inline code[require("child_process").execSync("git push")]`}},
		{`perl -e 'system "git"' -e 'print 1'`, []string{"perl -e system \"git\" -e print 1 !inline code[system \"git\"\nprint 1]"}},
		{`awk -F: '{print $1}' /etc/passwd`, []string{`awk -F: {print $1} /etc/passwd !inline code[{print $1}]`}},
		{`awk -f prog.awk data`, []string{`awk -f prog.awk data`}},
		{"python3 - <<'EOF'\nimport subprocess\nEOF", []string{"python3 - !inline code[import subprocess\n]"}},
		{`python3 script.py`, []string{`python3 script.py`}},
		{`expect -c 'spawn git push'`, []string{`expect -c spawn git push !inline code[spawn git push]`}},
		// What does not parse.
		{`git commit -m "unterminated`, []string{` !does not parse`}},
		{`sh -c 'git commit -m "x'`, []string{`*sh -c git commit -m "x`, `sh -c> !does not parse`}},
	}
	for _, tt := range tests {
		if got, want := summary(Walk(tt.command)), strings.Join(tt.want, "\n"); got != want {
			t.Errorf("Walk(%q):\n%s\nwant:\n%s", tt.command, got, want)
		}
	}
}

// TestWalkNestsNoDeeperThanMax: scripts nested past maxDepth are unreadable, not followed.
func TestWalkNestsNoDeeperThanMax(t *testing.T) {
	t.Parallel()
	script := "git push"
	for range maxDepth + 2 {
		script = "eval " + shellQuote(script)
	}
	cmds := Walk(script)
	last := cmds[len(cmds)-1]
	if last.Unknown != Unreadable || !strings.Contains(last.Why, "too deep") {
		t.Errorf("last = %+v", last)
	}
	for _, c := range cmds {
		if c.Name == "git" {
			t.Errorf("git read past the depth bound: %+v", c)
		}
	}
}

// TestWalkSubstitutionsNestNoDeeperThanMax: substitutions nested past maxSubst are unreadable,
// not followed. Each level's command holds the text of the levels inside it, so that 8,000 levels
// (24 KB) made 8,000 commands holding 96 MB of text between them; the words the walk returns now
// hold at most maxSubst+1 times the command's length.
func TestWalkSubstitutionsNestNoDeeperThanMax(t *testing.T) {
	t.Parallel()
	for _, open := range []string{"$(", "<(", "$(echo "} {
		n := 1000
		script := "echo " + strings.Repeat(open, n) + "git push" + strings.Repeat(")", n)
		cmds := Walk(script)
		if len(cmds) > maxSubst+2 {
			t.Errorf("%s: %d commands", open, len(cmds))
		}
		last := cmds[len(cmds)-1]
		if last.Unknown != Unreadable || !strings.Contains(last.Why, "too deep") {
			t.Errorf("%s: last = %+v", open, last)
		}
		text := 0
		for _, c := range cmds {
			if c.Name == "git" {
				t.Errorf("%s: git read past the depth bound: %+v", open, c)
			}
			for _, w := range c.Args {
				text += len(w.Source)
			}
		}
		if text > (maxSubst+1)*len(script) {
			t.Errorf("%s: the words hold %d bytes of a %d-byte command", open, text, len(script))
		}
	}
}

// TestWalkYieldsABoundedNumber: a command that runs more commands than the walker yields ends
// with an unreadable one, not with a silent cut.
func TestWalkYieldsABoundedNumber(t *testing.T) {
	t.Parallel()
	cmds := Walk(strings.Repeat("true; ", maxCommands+10) + "git push")
	if len(cmds) != maxCommands {
		t.Fatalf("%d commands", len(cmds))
	}
	if last := cmds[len(cmds)-1]; last.Unknown != Unreadable || !strings.Contains(last.Why, "too many") {
		t.Errorf("last = %+v", last)
	}
}

func TestCommandDetails(t *testing.T) {
	t.Parallel()
	cmds := Walk(`cd /r && HOME=/h git -C sub push 2>err.log >>out.log < in <<< here`)
	c := cmds[1]
	if c.Name != "git" || c.Depth != 0 || len(c.Via) != 0 || c.Opaque() != true {
		t.Errorf("git: %+v", c)
	}
	var redirs []string
	for _, r := range c.Redirs {
		redirs = append(redirs, r.N+r.Op+r.Target.Text())
	}
	if got, want := strings.Join(redirs, " "), "2>err.log >>out.log <in <<<here"; got != want {
		t.Errorf("redirs = %q, want %q", got, want)
	}
	if len(c.Env) != 1 || c.Env[0].Name != "HOME" || c.Env[0].Value.Value != "/h" {
		t.Errorf("env = %+v", c.Env)
	}
	nested := Walk(`sh -c 'eval "git push"'`)
	if got := nested[len(nested)-1]; got.Depth != 2 || strings.Join(got.Via, ",") != "sh -c,eval" {
		t.Errorf("nested = %+v", got)
	}
	for name, opaque := range map[string]bool{"ls": false, "sudo": false, "python3": false, "git": true, "make": true} {
		if got := (Command{Name: name}).Opaque(); got != opaque {
			t.Errorf("%s: Opaque() = %v", name, got)
		}
	}
	if !Runs("/usr/bin/sudo") || !Runs("xargs") || Runs("ls") || Runs("git") {
		t.Error("Runs")
	}
}

func TestScriptAndArgv(t *testing.T) {
	t.Parallel()
	parent := Walk(`HUSKY=0 git log`)[0]
	if got, want := summary(parent.Script("sudo git push", "core.pager")), "HUSKY=0 core.pager>*sudo\nHUSKY=0 core.pager>sudo>git push"; got != want {
		t.Errorf("Script:\n%s\nwant:\n%s", got, want)
	}
	if got := parent.Script("git push", "x")[0].Depth; got != 1 {
		t.Errorf("Script depth = %d", got)
	}
	if got, want := summary(parent.Argv([]Word{Lit("env"), Lit("git"), Lit("push")}, "guess")), "HUSKY=0 guess>*env\nHUSKY=0 guess>env>git push"; got != want {
		t.Errorf("Argv:\n%s\nwant:\n%s", got, want)
	}
}

func TestPattern(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"*.go": true, "a?": true, "[ab]": true, "[": false, "x]": false, `\*`: false,
		"{a,b}": true, "{1..3}": true, "{}": false, "{x}": false, "plain": false,
	} {
		if got := pattern(s); got != want {
			t.Errorf("pattern(%q) = %v", s, got)
		}
	}
}

// typicalCommands are Bash tool calls as coding agents write them.
var typicalCommands = []string{
	`cd /repo && go test ./... 2>&1 | tail -20`,
	`git add -A && git commit -m "fix: handle empty input" && git push origin HEAD`,
	`grep -rn "TODO" --include=*.go . | head -50`,
	`npm run build && npm test -- --coverage`,
	`git status --short && git diff --stat`,
	`for f in $(ls *.txt); do wc -l "$f"; done`,
}

func BenchmarkWalk(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range typicalCommands {
			Walk(c)
		}
	}
}

// TestResolvedWords: a word that expands only variables whose values are known where it stands
// has its Resolved value; the others do not, and none of them is Literal.
func TestResolvedWords(t *testing.T) {
	tests := []struct {
		script string
		want   string // the last command's last word, resolved ("" when not Known)
	}{
		{`F=.autoagent/config.json; echo {} > x; cat $F`, ".autoagent/config.json"},
		{`D=.autoagent; cat "$D/config.json"`, ".autoagent/config.json"},
		{`cat $HOME/.ssh/id_rsa`, "/home/u/.ssh/id_rsa"},
		{`cat ${HOME}/x`, "/home/u/x"},
		{`cat $HOMEDIR/x`, ""},
		{`F=$(pwd)/x; cat $F`, ""},
		{`read F; cat $F`, ""},
		{`cat $UNSET/x`, ""},
		{`cat $F*`, ""},
		{`HOME=/other; cat $HOME/x`, "/other/x"},
	}
	for _, tt := range tests {
		cmds := WalkKnown(tt.script, map[string]string{"HOME": "/home/u"})
		last := cmds[len(cmds)-1]
		w := last.Args[len(last.Args)-1]
		got := ""
		if w.Known {
			got = w.Resolved
		}
		if got != tt.want || w.Literal {
			t.Errorf("%s: resolved %q (known %v, literal %v), want %q", tt.script, got, w.Known, w.Literal, tt.want)
		}
	}
}
