package shellwalk

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The programs the walker knows, as data. A program not listed here is opaque
// ([Command.Opaque]): the walker yields it and nothing of its arguments.

// wrapperSpec is the wrapper called name, which runs the command that follows its own options
// and operands; false if name is none.
func wrapperSpec(name string) (spec, bool) {
	switch name {
	// Shell builtins.
	case "command":
		return spec{noCmd: "-v -V"}, true
	case "exec":
		return spec{valued: "-a"}, true
	case "builtin":
		return spec{}, true
	// Privileges, users, namespaces.
	case "sudo":
		return spec{valued: "-u -g -C -D -h -p -U -r -t -T -R --user --group --close-from --chdir --host --prompt --other-user --role --type --command-timeout --chroot",
			noCmd: "-e -l -v -K -V --edit --list --validate --remove-timestamp --version", assigns: true,
			login: "-s -i --shell --login"}, true
	case "doas":
		return spec{valued: "-a -C -u", login: "-s"}, true
	case "pkexec":
		return spec{valued: "--user"}, true
	case "gosu":
		return spec{operands: 1}, true
	case "su-exec":
		return spec{operands: 1}, true
	case "setpriv":
		return spec{valued: "--reuid --regid --ruid --euid --rgid --egid --groups --inh-caps --ambient-caps --bounding-set --securebits --selinux-label --apparmor-profile --landlock-access --landlock-rule --pdeathsig"}, true
	case "unshare":
		return spec{valued: "-S -G -R -w --setuid --setgid --root --wd", alone: true}, true
	case "nsenter":
		return spec{valued: "-t -S -G --target --setuid --setgid", alone: true}, true
	case "chroot":
		return spec{valued: "--userspec --groups", operands: 1, alone: true}, true
	case "chpst":
		return spec{valued: "-u -U -e -/ -n -l -L -m -d -o -p -f -c -r -t"}, true
	case "firejail":
		return spec{}, true
	// Scheduling, limits, timing.
	case "nice":
		return spec{valued: "-n --adjustment"}, true
	case "ionice":
		return spec{valued: "-c -n -p -P -u --class --classdata --pid --pgid --uid", noCmd: "-p -P -u --pid --pgid --uid"}, true
	case "chrt":
		return spec{valued: "-T -P -D --sched-runtime --sched-period --sched-deadline", noCmd: "-p --pid", operands: 1}, true
	case "taskset":
		return spec{noCmd: "-p --pid", operands: 1}, true
	case "timeout":
		return spec{valued: "-s -k --signal --kill-after", operands: 1}, true
	case "time":
		return spec{valued: "-f -o --format --output"}, true
	case "prlimit":
		return spec{valued: "-p --pid"}, true
	case "cpulimit":
		return spec{valued: "-l -p -e --limit --pid --exe"}, true
	case "trickle":
		return spec{valued: "-u -d -w -t -l -n"}, true
	case "faketime":
		return spec{operands: 1}, true
	// Process and terminal plumbing.
	case "nohup":
		return spec{}, true
	case "setsid":
		return spec{}, true
	case "stdbuf":
		return spec{valued: "-i -o -e --input --output --error"}, true
	case "unbuffer":
		return spec{}, true
	case "chronic":
		return spec{}, true
	case "ifne":
		return spec{}, true
	case "nocache":
		return spec{}, true
	case "eatmydata":
		return spec{}, true
	case "catchsegv":
		return spec{}, true
	case "rlwrap":
		return spec{valued: "-a -b -C -D -e -f -H -l -o -O -p -P -q -s -S -t -w -z"}, true
	case "winpty":
		return spec{}, true
	case "fakeroot":
		return spec{valued: "-l -s -i -b --lib --faked"}, true
	case "strace":
		return spec{valued: "-a -b -e -E -I -o -O -p -P -s -S -u -U -X"}, true
	case "ltrace":
		return spec{valued: "-a -A -D -e -F -l -n -o -p -s -u -x -w"}, true
	case "xvfb-run":
		return spec{valued: "-e -f -n -p -s -w --error-file --auth-file --server-num --xauth-protocol --server-args --wait"}, true
	case "dbus-run-session":
		return spec{}, true
	case "systemd-run":
		return spec{valued: "-p -E -M -H -u --property --setenv --machine --host --unit --description --slice"}, true
	case "torsocks":
		return spec{valued: "-u -p -a -P"}, true
	case "proxychains":
		return spec{valued: "-f"}, true
	case "proxychains4":
		return spec{valued: "-f"}, true
	case "caffeinate":
		return spec{valued: "-w -t"}, true
	case "entr":
		return spec{shell: "-s"}, true
	// Commands whose arguments are one script, joined by spaces and run by a shell.
	case "watch":
		return spec{valued: "-n -q --interval --equexit", joined: true, argv: "-x --exec"}, true
	case "ssh":
		return spec{valued: "-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B", noCmd: "-N -O -V",
			operands: 1, joined: true, alone: true}, true
	// zsh's precommand modifiers.
	case "noglob":
		return spec{}, true
	case "nocorrect":
		return spec{}, true
	}
	return spec{}, false
}

