// Package gitcmd finds the git commits and pushes a shell command runs, as a coding agent's Bash
// tool call writes them: through `git -C dir`, `-c key=value`, environment prefixes, wrappers
// (env, command, sudo, timeout, …), `&&` chains, pipelines, subshells, command substitutions and
// nested `sh -c` / `eval` scripts, and how it skips the repository's own hooks (--no-verify,
// commit's -n, core.hooksPath set on the command line or by `git config`, HUSKY=0, SKIP=…).
//
// It reads the command with mvdan.cc/sh, never runs it. A command it cannot read, or one that runs
// a program it cannot name (`$GIT commit`, `sh -c "$SCRIPT"`), is Unknown: callers treat it as
// possibly committing and pushing, so that a gate is never walked around by writing git oddly.
package gitcmd

import (
	"bytes"
	"maps"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Op is one git commit or push the command runs.
type Op struct {
	Subcommand string   // "commit" or "push"
	Args       []string // the subcommand's arguments as written (an expansion as its source text)
	Dir        string   // the -C directories, joined ("" for the working directory)
	NoVerify   bool     // --no-verify, or commit's -n: the repository's pre-commit/pre-push hooks are skipped
	HooksPath  *string  // core.hooksPath set on the command line (-c, --config-env, GIT_CONFIG_*)
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

// maxDepth bounds nested `sh -c` and `eval` scripts.
const maxDepth = 8

// Scan reads a shell command.
func Scan(command string) Report {
	s := &scanner{}
	s.script(command, 0)
	// A `git config core.hooksPath …` anywhere in the command applies to the commits and pushes
	// after it (and, persisted, before the next command): report it on every op.
	if len(s.configBypasses) > 0 {
		for i := range s.report.Ops {
			s.report.Ops[i].Bypasses = append(s.report.Ops[i].Bypasses, s.configBypasses...)
		}
	}
	return s.report
}

type scanner struct {
	report         Report
	configBypasses []string
}

func (s *scanner) unknown(why string) {
	if !s.report.Unknown {
		s.report.Unknown, s.report.Why = true, why
	}
}

func (s *scanner) script(src string, depth int) {
	if depth > maxDepth {
		s.unknown("scripts nested too deep")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		var err2 error
		if f, err2 = syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(src), ""); err2 != nil {
			s.unknown("the command does not parse: " + err.Error())
			return
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			s.call(call, depth)
		}
		return true
	})
}

// word is one word of a command: its value when it is literal (quotes removed, no expansion).
type word struct {
	value   string
	literal bool
	source  string
}

func words(ws []*syntax.Word) []word {
	out := make([]word, len(ws))
	for i, w := range ws {
		v, ok := literal(w)
		out[i] = word{value: v, literal: ok, source: source(w)}
	}
	return out
}

// literal is the value of a word without expansions: literal text and quotes only.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes the shell removes: every one outside quotes, and inside double
// quotes those before $ ` " \ and a newline.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

func source(w *syntax.Word) string {
	var b bytes.Buffer
	if err := syntax.NewPrinter().Print(&b, w); err != nil {
		return ""
	}
	return b.String()
}

// env is the environment a command line sets for its program.
type env map[string]string

func (s *scanner) call(call *syntax.CallExpr, depth int) {
	e := env{}
	for _, a := range call.Assigns {
		if a.Name == nil || a.Value == nil {
			continue
		}
		v, ok := literal(a.Value)
		if !ok {
			v = source(a.Value)
		}
		e[a.Name.Value] = v
	}
	s.command(words(call.Args), e, depth)
}

// command handles one simple command: wrappers are unwrapped to the program they run.
func (s *scanner) command(ws []word, e env, depth int) {
	for len(ws) > 0 {
		w := ws[0]
		if !w.literal {
			if mentionsGit(ws) {
				s.unknown("runs a program named by an expansion: " + w.source)
			}
			return
		}
		switch name := path.Base(w.value); name {
		case "git":
			s.git(ws[1:], e)
			return
		case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox":
			s.shell(ws[1:], depth)
			return
		case "eval":
			var parts []string
			for _, a := range ws[1:] {
				if !a.literal {
					s.unknown("eval of an expansion: " + a.source)
					return
				}
				parts = append(parts, a.value)
			}
			s.script(strings.Join(parts, " "), depth+1)
			return
		case "env":
			ws = skipEnv(ws[1:], e)
		case "command", "exec", "nohup", "builtin", "setsid", "chronic", "unbuffer":
			ws = skipOptions(ws[1:], nil)
		case "time":
			ws = skipOptions(ws[1:], map[string]bool{"-f": true, "-o": true})
		case "nice":
			ws = skipOptions(ws[1:], map[string]bool{"-n": true})
		case "sudo", "doas":
			ws = skipOptions(ws[1:], map[string]bool{"-u": true, "-g": true, "-C": true, "-D": true, "-h": true, "-p": true, "-U": true, "-r": true, "-t": true})
		case "timeout":
			ws = skipOptions(ws[1:], map[string]bool{"-s": true, "-k": true, "--signal": true, "--kill-after": true})
			if len(ws) > 0 {
				ws = ws[1:] // the duration
			}
		case "stdbuf", "xargs":
			ws = skipOptions(ws[1:], map[string]bool{"-i": false, "-n": true, "-L": true, "-P": true, "-s": true, "-d": true, "-E": true, "-I": true, "-a": true})
		default:
			return
		}
	}
}

