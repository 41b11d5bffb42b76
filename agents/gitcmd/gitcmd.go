// Package gitcmd finds the git commits and pushes a shell command runs, as a coding agent's Bash
// tool call writes them, and how it skips the repository's own hooks.
//
// The shell is read by [shellwalk]: every simple command the command runs, through `&&` chains,
// pipelines, subshells, `$(…)`, `sh -c` / `eval` scripts, wrappers (sudo, env, timeout, flock,
// strace, busybox, …), xargs and find -exec. This package owns git's side: its global options
// (`-C dir`, `-c key=value`, `--config-env`, GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT /
// KEY_n / VALUE_n), its dashed programs (`git-push`, `$(git --exec-path)/git-commit`),
// aliases set on the command line or by `git config` in the same command (`git -c alias.p=push p`,
// shell aliases `!…`), configuration and environment whose value is a command git runs
// (core.pager, core.sshCommand, GIT_EDITOR, …), options that run a command (rebase --exec,
// push --receive-pack, submodule foreach, bisect run, filter-branch's filters), ext:: remotes,
// and the ways to skip the repository's hooks: --no-verify, commit's -n, core.hooksPath set on
// the command line or by `git config`, HUSKY=0, SKIP=…, and the plumbing that runs no hooks.
//
// What commits ([Op.Subcommand] "commit", PreGitCommit) and what pushes ("push", PreGitPush),
// from git's documentation:
//
//   - commit: commit, commit-tree, merge, pull, rebase, cherry-pick, revert, am, stash (push,
//     save, create, store and plain `git stash`), notes (add, append, copy, edit, merge, remove,
//     prune), replace, replay, filter-branch, fast-import, hash-object -w -t commit, subtree
//     (add, merge, pull, split, push), quiltimport, citool, cvsimport, archimport, svn (clone,
//     fetch, rebase, dcommit), p4 (clone, sync, rebase, submit), submodule update --merge/--rebase,
//     gui.
//   - push: push, send-pack, http-push, receive-pack, http-backend, the remote helpers
//     (remote-http, remote-https, remote-ftp, remote-ftps, remote-ext, remote-fd), subtree push,
//     svn dcommit/set-tree/commit-diff/branch/tag, p4 submit, cvsexportcommit, gui.
//
// Moving a ref to an existing commit (update-ref, branch -f, reset) is neither. commit-tree,
// fast-import, hash-object, send-pack, http-push, receive-pack, http-backend and the remote
// helpers run none of the repository's hooks: their ops carry that as a bypass.
//
// It reads the command, never runs it. Whatever it cannot see through makes the report Unknown,
// and callers treat an unknown command as committing and pushing, so that a gate is not walked
// around by writing git oddly: a command that does not parse; a program or script named by an
// expansion (`$GIT commit`, `sh -c "$SCRIPT"`, `eval "$X"`); `git NAME` where NAME is neither
// git's own command nor an alias the command sets (an alias in a config file, or a git-NAME
// program); git given arguments from input it cannot read (`git ls-files | xargs git`); a
// program it does not know that is given git's command line (`foo git push`,
// `tmux new 'git push'`); an interpreter's inline code that mentions git (`python -c`). A
// program or script run from a file (`./x.sh`, `sh x.sh`, `make`) is not followed.
package gitcmd

import (
	"maps"
	"slices"
	"strings"

	"github.com/autoagent/agent-hooks/internal/shellwalk"
)

// Op is one git commit or push the command runs.
type Op struct {
	Subcommand string // "commit" or "push": the gate it is for
	// Command is the git command that commits or pushes, as git runs it (an alias resolved):
	// "commit", "merge", "cherry-pick", "push", "send-pack", "subtree push".
	Command  string
	Args     []string // the command's arguments as written (an expansion as its source text)
	Dir      string   // the -C directories, joined ("" for the working directory)
	NoVerify bool     // --no-verify, or commit's -n: the repository's pre-commit/pre-push hooks are skipped
	// HooksPath is core.hooksPath set on the command line (-c, --config-env, GIT_CONFIG_*).
	HooksPath *string
	// Bypasses says, as written, each way the command skips the repository's own hooks.
	Bypasses []string
}

// Report is what a command does with git.
type Report struct {
	Ops []Op
	// Unknown is set when the command may run git in a way that cannot be read: it does not
	// parse, or it runs a program or script named by an expansion. Why says which.
	Unknown bool
	Why     string
}