// shells read a script: `-c SCRIPT`, a file, or their standard input.
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "lksh", "oksh", "pdksh",
	"ash", "yash", "posh", "hush", "rbash", "fish", "csh", "tcsh"}

// interpreterSpec is the interpreter called name, which runs inline code: the options whose
// value is code, the options that take a value; false if name is none.
func interpreterSpec(name string) (interp, bool) {
	switch name {
	case "python":
		return interp{code: "-c", valued: "-W -X -Q", stop: "-m"}, true
	case "node":
		return interp{code: "-e -p --eval --print", valued: "-r --require --import --loader --experimental-loader -C --conditions"}, true
	case "nodejs":
		return interp{code: "-e -p --eval --print", valued: "-r --require --import --loader --experimental-loader -C --conditions"}, true
	case "bun":
		return interp{code: "-e -p --eval --print", valued: "-r --preload"}, true
	case "perl":
		return interp{code: "-e -E", valued: "-I -M -m -x -l -0"}, true
	case "ruby":
		return interp{code: "-e", valued: "-I -r -C -E -F"}, true
	case "php":
		return interp{code: "-r", valued: "-c -d -z", file: "-f"}, true
	case "lua":
		return interp{code: "-e", valued: "-l"}, true
	case "luajit":
		return interp{code: "-e", valued: "-l"}, true
	case "Rscript":
		return interp{code: "-e"}, true
	case "osascript":
		return interp{code: "-e"}, true
	case "expect":
		return interp{code: "-c"}, true
	case "pwsh":
		return interp{code: "-c -Command -command -EncodedCommand"}, true
	case "powershell":
		return interp{code: "-c -Command -command -EncodedCommand"}, true
	case "awk":
		return interp{code: "-e --source", valued: "-v -F -i -l --assign --field-separator --include --load", file: "-f -E --file --exec", program: true}, true
	case "gawk":
		return interp{code: "-e --source", valued: "-v -F -i -l --assign --field-separator --include --load", file: "-f -E --file --exec", program: true}, true
	case "mawk":
		return interp{valued: "-v -F -W", file: "-f", program: true}, true
	case "nawk":
		return interp{valued: "-v -F", file: "-f", program: true}, true
	}
	return interp{}, false
}

// inert run nothing of their arguments: the shell's builtins that run no command, and the
// common programs that only read or write data.
var inert = []string{
	// Builtins.
	"cd", "pwd", "echo", "printf", "read", "test", "[", "true", "false", ":", "exit", "return",
	"shift", "unset", "export", "readonly", "local", "declare", "typeset", "let", "wait", "jobs",
	"kill", "umask", "ulimit", "type", "getopts", "pushd", "popd", "dirs", "shopt",
	"history", "bg", "fg", "disown", "mapfile", "readarray", "times", "break", "continue",
	// Files and text.
	"cat", "tac", "ls", "dir", "cp", "mv", "rm", "rmdir", "mkdir", "ln", "touch", "chmod", "chown",
	"chgrp", "head", "tail", "wc", "uniq", "cut", "tr", "paste", "join", "comm", "diff", "cmp",
	"grep", "egrep", "fgrep", "basename", "dirname", "realpath", "readlink", "stat", "file",
	"du", "df", "date", "sleep", "seq", "yes", "tee", "mktemp", "printenv", "which", "whereis",
	"id", "whoami", "uname", "hostname", "expr", "od", "hexdump", "xxd", "base64", "base32",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "column", "fold", "fmt", "nl",
	"rev", "truncate", "jq", "wget", "curl",
}