// mentionsGit reports whether a command line whose program cannot be named has git's words in it.
func mentionsGit(ws []word) bool {
	for _, w := range ws {
		if w.literal && (w.value == "commit" || w.value == "push" || path.Base(w.value) == "git") {
			return true
		}
		if !w.literal && strings.Contains(w.source, "git") {
			return true
		}
	}
	return false
}

// skipOptions drops a wrapper's options; withValue names those that take the next word.
func skipOptions(ws []word, withValue map[string]bool) []word {
	for len(ws) > 0 && ws[0].literal && strings.HasPrefix(ws[0].value, "-") && ws[0].value != "-" {
		opt := ws[0].value
		ws = ws[1:]
		if opt == "--" {
			break
		}
		if withValue[opt] && len(ws) > 0 {
			ws = ws[1:]
		}
	}
	return ws
}

// skipEnv drops env's options and NAME=VALUE words, adding the latter to e.
func skipEnv(ws []word, e env) []word {
	for len(ws) > 0 && ws[0].literal {
		v := ws[0].value
		switch {
		case v == "-u" || v == "--unset" || v == "-C" || v == "--chdir":
			ws = ws[1:]
			if len(ws) > 0 {
				ws = ws[1:]
			}
			continue
		case strings.HasPrefix(v, "-"):
			ws = ws[1:]
			continue
		}
		name, value, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return ws
		}
		e[name] = value
		ws = ws[1:]
	}
	return ws
}

// shell handles `sh -c SCRIPT`: the script is read in turn. A shell reading a file or stdin is
// not followed.
func (s *scanner) shell(ws []word, depth int) {
	for i, w := range ws {
		if !w.literal {
			if i > 0 && ws[i-1].literal && isCFlag(ws[i-1].value) {
				s.unknown("a shell runs a script named by an expansion: " + w.source)
			}
			return
		}
		if !strings.HasPrefix(w.value, "-") || w.value == "-" || w.value == "--" {
			return
		}
		if isCFlag(w.value) {
			if i+1 < len(ws) {
				if !ws[i+1].literal {
					s.unknown("a shell runs a script named by an expansion: " + ws[i+1].source)
					return
				}
				s.script(ws[i+1].value, depth+1)
			}
			return
		}
	}
}

// isCFlag reports a shell option cluster holding -c (-c, -lc, -ec, -xc).
func isCFlag(opt string) bool {
	return len(opt) > 1 && opt[0] == '-' && opt[1] != '-' && strings.ContainsRune(opt[1:], 'c')
}

// gitValueOptions are git's global options that take the next word as their value.
var gitValueOptions = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--super-prefix": true, "--config-env": true, "--attr-source": true, "--exec-path": false,
}