// Has reports whether the command runs the git subcommand ("commit", "push"), or may (Unknown).
func (r Report) Has(subcommand string) bool {
	if r.Unknown {
		return true
	}
	for _, op := range r.Ops {
		if op.Subcommand == subcommand {
			return true
		}
	}
	return false
}

// Of returns the ops of one subcommand.
func (r Report) Of(subcommand string) []Op {
	var out []Op
	for _, op := range r.Ops {
		if op.Subcommand == subcommand {
			out = append(out, op)
		}
	}
	return out
}

// maxAliases bounds aliases expanding to aliases.
const maxAliases = 8

// maxGuesses bounds the readings of one unknown program's arguments.
const maxGuesses = 16

// Scan reads a shell command.
func Scan(command string) Report {
	cmds := shellwalk.Walk(command)
	s := &scanner{}
	s.collectAliases(cmds)
	for _, c := range cmds {
		s.command(c)
	}
	// A `git config core.hooksPath …` anywhere in the command applies to the commits and pushes
	// after it (and, persisted, before the next command): report it on every op.
	if len(s.configBypasses) > 0 {
		for i := range s.report.Ops {
			s.report.Ops[i].Bypasses = append(s.report.Ops[i].Bypasses, s.configBypasses...)
		}
	}
	return s.report
}

// guess is how the scanner reads what an unknown program may run.
type guess uint8

const (
	// notGuessing reads the command itself.
	notGuessing guess = iota
	// guessArgv reads a command line among an unknown program's arguments (`foo git push`):
	// as the command itself, but an alias it cannot see does not count (`apt install git
	// curl`), nor do an unknown program's own arguments.
	guessArgv
	// guessScript reads an argument as a script (`tmux new 'git push'`): only git itself and
	// the walker's bounds count, not what does not parse or is named by an expansion (an
	// argument may be a title, not a script).
	guessScript
)

type scanner struct {
	report         Report
	configBypasses []string
	// aliases are those `git config alias.NAME VALUE` sets anywhere in the command.
	aliases map[string]shellwalk.Word
	// guess is set while reading what an unknown program may run.
	guess guess
	// inEnv are the command variables (GIT_EDITOR, …) being read.
	inEnv map[string]bool
}

func (s *scanner) unknown(why string) {
	if !s.report.Unknown {
		s.report.Unknown, s.report.Why = true, why
	}
}

func (s *scanner) walk(cmds []shellwalk.Command) {
	for _, c := range cmds {
		s.command(c)
	}
}

// command reads one simple command of the shell command.
func (s *scanner) command(c shellwalk.Command) {
	switch c.Unknown {
	case shellwalk.Readable:
	case shellwalk.ScriptFile:
		return // like any program run from a file
	case shellwalk.NamedByEnv:
		if s.guess != guessScript && mentionsGit(c.Args) {
			s.unknown(c.Why)
		}
		return
	case shellwalk.Code:
		if s.guess != guessScript && codeMentionsGit(c.Code.Text()) {
			s.unknown(c.Why + " that mentions git: " + c.Code.Source)
		}
		return
	case shellwalk.Unparsed:
		if s.guess == notGuessing { // an argument that is not a script (a title) is no guess
			s.unknown(c.Why)
		}
		return
	default:
		if s.guess != guessScript || c.Unknown == shellwalk.Unreadable {
			s.unknown(c.Why)
		}
		return
	}
	if c.Wrapper || len(c.Args) == 0 {
		return // what it runs is a command of its own
	}
	switch {
	case c.Name == "git" || c.Name == "hub": // hub hands git's commands to git
		s.git(c, c.Args[1:])
	case strings.HasPrefix(c.Name, "git-") && builtins()[c.Name[4:]]:
		// A dashed program, as git runs its commands from its exec-path.
		s.git(c, append([]shellwalk.Word{shellwalk.Lit(c.Name[4:])}, c.Args[1:]...))
	case c.Opaque() && s.guess == notGuessing:
		s.opaque(c)
	}
}