// spec says how a wrapper takes its command from its arguments. Options are written as in a
// command line ("-u --user"); an option not listed takes no value.
type spec struct {
	valued   string // options that take a value (-u USER, --user=USER)
	script   string // options whose value is a shell script (flock -c)
	noCmd    string // options after which no command runs (command -v)
	operands int    // operands between the options and the command (timeout's duration)
	assigns  bool   // NAME=VALUE words before the command set its environment (sudo)
	joined   bool   // the command's words are joined into one script run by a shell (watch)
	argv     string // with joined: options after which they are a command line again (watch -x)
	shell    string // options that make the first operand a script (entr -s)
	login    string // options after which, given no command, it runs a shell reading its input (sudo -s)
	alone    bool   // given no command, it runs a shell reading its input (chroot, ssh)
}

// interp says how an interpreter takes inline code.
type interp struct {
	code    string // options whose value is code (python -c)
	valued  string // other options that take a value
	file    string // options whose value is a program file (awk -f): no inline program then
	stop    string // options that end the interpreter's options and run something else (python -m)
	program bool   // the first operand is the program, as awk's (unless file was given)
}

type program struct {
	run func(w *walker, c Command, f frame, stdin *input) // nil: runs nothing of its arguments
}

// lookup is the program known by name. The tables are code and data, not maps built at start
// or on first use: a call reads a few names, and building every table cost each tool call more
// than the walk. Where two tables name a program, the first looked at here wins.
func lookup(name string) (program, bool) {
	if run := special(name); run != nil {
		return program{run: run}, true
	}
	if it, ok := interpreterSpec(name); ok {
		return program{run: func(w *walker, c Command, f frame, stdin *input) { it.compile().runInterp(w, c, f, stdin) }}, true
	}
	if slices.Contains(shells, name) {
		return program{run: runShell}, true
	}
	if s, ok := wrapperSpec(name); ok {
		return program{run: func(w *walker, c Command, f frame, stdin *input) { s.compile().runWrapper(w, c, f, stdin) }}, true
	}
	if slices.Contains(inert, name) {
		return program{}, true
	}
	return program{}, false
}

// special are the programs with a walk of their own.
func special(name string) func(*walker, Command, frame, *input) {
	switch name {
	case "env":
		return runEnv
	case "eval":
		return runEval
	case "source", ".":
		return runSource
	case "trap":
		return runTrap
	case "xargs":
		return runXargs
	case "find":
		return runFind
	case "fd", "fdfind":
		return runFd
	case "parallel", "sem":
		return runParallel
	case "busybox", "toybox":
		return runBusybox
	case "su", "runuser":
		return runSu
	case "sg":
		return runSg
	case "script":
		return runScript
	case "flock":
		return runFlock
	case "pee":
		return runPee
	case "at", "batch":
		return runAt
	case "alias":
		return runAlias
	case "hash", "enable":
		return runHash
	}
	return nil
}

// options is a compiled option table.
type options struct {
	shortValued, shortScript, shortNoCmd, shortArgv, shortShell, shortLogin string // option letters
	long                                                                    map[string]byte
	spec                                                                    spec
}

const (
	optValued byte = 1 << iota
	optScript
	optNoCmd
	optArgv
	optShell
	optLogin
)

func (s spec) compile() *options {
	o := &options{spec: s, long: map[string]byte{}}
	add := func(list string, short *string, kind byte) {
		for _, opt := range strings.Fields(list) {
			switch {
			case strings.HasPrefix(opt, "--"):
				o.long[opt] |= kind
			case len(opt) == 2:
				*short += opt[1:]
			default: // a long option written with one dash (pwsh -Command)
				o.long[opt] |= kind
			}
		}
	}
	add(s.valued, &o.shortValued, optValued)
	add(s.script, &o.shortScript, optScript)
	add(s.noCmd, &o.shortNoCmd, optNoCmd)
	add(s.argv, &o.shortArgv, optArgv)
	add(s.shell, &o.shortShell, optShell)
	add(s.login, &o.shortLogin, optLogin)
	return o
}