func (s *scanner) git(ws []word, e env) {
	var dirs []string
	var hooksPath *string
	var bypasses []string
	setHooksPath := func(value, written string) {
		v := value
		hooksPath = &v
		bypasses = append(bypasses, written)
	}
	for _, key := range slices.Sorted(maps.Keys(e)) {
		value := e[key]
		switch {
		case key == "HUSKY" && value == "0":
			bypasses = append(bypasses, "HUSKY=0")
		case key == "SKIP" && value != "":
			bypasses = append(bypasses, "SKIP="+value)
		case key == "GIT_CONFIG_PARAMETERS" && strings.Contains(strings.ToLower(value), "core.hookspath"):
			setHooksPath(value, "GIT_CONFIG_PARAMETERS="+value)
		case strings.HasPrefix(key, "GIT_CONFIG_KEY_") && strings.EqualFold(value, "core.hooksPath"):
			v := e["GIT_CONFIG_VALUE_"+strings.TrimPrefix(key, "GIT_CONFIG_KEY_")]
			setHooksPath(v, key+"=core.hooksPath")
		}
	}
	for len(ws) > 0 {
		w := ws[0]
		if !w.literal {
			if mentionsGit(ws) || !strings.HasPrefix(w.source, "-") {
				s.unknown("git runs a subcommand named by an expansion: " + w.source)
			}
			return
		}
		opt, value, hasValue := strings.Cut(w.value, "=")
		if !strings.HasPrefix(opt, "-") {
			break
		}
		ws = ws[1:]
		if gitValueOptions[opt] && !hasValue {
			if len(ws) == 0 {
				return
			}
			value = ws[0].value
			if !ws[0].literal {
				value = ws[0].source
			}
			ws = ws[1:]
		}
		switch opt {
		case "-C":
			if value != "" {
				dirs = append(dirs, value)
			}
		case "-c":
			key, v, _ := strings.Cut(value, "=")
			if strings.EqualFold(key, "core.hooksPath") {
				setHooksPath(v, "-c "+value)
			}
		case "--config-env":
			key, envVar, _ := strings.Cut(value, "=")
			if strings.EqualFold(key, "core.hooksPath") {
				setHooksPath("$"+envVar, "--config-env "+value)
			}
		case "--version", "--help", "-h", "--html-path", "--man-path", "--info-path", "--list-cmds":
			return
		}
	}
	if len(ws) == 0 {
		return
	}
	sub := ws[0].value
	args := ws[1:]
	switch sub {
	case "commit", "push":
	case "config":
		if configSetsHooksPath(args) {
			s.configBypasses = append(s.configBypasses, "git config "+strings.Join(sources(args), " "))
		}
		return
	default:
		return
	}
	op := Op{Subcommand: sub, Args: sources(args), Dir: joinDirs(dirs), HooksPath: hooksPath, Bypasses: bypasses}
	if noVerify(sub, args) {
		op.NoVerify = true
		op.Bypasses = append(op.Bypasses, "--no-verify")
	}
	s.report.Ops = append(s.report.Ops, op)
}

func sources(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.value
		if !w.literal {
			out[i] = w.source
		}
	}
	return out
}

func joinDirs(dirs []string) string {
	dir := ""
	for _, d := range dirs {
		if path.IsAbs(d) || dir == "" {
			dir = d
		} else {
			dir = path.Join(dir, d)
		}
	}
	return dir
}

// configSetsHooksPath reports `git config [options] core.hooksPath VALUE` (or --add/set).
func configSetsHooksPath(args []word) bool {
	var plain []string
	for _, a := range args {
		if a.literal && strings.HasPrefix(a.value, "-") {
			if a.value == "--unset" || a.value == "--unset-all" || a.value == "--get" || a.value == "--get-all" || a.value == "--list" || a.value == "-l" {
				return false
			}
			continue
		}
		plain = append(plain, a.value)
	}
	if len(plain) > 0 && plain[0] == "set" { // git config set core.hooksPath v (git 2.46+)
		plain = plain[1:]
	}
	return len(plain) >= 2 && strings.EqualFold(plain[0], "core.hooksPath")
}

// commitValueShorts are commit's short options whose value follows (attached or as the next word).
const commitValueShorts = "mFcCt"

// commitValueLongs are commit's long options whose value may be the next word.
var commitValueLongs = map[string]bool{
	"--message": true, "--file": true, "--author": true, "--date": true, "--reuse-message": true,
	"--reedit-message": true, "--fixup": true, "--squash": true, "--template": true,
	"--cleanup": true, "--pathspec-from-file": true, "--trailer": true,
}

// noVerify reads the subcommand's arguments for the option that skips the repository's hooks: the
// last of --no-verify (or a prefix git accepts for it) and --verify wins; commit's -n also skips.
// Arguments after -- are paths.
func noVerify(sub string, args []word) bool {
	skip := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.literal {
			continue
		}
		v := a.value
		switch {
		case v == "--":
			return skip
		case strings.HasPrefix(v, "--"):
			name, _, hasValue := strings.Cut(v, "=")
			switch {
			case len(name) >= len("--no-veri") && strings.HasPrefix("--no-verify", name):
				skip = true
			case name == "--verify":
				skip = false
			case sub == "commit" && commitValueLongs[name] && !hasValue:
				i++
			case sub == "push" && (name == "--repo" || name == "--receive-pack" || name == "--exec" || name == "--push-option") && !hasValue:
				i++
			}
		case strings.HasPrefix(v, "-") && len(v) > 1 && sub == "commit":
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 'n' {
					skip = true
				}
				if strings.IndexByte(commitValueShorts, c) >= 0 {
					if j == len(v)-1 {
						i++ // the value is the next word
					}
					break
				}
				if c == 'u' || c == 'S' {
					break // an optional value, attached
				}
			}
		case strings.HasPrefix(v, "-") && len(v) > 1 && sub == "push":
			if v == "-o" {
				i++
			}
		}
	}
	return skip
}