// opaque reads the arguments of a program the walker does not know, which may run them: a
// command line of git (or of a wrapper or shell) among them, or a script in one of them, that
// commits or pushes makes the command unknown.
func (s *scanner) opaque(c shellwalk.Command) {
	guesses := 0 // bounded: a long line of wrappers' names is read a few times, not n² times
	for i := 1; i < len(c.Args) && guesses < maxGuesses; i++ {
		w := c.Args[i]
		if !w.Literal {
			continue
		}
		name := shellwalk.ProgramName(w.Value)
		if name != "git" && !(strings.HasPrefix(name, "git-") && builtins()[name[4:]]) && !shellwalk.Runs(name) {
			continue
		}
		guesses++
		if s.guessed(guessArgv, c.Argv(c.Args[i:], c.Name)) {
			s.unknown(c.Name + ", a program the reader does not know, may run: " + sourceText(c.Args[i:]))
			return
		}
	}
	for _, w := range c.Args[1:] {
		if !w.Literal || !strings.ContainsAny(w.Value, " \t\n;|&") || guesses >= 2*maxGuesses {
			continue
		}
		guesses++
		texts := []string{w.Value}
		if _, v, ok := strings.Cut(w.Value, "="); ok {
			texts = append(texts, v)
		}
		for _, t := range texts {
			if s.guessed(guessScript, c.Script(t, c.Name)) {
				s.unknown(c.Name + ", a program the reader does not know, may run the script: " + t)
				return
			}
		}
	}
}

// guessed reports whether commands an unknown program may run commit or push, or run git in a
// way that cannot be read.
func (s *scanner) guessed(how guess, cmds []shellwalk.Command) bool {
	g := &scanner{guess: how, aliases: s.aliases, inEnv: s.inEnv}
	g.walk(cmds)
	return len(g.report.Ops) > 0 || g.report.Unknown
}

// nested reads a command git runs (a config value, an option's value, a shell alias).
func (s *scanner) nested(c shellwalk.Command, script shellwalk.Word, via string) {
	if !script.Literal {
		s.unknown("git runs a command named by an expansion (" + via + "): " + script.Source)
		return
	}
	s.walk(c.Script(script.Value, via))
}

// invocation is what git's global options and environment say of one git command line.
type invocation struct {
	dirs      []string
	hooksPath *string
	bypasses  []string
	aliases   map[string]shellwalk.Word
	// editor is set when the command line sets the editor git runs (core.editor,
	// sequence.editor, GIT_EDITOR, …): what it writes cannot be read.
	editor bool
}

func (inv *invocation) setHooksPath(value, written string) {
	v := value
	inv.hooksPath = &v
	inv.bypasses = append(inv.bypasses, written)
}

// config reads one configuration value set for this git command line.
func (s *scanner) config(c shellwalk.Command, inv *invocation, key string, value shellwalk.Word, written string) {
	lk := strings.ToLower(key)
	switch {
	case lk == "core.hookspath":
		inv.setHooksPath(value.Text(), written)
	case strings.HasPrefix(lk, "alias."):
		if inv.aliases == nil {
			inv.aliases = map[string]shellwalk.Word{}
		}
		inv.aliases[lk[len("alias."):]] = value
	case isCommandKey(lk):
		inv.editor = inv.editor || lk == "core.editor" || lk == "sequence.editor"
		s.nested(c, value, "git config "+key)
	case strings.HasPrefix(lk, "submodule.") && strings.HasSuffix(lk, ".update") && strings.HasPrefix(value.Text(), "!"):
		s.nested(c, shellwalk.Word{Value: value.Value[min(1, len(value.Value)):], Literal: value.Literal, Source: value.Source}, "git config "+key)
	case includeKey(lk):
		// Configuration from a file the reader does not read: it may set core.hooksPath.
		inv.bypasses = append(inv.bypasses, written)
	case (lk == "protocol.ext.allow" || lk == "protocol.allow") && allowsProtocol(value.Text()):
		s.unknown(written + ": ext:: remotes run commands")
	}
}

// includeKey reports a configuration key that includes another file.
func includeKey(lk string) bool {
	return lk == "include.path" || strings.HasPrefix(lk, "includeif.") && strings.HasSuffix(lk, ".path")
}

// allowsProtocol reports a protocol.allow value that lets a command line use the protocol.
func allowsProtocol(v string) bool {
	return strings.EqualFold(v, "always") || strings.EqualFold(v, "user")
}