// parsed is what a program's options said.
type parsed struct {
	next   int   // the first word after the options
	script *Word // the value of a script option
	kinds  byte  // the kinds of option seen
}

// parse reads options from ws until the first operand or `--`.
func (o *options) parse(ws []Word) parsed {
	var p parsed
	i := 0
	for i < len(ws) {
		w := ws[i]
		if !w.Literal {
			break
		}
		v := w.Value
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		i++
		if kind, ok := o.long[v]; ok || strings.HasPrefix(v, "--") {
			name, val, has := strings.Cut(v, "=")
			if !ok {
				kind = o.long[name]
			}
			p.kinds |= kind
			if kind&(optValued|optScript) != 0 {
				value := Lit(val)
				if !has {
					if i >= len(ws) {
						break
					}
					value = ws[i]
					i++
				}
				if kind&optScript != 0 {
					p.script = &value
				}
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			ch := v[j]
			kind := o.shortKind(ch)
			p.kinds |= kind
			if kind&(optValued|optScript) == 0 {
				continue
			}
			value := Lit(v[j+1:])
			if j+1 == len(v) {
				if i >= len(ws) {
					break
				}
				value = ws[i]
				i++
			}
			if kind&optScript != 0 {
				p.script = &value
			}
			break
		}
	}
	p.next = i
	return p
}

func (o *options) shortKind(ch byte) byte {
	var k byte
	for _, s := range []struct {
		letters string
		kind    byte
	}{{o.shortValued, optValued}, {o.shortScript, optScript}, {o.shortNoCmd, optNoCmd}, {o.shortArgv, optArgv}, {o.shortShell, optShell}, {o.shortLogin, optLogin}} {
		if strings.IndexByte(s.letters, ch) >= 0 {
			k |= s.kind
		}
	}
	return k
}

func (o *options) runWrapper(w *walker, c Command, f frame, stdin *input) {
	s := o.spec
	ws := c.Args[1:]
	p := o.parse(ws)
	if p.kinds&optNoCmd != 0 {
		w.emit(c, f)
		return
	}
	if p.script != nil {
		w.nestedScript(c, c.Env, *p.script, c.Name+" -c", f, stdin)
		return
	}
	rest := ws[p.next:]
	for n := 0; n < s.operands && len(rest) > 0; n++ {
		rest = rest[1:]
	}
	env := c.Env
	if s.assigns {
		for len(rest) > 0 {
			name, value, ok := splitAssign(rest[0])
			if !ok {
				break
			}
			env = appendEnv(env, name, value)
			rest = rest[1:]
		}
	}
	own := len(c.Args) - len(rest)
	switch {
	case len(rest) == 0 && (s.alone || p.kinds&optLogin != 0):
		w.scriptFile(c, nil, c.Name, f, stdin) // a shell reading its input
	case len(rest) == 0:
		w.emit(c, f)
	case p.kinds&optShell != 0:
		c.Args = c.Args[:own+1]
		w.nestedScript(c, env, rest[0], c.Name, f, stdin)
	case s.joined && p.kinds&optArgv == 0:
		text, ok := joinWords(rest)
		w.nestedScript(c, env, Word{Value: text, Literal: ok, Source: sourceOf(rest)}, c.Name, f, stdin)
	default:
		w.wrap(c, own, env, rest, f, stdin)
	}
}

func appendEnv(env []Assign, name string, value Word) []Assign {
	out := make([]Assign, len(env), len(env)+1)
	copy(out, env)
	return append(out, Assign{Name: name, Value: value})
}

// runShell reads sh's options: `-c SCRIPT` (the script's words follow as $0, $1, …), a script
// file, or the script on its standard input.
func runShell(w *walker, c Command, f frame, stdin *input) {
	ws := c.Args[1:]
	cmode := false
	i := 0
options:
	for i < len(ws) {
		x := ws[i]
		if !x.Literal {
			break
		}
		v := x.Value
		switch {
		case v == "--" || v == "-":
			i++
			break options
		case v == "--command": // fish
			cmode = true
			i++
			continue
		case strings.HasPrefix(v, "--"):
			i++
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
			continue
		case len(v) < 2 || v[0] != '-' && v[0] != '+':
			break options
		}
		i++
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'c':
				cmode = true
			case 'o', 'O':
				if j == len(v)-1 {
					i++
				}
			}
		}
	}
	var operands []Word
	if i < len(ws) {
		operands = ws[i:]
	}
	switch {
	case cmode && len(operands) == 0:
		w.emit(c, f)
	case cmode:
		w.nestedScript(c, c.Env, operands[0], c.Name+" -c", f, stdin)
	case len(operands) == 0:
		w.scriptFile(c, nil, c.Name, f, stdin)
	default:
		w.scriptFile(c, &operands[0], c.Name, f, stdin)
	}
}

// runEval reads eval's words, joined, as a script.
func runEval(w *walker, c Command, f frame, stdin *input) {
	args := c.Args[1:]
	if len(args) > 0 && args[0].Literal && args[0].Value == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		w.emit(c, f)
		return
	}
	text, ok := joinWords(args)
	w.nestedScript(c, c.Env, Word{Value: text, Literal: ok, Source: sourceOf(args)}, "eval", f, stdin)
}

// runSource reads `. FILE` / `source FILE`: a file is not followed.
func runSource(w *walker, c Command, f frame, stdin *input) {
	if len(c.Args) < 2 {
		w.emit(c, f)
		return
	}
	w.scriptFile(c, &c.Args[1], c.Name, f, stdin)
}

// runTrap reads `trap ACTION SIGNAL…`: the action is a script.
func runTrap(w *walker, c Command, f frame, _ *input) {
	args := c.Args[1:]
	if len(args) > 0 && args[0].Literal && args[0].Value == "--" {
		args = args[1:]
	}
	if len(args) < 2 || args[0].Literal && (args[0].Value == "-" || args[0].Value == "" || strings.HasPrefix(args[0].Value, "-")) {
		w.emit(c, f)
		return
	}
	w.nestedScript(c, c.Env, args[0], "trap", f, nil)
}

// runEnv reads env's options, NAME=VALUE words and -S strings, then runs the command.
func runEnv(w *walker, c Command, f frame, stdin *input) {
	ws := c.Args[1:]
	origLeft := len(ws) // the words of ws that are c.Args' (the rest came from -S strings, in front)
	take := func() Word {
		x := ws[0]
		if len(ws) <= origLeft {
			origLeft--
		}
		ws = ws[1:]
		return x
	}
	env := c.Env
	for splits := 0; len(ws) > 0; {
		x := ws[0]
		if !x.Literal {
			break
		}
		v := x.Value
		if v == "--" {
			take()
			break
		}
		if v == "-" { // -i
			take()
			continue
		}
		if !strings.HasPrefix(v, "-") {
			name, value, ok := splitAssign(x)
			if !ok {
				break
			}
			env = appendEnv(env, name, value)
			take()
			continue
		}
		take()
		var split *Word
		if strings.HasPrefix(v, "--") {
			name, val, has := strings.Cut(v, "=")
			switch {
			case name == "--split-string" && has:
				s := Lit(val)
				split = &s
			case name == "--split-string" && len(ws) > 0:
				s := take()
				split = &s
			case (name == "--unset" || name == "--chdir") && !has && len(ws) > 0:
				take()
			}
		} else {
		letters:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'u', 'C':
					if j == len(v)-1 && len(ws) > 0 {
						take()
					}
					break letters
				case 'S':
					if j+1 < len(v) {
						s := Lit(v[j+1:])
						split = &s
					} else if len(ws) > 0 {
						s := take()
						split = &s
					}
					break letters
				}
			}
		}
		if split != nil {
			words, ok := splitString(*split)
			splits++
			if !ok || splits > maxDepth {
				c.Unknown, c.Why = Unreadable, "env -S splits a string the walker cannot read: "+split.Source
				w.emit(c, f)
				return
			}
			ws = append(words, ws...)
		}
	}
	if len(ws) == 0 {
		w.emit(c, f)
		return
	}
	c.Args, c.Wrapper = c.Args[:len(c.Args)-origLeft], true
	w.emit(c, f)
	w.run(ws, env, f.with("env"), stdin, nil)
}