// git reads one git command line: ws are the words after the program.
func (s *scanner) git(c shellwalk.Command, ws []shellwalk.Word) {
	env := envMap(c.Env)
	inv := &invocation{}
	s.gitEnv(c, inv, env)
	for n := 0; ; n++ {
		rest, stop := s.globalOptions(c, inv, env, ws)
		if stop {
			return
		}
		if len(rest) == 0 {
			if c.OpenArgs {
				s.unknown("git's command comes from input the reader cannot see: " + strings.Join(c.Via, " > "))
			}
			return
		}
		w := rest[0]
		if !w.Literal {
			s.unknown("git runs a subcommand named by an expansion: " + w.Source)
			return
		}
		sub, args := w.Value, rest[1:]
		if builtins()[sub] {
			s.run(c, inv, sub, args)
			return
		}
		value, ok := inv.aliases[strings.ToLower(sub)]
		if !ok {
			value, ok = s.aliases[strings.ToLower(sub)]
		}
		switch {
		case !ok:
			if s.guess == notGuessing {
				s.unknown("git " + sub + " is an alias or a program git finds elsewhere, which the reader cannot see")
			}
			return
		case n >= maxAliases:
			s.unknown("git aliases nested too deep: " + sub)
			return
		case !value.Literal:
			s.unknown("git alias " + sub + " is set by an expansion: " + value.Source)
			return
		}
		if script, ok := strings.CutPrefix(value.Value, "!"); ok {
			for _, a := range args {
				script += " " + shellQuote(a.Text())
			}
			s.nested(c, shellwalk.Lit(script), "git alias "+sub)
			return
		}
		ws = append(splitCmdline(value.Value), args...)
	}
}

// gitEnv reads the environment a git command line is given: hook bypasses, configuration, and
// commands git runs.
func (s *scanner) gitEnv(c shellwalk.Command, inv *invocation, env map[string]shellwalk.Word) {
	for _, key := range slices.Sorted(maps.Keys(env)) {
		w := env[key]
		value := w.Text()
		if skips, ok := hookBypassEnv[key]; ok && value != "" && (skips == nil || slices.Contains(skips, value)) {
			inv.bypasses = append(inv.bypasses, key+"="+value)
			continue
		}
		switch {
		case key == "GIT_CONFIG_GLOBAL" || key == "GIT_CONFIG_SYSTEM":
			// Configuration from a file the reader does not read: it may set core.hooksPath.
			inv.bypasses = append(inv.bypasses, key+"="+value)
		case key == "GIT_CONFIG_PARAMETERS":
			pairs, ok := parseConfigParameters(value)
			if !ok || !w.Literal {
				if strings.Contains(strings.ToLower(value), "core.hookspath") {
					inv.setHooksPath(value, "GIT_CONFIG_PARAMETERS="+value)
				}
				s.unknown("GIT_CONFIG_PARAMETERS the reader cannot read: " + value)
				continue
			}
			for _, p := range pairs {
				s.config(c, inv, p[0], shellwalk.Lit(p[1]), "GIT_CONFIG_PARAMETERS="+value)
			}
		case strings.HasPrefix(key, "GIT_CONFIG_KEY_"):
			v, ok := env["GIT_CONFIG_VALUE_"+strings.TrimPrefix(key, "GIT_CONFIG_KEY_")]
			if !ok {
				v = shellwalk.Lit("")
			}
			written := key + "=" + value
			if strings.EqualFold(value, "core.hooksPath") {
				written = key + "=core.hooksPath"
			}
			s.config(c, inv, value, v, written)
		}
	}
	if v, ok := env["GIT_ALLOW_PROTOCOL"]; ok && strings.Contains(v.Text(), "ext") {
		s.unknown("GIT_ALLOW_PROTOCOL=" + v.Text() + ": ext:: remotes run commands")
	}
	for _, name := range commandEnv {
		w, ok := env[name]
		if !ok {
			continue
		}
		if strings.HasSuffix(name, "EDITOR") || name == "VISUAL" {
			inv.editor = true
		}
		if !s.inEnv[name] {
			// The commands it runs inherit the variable: read it once.
			if s.inEnv == nil {
				s.inEnv = map[string]bool{}
			}
			s.inEnv[name] = true
			s.nested(c, w, name)
			delete(s.inEnv, name)
		}
	}
}