// splitString splits env -S's string into words, as a shell would split one simple command.
func splitString(s Word) ([]Word, bool) {
	if !s.Literal {
		return nil, false
	}
	file, err := parse(s.Value)
	if err != nil || len(file.Stmts) != 1 {
		return nil, false
	}
	st := file.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Background || st.Negated {
		return nil, false
	}
	sc := &scope{src: s.Value}
	var out []Word
	for _, a := range call.Assigns {
		if a.Name == nil || a.Value == nil && a.Array != nil {
			return nil, false
		}
		v := Lit("")
		if a.Value != nil {
			v = sc.word(a.Value)
		}
		out = append(out, Word{Value: a.Name.Value + "=" + v.Value, Literal: v.Literal, Source: sc.text(a)})
	}
	return append(out, sc.words(call.Args)...), true
}

// runBusybox runs busybox's applet: `busybox sh -c …` is sh.
func runBusybox(w *walker, c Command, f frame, stdin *input) {
	if len(c.Args) < 2 || !c.Args[1].Literal || strings.HasPrefix(c.Args[1].Value, "-") {
		w.emit(c, f)
		return
	}
	w.wrap(c, 1, c.Env, c.Args[1:], f, stdin)
}

// runSu reads su's and runuser's -c script; `runuser -u USER cmd…` runs a command line.
func runSu(w *walker, c Command, f frame, stdin *input) {
	ws := c.Args[1:]
	for i := 0; i < len(ws); i++ {
		x := ws[i]
		if !x.Literal {
			continue
		}
		v := x.Value
		if v == "--" {
			break
		}
		if c.Name == "runuser" && (v == "-u" || v == "--user" || strings.HasPrefix(v, "--user=")) {
			o := spec{valued: "-u -g -G -s -w --user --group --supp-group --shell --whitelist-environment"}.compile()
			p := o.parse(ws)
			w.wrap(c, 1+p.next, c.Env, ws[p.next:], f, stdin)
			return
		}
		var script *Word
		switch {
		case v == "-c" || v == "--command" || v == "--session-command":
			if i+1 < len(ws) {
				script = &ws[i+1]
			}
		case strings.HasPrefix(v, "--command=") || strings.HasPrefix(v, "--session-command="):
			_, val, _ := strings.Cut(v, "=")
			s := Lit(val)
			script = &s
		case len(v) > 2 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v, 'c') > 0:
			at := strings.IndexByte(v, 'c')
			if at < len(v)-1 {
				s := Lit(v[at+1:])
				script = &s
			} else if i+1 < len(ws) {
				script = &ws[i+1]
			}
		case v == "-s" || v == "--shell" || v == "-g" || v == "--group" || v == "-G" || v == "--supp-group" || v == "-w" || v == "--whitelist-environment":
			i++
		}
		if script != nil {
			w.nestedScript(c, c.Env, *script, c.Name+" -c", f, stdin)
			return
		}
	}
	w.scriptFile(c, nil, c.Name, f, stdin) // a shell reading its input
}

// runSg reads `sg [-] GROUP [-c] COMMAND…`: the command, joined, is a script.
func runSg(w *walker, c Command, f frame, stdin *input) {
	ws := c.Args[1:]
	if len(ws) > 0 && ws[0].Literal && ws[0].Value == "-" {
		ws = ws[1:]
	}
	if len(ws) < 2 {
		w.emit(c, f)
		return
	}
	ws = ws[1:]
	if ws[0].Literal && ws[0].Value == "-c" {
		ws = ws[1:]
	}
	text, ok := joinWords(ws)
	w.nestedScript(c, c.Env, Word{Value: text, Literal: ok, Source: sourceOf(ws)}, "sg", f, stdin)
}

var scriptOptions = spec{valued: "-E -I -O -B -T -m -o --echo --log-in --log-out --log-io --log-timing --logging-format --output-limit", script: "-c --command"}.compile()

// runScript reads script(1): `script -c CMD`, or a shell reading its standard input.
func runScript(w *walker, c Command, f frame, stdin *input) {
	p := scriptOptions.parse(c.Args[1:])
	if p.script != nil {
		w.nestedScript(c, c.Env, *p.script, "script -c", f, stdin)
		return
	}
	w.scriptFile(c, nil, "script", f, stdin)
}

var flockOptions = spec{valued: "-w -E --timeout --conflict-exit-code"}.compile()

// runFlock reads `flock [options] FILE COMMAND…` and `flock [options] FILE -c SCRIPT`.
func runFlock(w *walker, c Command, f frame, stdin *input) {
	ws := c.Args[1:]
	p := flockOptions.parse(ws)
	rest := ws[p.next:]
	if len(rest) < 2 {
		w.emit(c, f)
		return
	}
	rest = rest[1:]
	if rest[0].Literal && (rest[0].Value == "-c" || rest[0].Value == "--command") {
		if len(rest) < 2 {
			w.emit(c, f)
			return
		}
		w.nestedScript(c, c.Env, rest[1], "flock -c", f, stdin)
		return
	}
	w.wrap(c, len(c.Args)-len(rest), c.Env, rest, f, stdin)
}

// runPee reads moreutils' pee: each operand is a script fed the same input.
func runPee(w *walker, c Command, f frame, stdin *input) {
	c.Wrapper = true
	w.emit(c, f)
	for _, a := range c.Args[1:] {
		if a.Literal && strings.HasPrefix(a.Value, "-") {
			continue
		}
		inner := Command{Args: []Word{a}, Name: "pee", Env: c.Env, Depth: c.Depth, Via: c.Via}
		if !a.Literal {
			inner.Unknown, inner.Why = ScriptExpansion, "pee runs a script named by an expansion: "+a.Source
			w.emit(inner, f)
			continue
		}
		w.script(a.Value, f.nested("pee"), stdin)
	}
}

// runAt reads at(1) and batch: the job is read from standard input, or -f FILE.
func runAt(w *walker, c Command, f frame, stdin *input) {
	for i, a := range c.Args[1:] {
		if a.Literal && a.Value == "-f" && i+2 < len(c.Args) {
			w.scriptFile(c, &c.Args[i+2], c.Name, f, nil)
			return
		}
		if a.Literal && (a.Value == "-l" || a.Value == "-r" || a.Value == "-d" || a.Value == "-c") {
			w.emit(c, f) // listing, removing or showing jobs
			return
		}
	}
	w.scriptFile(c, nil, c.Name, f, stdin)
}

// runAlias reads `alias NAME=VALUE`: a shell that expands aliases (an interactive one, or
// bash with expand_aliases, as some agents' shells are) runs VALUE where NAME is written.
func runAlias(w *walker, c Command, f frame, _ *input) {
	type def struct {
		name  string
		value Word
	}
	var defs []def
	for _, a := range c.Args[1:] {
		if name, value, ok := splitAssign(a); ok {
			if !a.Literal {
				value = Word{Source: value.Source}
			}
			defs = append(defs, def{name, value})
		}
	}
	if len(defs) == 0 {
		w.emit(c, f)
		return
	}
	c.Wrapper = true
	w.emit(c, f)
	for _, d := range defs {
		inner := f.nested("alias " + d.name)
		inner.env = c.Env
		if !d.value.Literal {
			w.emit(Command{Args: []Word{d.value}, Env: c.Env, Unknown: ScriptExpansion,
				Why: "alias " + d.name + " is set by an expansion: " + d.value.Source}, inner)
			continue
		}
		w.script(d.value.Value, inner, nil)
	}
}