// globalOptions reads git's options before its subcommand. stop is set when git runs no
// subcommand (--version, --exec-path) or the line cannot be read further.
func (s *scanner) globalOptions(c shellwalk.Command, inv *invocation, env map[string]shellwalk.Word, ws []shellwalk.Word) ([]shellwalk.Word, bool) {
	for len(ws) > 0 {
		w := ws[0]
		if !w.Literal {
			if mentionsGit(ws) || !strings.HasPrefix(w.Source, "-") {
				s.unknown("git runs a subcommand named by an expansion: " + w.Source)
			}
			return nil, true
		}
		opt, value, hasValue := strings.Cut(w.Value, "=")
		if !strings.HasPrefix(opt, "-") {
			break
		}
		ws = ws[1:]
		valueWord := shellwalk.Lit(value)
		if gitValueOptions[opt] && !hasValue {
			if len(ws) == 0 {
				return nil, true
			}
			valueWord, value = ws[0], ws[0].Text()
			ws = ws[1:]
		}
		switch opt {
		case "-C":
			if value != "" {
				inv.dirs = append(inv.dirs, value)
			}
		case "-c":
			key, v, has := strings.Cut(value, "=")
			vw := shellwalk.Word{Value: v, Literal: valueWord.Literal, Source: v}
			if !has {
				vw = shellwalk.Lit("true")
			}
			s.config(c, inv, key, vw, "-c "+value)
		case "--config-env":
			key, envVar, _ := strings.Cut(value, "=")
			v, ok := env[envVar]
			if !ok {
				v = shellwalk.Word{Source: "$" + envVar}
			}
			if strings.EqualFold(key, "core.hooksPath") {
				inv.setHooksPath("$"+envVar, "--config-env "+value)
				continue
			}
			s.config(c, inv, key, v, "--config-env "+value)
		case "--exec-path":
			if !hasValue {
				return nil, true // prints the path
			}
		case "--version", "--help", "-h", "--html-path", "--man-path", "--info-path", "--list-cmds":
			return nil, true
		}
	}
	return ws, false
}

// gitValueOptions are git's global options that take the next word as their value.
var gitValueOptions = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--super-prefix": true, "--config-env": true, "--attr-source": true,
}

// skipGlobalOptions skips git's options before its subcommand, reading nothing.
func skipGlobalOptions(ws []shellwalk.Word) []shellwalk.Word {
	for len(ws) > 0 && ws[0].Literal {
		opt, _, hasValue := strings.Cut(ws[0].Value, "=")
		if !strings.HasPrefix(opt, "-") {
			return ws
		}
		ws = ws[1:]
		if gitValueOptions[opt] && !hasValue && len(ws) > 0 {
			ws = ws[1:]
		}
	}
	return ws
}

// collectAliases notes the aliases `git config alias.NAME VALUE` sets in the command: they
// apply to the git commands after it, and to the next command.
func (s *scanner) collectAliases(cmds []shellwalk.Command) {
	for _, c := range cmds {
		var rest []shellwalk.Word
		switch {
		case c.Unknown != shellwalk.Readable || c.Wrapper:
			continue
		case c.Name == "git":
			rest = skipGlobalOptions(c.Args[1:])
		case c.Name == "git-config":
			rest = append([]shellwalk.Word{shellwalk.Lit("config")}, c.Args[1:]...)
		}
		if len(rest) == 0 || !rest[0].Literal || rest[0].Value != "config" {
			continue
		}
		key, value, ok := configSet(rest[1:])
		if lk := strings.ToLower(key); ok && strings.HasPrefix(lk, "alias.") {
			if s.aliases == nil {
				s.aliases = map[string]shellwalk.Word{}
			}
			s.aliases[lk[len("alias."):]] = value
		}
	}
}