// runHash reads `hash -p PATH NAME` (NAME now runs PATH) and `enable -f FILE NAME` (a builtin
// loaded from a file): the program a name runs is no longer its own.
func runHash(w *walker, c Command, f frame, _ *input) {
	flag := "p"
	if c.Name == "enable" {
		flag = "f"
	}
	for _, a := range c.Args[1:] {
		if a.Literal && len(a.Value) > 1 && a.Value[0] == '-' && strings.Contains(a.Value[1:], flag) {
			c.Unknown, c.Why = Unreadable, c.Name+" -"+flag+" makes a name run another program"
			break
		}
	}
	w.emit(c, f)
}

// runInterp reads an interpreter's inline code: the command is Code.
func (o *interpOptions) runInterp(w *walker, c Command, f frame, stdin *input) {
	ws := c.Args[1:]
	var code []Word
	file := false
	i := 0
loop:
	for i < len(ws) {
		x := ws[i]
		if !x.Literal {
			break
		}
		v := x.Value
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		i++
		name, val, has := strings.Cut(v, "=")
		if kind, ok := o.long[name]; ok && (strings.HasPrefix(v, "--") || len(name) > 2) {
			if kind&interpStop != 0 {
				break loop
			}
			value := Lit(val)
			if !has && kind&(interpCode|interpValued|interpFile) != 0 {
				if i >= len(ws) {
					break loop
				}
				value = ws[i]
				i++
			}
			switch {
			case kind&interpCode != 0:
				code = append(code, value)
			case kind&interpFile != 0:
				file = true
			}
			continue
		}
		if strings.HasPrefix(v, "--") {
			continue
		}
		for j := 1; j < len(v); j++ {
			kind := o.shortKind(v[j])
			if kind&interpStop != 0 {
				break loop
			}
			if kind&(interpCode|interpValued|interpFile) == 0 {
				continue
			}
			value := Lit(v[j+1:])
			if j+1 == len(v) {
				if i >= len(ws) {
					break loop
				}
				value = ws[i]
				i++
			}
			switch {
			case kind&interpCode != 0:
				code = append(code, value)
			case kind&interpFile != 0:
				file = true
			}
			break
		}
		if len(code) > 0 && c.Name != "perl" && c.Name != "ruby" {
			break // python -c CODE: the rest are the code's arguments
		}
	}
	operands := ws[min(i, len(ws)):]
	switch {
	case len(code) == 0 && o.program && !file && len(operands) > 0:
		code = operands[:1]
	case len(code) == 0 && !file && !o.program && (len(operands) == 0 || operands[0].Literal && operands[0].Value == "-") && stdin != nil:
		code = []Word{Lit(stdin.text)}
		if stdin.expanded {
			code = []Word{{Source: stdin.text}}
		}
	}
	if len(code) > 0 {
		c.Unknown, c.Code = Code, joinCode(code)
		c.Why = c.Name + " runs inline code"
	}
	w.emit(c, f)
}

func joinCode(code []Word) Word {
	if len(code) == 1 {
		return code[0]
	}
	out := Word{Literal: true}
	vals := make([]string, len(code))
	srcs := make([]string, len(code))
	for i, c := range code {
		vals[i], srcs[i] = c.Text(), c.Source
		out.Literal = out.Literal && c.Literal
	}
	out.Value, out.Source = strings.Join(vals, "\n"), strings.Join(srcs, " ")
	if !out.Literal {
		out.Value = ""
	}
	return out
}

const (
	interpCode byte = 1 << iota
	interpValued
	interpFile
	interpStop
)

type interpOptions struct {
	short   map[byte]byte
	long    map[string]byte
	program bool
}

func (it interp) compile() *interpOptions {
	o := &interpOptions{short: map[byte]byte{}, long: map[string]byte{}, program: it.program}
	for _, l := range []struct {
		list string
		kind byte
	}{{it.code, interpCode}, {it.valued, interpValued}, {it.file, interpFile}, {it.stop, interpStop}} {
		list, kind := l.list, l.kind
		for _, opt := range strings.Fields(list) {
			if len(opt) == 2 {
				o.short[opt[1]] |= kind
			} else {
				o.long[opt] |= kind
			}
		}
	}
	return o
}

func (o *interpOptions) shortKind(ch byte) byte { return o.short[ch] }