// run reads one git command (sub, after aliases) and its arguments.
func (s *scanner) run(c shellwalk.Command, inv *invocation, sub string, args []shellwalk.Word) {
	spec := gitCommands[sub]
	opts := compiled()[sub]
	for _, a := range args {
		if a.Literal && (strings.HasPrefix(a.Value, "ext::") || strings.Contains(a.Value, "=ext::")) {
			s.unknown("git " + sub + " uses an ext:: remote, which runs a command: " + a.Value)
		}
	}
	s.scriptOptions(c, sub, args, opts[0], opts[1])
	g, command, opArgs := spec.gate, sub, args
	switch sub {
	case "config":
		key, value, ok := configSet(args)
		switch lk := strings.ToLower(key); {
		case !ok:
		case lk == "core.hookspath" || includeKey(lk):
			s.configBypasses = append(s.configBypasses, "git config "+strings.Join(sources(args), " "))
		case isCommandKey(lk):
			s.nested(c, value, "git config "+key)
		case (lk == "protocol.ext.allow" || lk == "protocol.allow") && allowsProtocol(value.Text()):
			s.unknown("git config " + key + ": ext:: remotes run commands")
		}
		return
	case "rebase":
		// An interactive rebase runs the todo list the editor writes, `exec` lines and all.
		if inv.editor && interactive(args) {
			s.unknown("git rebase -i with an editor the command sets: its todo list may run commands")
		}
	case "shell": // git-shell -c 'git-receive-pack …'
		if len(args) >= 2 && args[0].Literal && args[0].Value == "-c" {
			s.nested(c, args[1], "git shell -c")
		}
		return
	case "bisect":
		if i := operand(args, options{}); i >= 0 && args[i].Literal && args[i].Value == "run" {
			s.walk(c.Argv(args[i+1:], "git bisect run"))
		}
		return
	case "for-each-repo": // runs `git ARGS` in each repository a config key lists
		rest := args
		for len(rest) > 0 && rest[0].Literal && strings.HasPrefix(rest[0].Value, "-") {
			done := rest[0].Value == "--"
			rest = rest[1:]
			if done {
				break
			}
		}
		s.git(c, rest)
		return
	case "submodule":
		i := operand(args, opts[0])
		if i < 0 || !args[i].Literal {
			return
		}
		switch args[i].Value {
		case "foreach":
			rest := args[i+1:]
			for len(rest) > 0 && rest[0].Literal && strings.HasPrefix(rest[0].Value, "-") {
				done := rest[0].Value == "--"
				rest = rest[1:]
				if done {
					break
				}
			}
			if len(rest) > 0 {
				text, literal := joinWords(rest)
				s.nested(c, shellwalk.Word{Value: text, Literal: literal, Source: sourceText(rest)}, "git submodule foreach")
			}
			return
		case "update":
			for _, a := range args[i+1:] {
				if a.Literal && (a.Value == "--merge" || a.Value == "--rebase") {
					g, command = commits, "submodule update"
				}
			}
		}
	case "clone":
		for i := 0; i < len(args); i++ {
			a := args[i]
			if !a.Literal {
				continue
			}
			value, ok := "", false
			switch {
			case (a.Value == "-c" || a.Value == "--config") && i+1 < len(args):
				value, ok = args[i+1].Text(), true
				i++
			case strings.HasPrefix(a.Value, "--config="):
				value, ok = strings.TrimPrefix(a.Value, "--config="), true
			}
			if key, v, has := strings.Cut(value, "="); ok && has && isCommandKey(strings.ToLower(key)) {
				s.nested(c, shellwalk.Lit(v), "git clone -c "+key)
			}
		}
	case "hash-object":
		write, typ := false, "blob"
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a.Literal && a.Value == "-w":
				write = true
			case a.Literal && a.Value == "-t" && i+1 < len(args):
				typ = args[i+1].Text()
				if !args[i+1].Literal {
					typ = "commit"
				}
				i++
			case a.Literal && strings.HasPrefix(a.Value, "-t"):
				typ = a.Value[2:]
			}
		}
		if write && typ == "commit" {
			g, spec.plumbing = commits, true
		}
	case "replace":
		if len(args) == 0 {
			return
		}
		for _, a := range args {
			if a.Literal && (a.Value == "-l" || a.Value == "--list" || a.Value == "-d" || a.Value == "--delete") {
				return
			}
		}
	}
	if spec.subs != nil && command == sub {
		i := operand(args, opts[0])
		name := ""
		if i >= 0 {
			if !args[i].Literal {
				s.unknown("git " + sub + " runs a subcommand named by an expansion: " + args[i].Source)
				return
			}
			name = args[i].Value
			opArgs = slices.Delete(slices.Clone(args), i, i+1)
			command = sub + " " + name
		}
		g = spec.subs[name]
	}
	if g == noGate {
		return
	}
	if c.OpenArgs {
		s.unknown("git " + command + " is given arguments from input the reader cannot see: " + strings.Join(c.Via, " > "))
	}
	for _, gate := range []struct {
		g    gate
		name string
	}{{commits, "commit"}, {pushes, "push"}} {
		if g != gate.g && g != commitsAndPushes {
			continue
		}
		op := Op{Subcommand: gate.name, Command: command, Args: sources(opArgs), Dir: joinDirs(inv.dirs),
			Bypasses: slices.Clone(inv.bypasses)}
		if inv.hooksPath != nil {
			v := *inv.hooksPath
			op.HooksPath = &v
		}
		if noVerify(spec, opts[0], opArgs) {
			op.NoVerify = true
			op.Bypasses = append(op.Bypasses, "--no-verify")
		}
		if spec.plumbing {
			op.Bypasses = append(op.Bypasses, "git "+command+" runs none of the repository's hooks")
		}
		s.report.Ops = append(s.report.Ops, op)
	}
}

// scriptOptions reads the options of a git command whose value is a command git runs.
func (s *scanner) scriptOptions(c shellwalk.Command, sub string, args []shellwalk.Word, valued, scripts options) {
	if scripts.short == "" && len(scripts.long) == 0 {
		return
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Literal {
			continue
		}
		v := a.Value
		switch {
		case v == "--":
			return
		case strings.HasPrefix(v, "--"):
			name, val, has := strings.Cut(v, "=")
			if scripts.long[name] {
				if has {
					s.nested(c, shellwalk.Lit(val), "git "+sub+" "+name)
				} else if i+1 < len(args) {
					s.nested(c, args[i+1], "git "+sub+" "+name)
					i++
				}
			} else if valued.long[name] && !has {
				i++
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				ch := v[j]
				if strings.IndexByte(valued.short, ch) < 0 && strings.IndexByte(scripts.short, ch) < 0 {
					continue
				}
				var value shellwalk.Word
				if j+1 < len(v) {
					value = shellwalk.Lit(v[j+1:])
				} else if i+1 < len(args) {
					i++
					value = args[i]
				}
				if strings.IndexByte(scripts.short, ch) >= 0 {
					s.nested(c, value, "git "+sub+" -"+string(ch))
				}
				break
			}
		}
	}
}

// interactive reports rebase's -i / --interactive.
func interactive(args []shellwalk.Word) bool {
	for _, a := range args {
		if !a.Literal {
			continue
		}
		v := a.Value
		if v == "--" {
			return false
		}
		if v == "--interactive" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsRune(v[1:], 'i') {
			return true
		}
	}
	return false
}

// operand is the index of a command's first argument that is not an option (or one's value).
func operand(args []shellwalk.Word, valued options) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Literal {
			return i
		}
		v := a.Value
		switch {
		case v == "--":
			return -1
		case strings.HasPrefix(v, "--"):
			name, _, has := strings.Cut(v, "=")
			if valued.long[name] && !has {
				i++
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			if strings.IndexByte(valued.short, v[len(v)-1]) >= 0 && len(v) == 2 {
				i++
			}
		default:
			return i
		}
	}
	return -1
}

// configSet reads `git config [options] KEY VALUE` (also --add, --replace-all, and git 2.46's
// `git config set`): the key and value it sets.
func configSet(args []shellwalk.Word) (string, shellwalk.Word, bool) {
	var plain []shellwalk.Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Literal && strings.HasPrefix(a.Value, "-") {
			name, _, has := strings.Cut(a.Value, "=")
			switch name {
			case "--unset", "--unset-all", "--get", "--get-all", "--get-regexp", "--get-urlmatch",
				"--list", "-l", "--remove-section", "--rename-section", "-e", "--edit", "--get-color",
				"--get-colorbool":
				return "", shellwalk.Word{}, false
			case "-f", "--file", "--blob", "--type", "--default", "--comment", "--value":
				if !has {
					i++
				}
			}
			continue
		}
		plain = append(plain, a)
	}
	if len(plain) > 0 && plain[0].Literal {
		switch plain[0].Value {
		case "set":
			plain = plain[1:]
		case "get", "unset", "list", "edit", "rename-section", "remove-section":
			return "", shellwalk.Word{}, false
		}
	}
	if len(plain) < 2 || !plain[0].Literal {
		return "", shellwalk.Word{}, false
	}
	return plain[0].Value, plain[1], true
}
