// Package shellwalk reads a shell command, as a coding agent's Bash tool call writes it, and
// returns every simple command it runs: in `&&` and `||` chains, pipelines, subshells, blocks,
// functions, loops, `$(…)`, `<(…)`, `sh -c` / `bash -c` scripts, `eval`, `trap`, scripts piped or
// here-documented into a shell, and through the programs that run another command: wrappers
// (sudo, env, timeout, nice, nohup, stdbuf, time, command, exec, flock, ionice, strace, fakeroot,
// busybox, …), commands whose arguments are a script (watch, ssh, script -c, su -c, env -S),
// and those that run a command over their input (xargs, find -exec, fd -x, parallel).
//
// It parses the command once with mvdan.cc/sh and never runs it. Each [Command] has its words
// (literal or not, with their source text), its program's base name, its environment, its
// redirections and how it was reached ([Command.Via]). What cannot be read is said, not
// skipped: a program named by an expansion, a script given as one (`sh -c "$X"`), a script read
// from a file or from input the walker cannot see, an interpreter's inline code, a command that
// does not parse, arguments appended at run time (xargs' input), what is past its bounds. Its
// callers decide what that means for them: the git gates
// ([github.com/autoagent/agent-hooks/agents/gitcmd]) fail closed.
//
// The programs the walker knows are data, in programs.go: how many of a wrapper's own options
// and operands to skip before the command it runs, which programs run nothing of their
// arguments, which shells and interpreters read a script.
package shellwalk

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Unknown says what of a command the walker could not read.
type Unknown uint8

const (
	// Readable is a command read in full.
	Readable Unknown = iota
	// NamedByEnv is a program named by one variable the command does not set (`$EDITOR file`,
	// `"$@"`): it comes from the environment the command was started in.
	NamedByEnv
	// NamedByExpansion is a program named by any other expansion: a command substitution
	// (`$(git --exec-path)/git-push`), a variable the command sets, a glob, a brace pattern.
	NamedByExpansion
	// ScriptExpansion is a script given as an expansion: `sh -c "$X"`, `eval "$X"`,
	// `watch "$X"`, `trap "$X" EXIT`.
	ScriptExpansion
	// ScriptFile is a shell reading its script from a file or from input the walker cannot see
	// (`sh x.sh`, `. ./env.sh`, `curl … | sh`): like any program run from a file, not followed.
	ScriptFile
	// Code is an interpreter's inline code (`python -c`, `node -e`, `perl -e`, an awk program,
	// code on its standard input): the walker does not read other languages; Code holds it.
	Code
	// Unreadable is past the walker's bounds (scripts nested too deep, too many commands), or
	// a program whose command the walker cannot take from its arguments (env -S, hash -p).
	Unreadable
	// Unparsed is a script that does not parse (as bash, nor as POSIX sh).
	Unparsed
)

var unknownNames = [...]string{"readable", "named by the environment", "named by an expansion",
	"script from an expansion", "script from a file", "inline code", "unreadable", "does not parse"}

// String says what could not be read, for a person.
func (u Unknown) String() string {
	if int(u) < len(unknownNames) {
		return unknownNames[u]
	}
	return "unknown"
}

// Assign is one variable a command's environment sets.
type Assign struct {
	Name  string
	Value Word
}

// Redir is one redirection of a command.
type Redir struct {
	N  string // the descriptor written before the operator ("2" in 2>x), "" for the default
	Op string // ">", ">>", "<", "<>", ">&", "<&", ">|", "&>", "&>>", "<<", "<<-", "<<<"
	// Target is the file, the descriptor (>&2) or the here-string; for << and <<-, the
	// here-document's body.
	Target Word
}

// Command is one simple command the shell command runs.
type Command struct {
	// Args is the command line; Args[0] is the program. For a Wrapper, only its own words: the
	// command it runs is a Command of its own, after it.
	Args []Word
	// Name is the program's base name ("git" for /usr/bin/git and git.exe), "" when Args[0] is
	// not literal.
	Name string
	// Env is the environment the command line gives the program, in order: variables exported
	// earlier in the script, then NAME=VALUE before the program, then a wrapper's (env, sudo).
	Env []Assign
	// Redirs are the statement's redirections (on its outermost program).
	Redirs []Redir
	// Depth is how many scripts deep the command is: 0 in the command itself, 1 in its
	// `sh -c` / `eval` script, and so on.
	Depth int
	// Via says how the command is reached, outermost first: "sudo", "sh -c", "$(…)", "xargs",
	// "find -exec", "eval".
	Via []string
	// Wrapper is set on a program that runs a command or a script of its own (sudo, env,
	// timeout, sh -c, xargs): what it runs follows as Commands of their own.
	Wrapper bool
	// OpenArgs is set when the program is given arguments the walker cannot read when it runs:
	// xargs' input from a file or a pipe, find's {} with +, parallel's input.
	OpenArgs bool
	// Unknown says what could not be read (Readable when nothing), Why says it for a person.
	Unknown Unknown
	Why     string
	// Code is the inline code of an interpreter (Unknown == Code).
	Code Word
}

// Opaque reports whether the walker knows nothing of the program: it is none of the wrappers,
// shells, interpreters and programs known to run nothing of their arguments. Such a program
// may still run its arguments (an unknown wrapper): callers that must fail closed look at them.
func (c Command) Opaque() bool {
	if c.Name == "" {
		return false
	}
	_, known := lookup(family(c.Name))
	return !known
}

// Runs reports whether the walker reads name as a program that runs a command or a script
// (sudo, env, xargs, sh, eval, …).
func Runs(name string) bool {
	p, ok := lookup(family(ProgramName(name)))
	return ok && p.run != nil
}

// maxDepth bounds nested scripts (`sh -c`, eval, a wrapper's script).
const maxDepth = 8

// maxSubst bounds command and process substitutions nested in one another (`$($($(…)))`): each
// level's command holds the text of every level inside it, so that n levels cost the square of
// n, and no command written by hand nests more than a few.
const maxSubst = 16

// maxCommands bounds the commands one walk yields (xargs in xargs in xargs…): past it the
// walk stops with an Unreadable command.
const maxCommands = 4096

// Walk reads script and returns every simple command it runs, in the order they are written
// (a command before the commands its substitutions and wrapped programs run).
func Walk(script string) []Command {
	w := &walker{}
	w.script(script, frame{}, nil)
	return w.out
}

// WalkKnown is Walk with the values of variables known before the script runs (HOME): a word
// that expands only those, and variables the script sets to known values, has its Resolved
// value.
func WalkKnown(script string, known map[string]string) []Command {
	w := &walker{known: known}
	w.script(script, frame{}, nil)
	return w.out
}

// Script reads src as a script c runs (git's `-c core.pager=…`, `rebase --exec …`): one
// level deeper than c, reached through c's Via and then via, with c's environment.
func (c Command) Script(src, via string) []Command {
	w := &walker{}
	w.script(src, c.inner(via, true), nil)
	return w.out
}

// Argv reads args as a command line c runs (a guess at what an unknown program runs).
func (c Command) Argv(args []Word, via string) []Command {
	w := &walker{}
	w.run(args, c.Env, c.inner(via, false), nil, nil)
	return w.out
}

func (c Command) inner(via string, nested bool) frame {
	f := frame{depth: c.Depth, env: c.Env, via: appendVia(c.Via, via)}
	if nested {
		f.depth++
	}
	return f
}

// frame is where a command is: how deep, how it was reached, the environment it inherits.
type frame struct {
	depth int
	via   []string
	env   []Assign
	open  bool // the command is given arguments the walker cannot read (xargs' input)
	subst int  // how many substitutions deep in its script
}

func (f frame) with(via string) frame {
	f.via = appendVia(f.via, via)
	return f
}

func (f frame) nested(via string) frame {
	f = f.with(via)
	f.depth++
	f.open = false
	return f
}

func appendVia(via []string, v string) []string {
	out := make([]string, len(via), len(via)+1)
	copy(out, via)
	return append(out, v)
}

// input is what a command reads on its standard input when it is written in the command (a
// here-document, a here-string, `echo … |`); nil when it is not.
type input struct {
	text string
	// expanded: the shell expands text (as written here) before the command reads it, or
	// decodes escapes the walker does not: its value is not known.
	expanded bool
}

type walker struct {
	out   []Command
	full  bool              // maxCommands reached
	known map[string]string // WalkKnown's variables
}

func (w *walker) emit(c Command, f frame) {
	if w.full {
		return
	}
	if len(w.out) == maxCommands-1 {
		w.full = true
		c = Command{Unknown: Unreadable, Why: "the command runs too many commands to read"}
	}
	c.Depth, c.Via = f.depth, f.via
	if c.Env == nil {
		c.Env = f.env
	}
	w.out = append(w.out, c)
}

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func parse(src string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	if err == nil {
		return f, nil
	}
	if f2, err2 := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(src), ""); err2 == nil {
		return f2, nil
	}
	return nil, err
}

// script reads src, run in frame f with stdin as its commands' standard input.
func (w *walker) script(src string, f frame, stdin *input) {
	if w.full {
		return
	}
	if f.depth > maxDepth {
		w.emit(Command{Unknown: Unreadable, Why: "scripts nested too deep"}, f)
		return
	}
	file, err := parse(src)
	if err != nil {
		w.emit(Command{Unknown: Unparsed, Why: "the command does not parse: " + err.Error()}, f)
		return
	}
	sc := &scope{w: w, src: src, stdin: stdin, exported: f.env}
	sc.prepass(file, f.env)
	sc.walk(file, f)
}

// scope is one parsed script.
type scope struct {
	w     *walker
	src   string
	stdin *input // the script's own standard input
	// assigned are the variables the script sets anywhere (or its caller set for it): a
	// program named by one of them is not the environment's.
	assigned map[string]bool
	// left is the statement before each piped statement (`a | b`: left[b] = a).
	left map[*syntax.Stmt]*syntax.Stmt
	// vars are the script's variables as read so far; exported those of them in the environment.
	vars      map[string]Word
	exported  []Assign
	allexport bool
}

// prepass notes the variables the script sets and the pipelines' statements.
func (sc *scope) prepass(file *syntax.File, env []Assign) {
	for _, a := range env {
		sc.assign(a.Name)
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil {
				sc.assign(n.Name.Value)
			}
		case *syntax.WordIter:
			sc.assign(n.Name.Value)
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				sc.assign(n.Param.Value)
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				break
			}
			switch n.Args[0].Lit() {
			case "read", "mapfile", "readarray", "getopts", "printf", "select":
				for _, a := range n.Args[1:] {
					if v := a.Lit(); isName(v) {
						sc.assign(v)
					}
				}
			case "set":
				if len(n.Args) > 1 { // set -- a b: the positional parameters
					for _, p := range []string{"@", "*", "1", "2", "3", "4", "5", "6", "7", "8", "9"} {
						sc.assign(p)
					}
				}
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				if sc.left == nil {
					sc.left = map[*syntax.Stmt]*syntax.Stmt{}
				}
				sc.left[firstStmt(n.Y)] = lastStmt(n.X)
			}
		}
		return true
	})
}

func (sc *scope) assign(name string) {
	if sc.assigned == nil {
		sc.assigned = map[string]bool{}
	}
	sc.assigned[name] = true
}

// firstStmt is the statement of a pipeline stage that reads the pipe first.
func firstStmt(s *syntax.Stmt) *syntax.Stmt {
	for {
		switch c := s.Cmd.(type) {
		case *syntax.Block:
			if len(c.Stmts) == 0 {
				return s
			}
			s = c.Stmts[0]
		case *syntax.Subshell:
			if len(c.Stmts) == 0 {
				return s
			}
			s = c.Stmts[0]
		default:
			return s
		}
	}
}

// lastStmt is the statement of a pipeline stage whose output goes down the pipe.
func lastStmt(s *syntax.Stmt) *syntax.Stmt {
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		return lastStmt(b.Y)
	}
	return s
}

func (sc *scope) walk(node syntax.Node, f frame) {
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			switch cmd := n.Cmd.(type) {
			case *syntax.CallExpr:
				sc.call(n, cmd, f)
			case *syntax.DeclClause:
				sc.decl(n, cmd, f)
			}
		case *syntax.CmdSubst:
			if inner, ok := sc.substitution(f, "$(…)"); ok {
				for _, s := range n.Stmts {
					sc.walk(s, inner)
				}
			}
			return false
		case *syntax.Assign:
			if n.Name != nil && promptVars[n.Name.Value] && n.Value != nil {
				sc.prompt(n.Name.Value, n.Value, f)
			}
		case *syntax.ExtGlob:
			// zsh's glob qualifiers *(e:CODE:) and *(+FUNCTION) run code for each file.
			if q := n.Pattern.Value; zshCodeQualifier(q) {
				sc.w.emit(Command{Args: []Word{Lit(q)}, Env: sc.exported, Unknown: Code, Code: Lit(q),
					Why: "a zsh glob qualifier runs code"}, f)
			}
		case *syntax.ProcSubst:
			via := "<(…)"
			if n.Op == syntax.CmdOut {
				via = ">(…)"
			}
			if inner, ok := sc.substitution(f, via); ok {
				for _, s := range n.Stmts {
					sc.walk(s, inner)
				}
			}
			return false
		}
		return true
	})
}

// substitution is the frame of a substitution's commands, reached via via; past maxSubst it
// says so with an Unreadable command instead.
func (sc *scope) substitution(f frame, via string) (frame, bool) {
	if f.subst >= maxSubst {
		sc.w.emit(Command{Unknown: Unreadable, Why: "substitutions nested too deep"}, f)
		return f, false
	}
	inner := f.with(via)
	inner.subst++
	return inner, true
}

// promptVars are the shell's variables whose value it runs: PROMPT_COMMAND as a script, the
// prompts' command substitutions (PS4 under `set -x`, PS0-PS2 in an interactive shell).
var promptVars = map[string]bool{"PROMPT_COMMAND": true, "PS0": true, "PS1": true, "PS2": true, "PS4": true}

// prompt reads what a shell runs of a prompt variable's value.
func (sc *scope) prompt(name string, value *syntax.Word, f frame) {
	v, ok := literal(value)
	if !ok {
		return // its substitutions are in the word, walked as any other's
	}
	inner := f.nested(name)
	inner.env = sc.exported
	if name == "PROMPT_COMMAND" {
		sc.w.script(v, inner, nil)
		return
	}
	if !strings.ContainsAny(v, "$`") {
		return
	}
	// A prompt is expanded as a here-document's body is: read it as one, and walk its
	// substitutions.
	src := ": <<__shellwalk_prompt__\n" + v + "\n__shellwalk_prompt__\n"
	file, err := parse(src)
	if err != nil || len(file.Stmts) != 1 || len(file.Stmts[0].Redirs) != 1 || file.Stmts[0].Redirs[0].Hdoc == nil {
		sc.w.emit(Command{Unknown: Unparsed, Why: name + " does not parse: " + v}, inner)
		return
	}
	body := &scope{w: sc.w, src: src, exported: sc.exported}
	body.prepass(file, sc.exported)
	body.walk(file.Stmts[0].Redirs[0].Hdoc, inner)
}

// zshCodeQualifier reports whether a glob's parenthesised text holds zsh's e or + qualifier.
func zshCodeQualifier(q string) bool {
	for i := 0; i+1 < len(q); i++ {
		next := q[i+1]
		alnum := next == '_' || next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z' || next >= '0' && next <= '9'
		if q[i] == 'e' && !alnum || q[i] == '+' && alnum {
			return true
		}
	}
	return false
}

// word makes a Word of a syntax word.
func (sc *scope) word(w *syntax.Word) Word {
	v, ok := literal(w)
	out := Word{Value: v, Literal: ok, Source: sc.text(w), node: w}
	if !ok {
		if name := simpleParam(w); name != "" && !sc.assigned[name] {
			out.envVar = name
		}
		out.Resolved, out.Known = resolve(w, sc.known)
	}
	return out
}

// known is the value of a variable where the walk stands, when it is known: set by the script
// to a known value, else given to WalkKnown and not set by the script.
func (sc *scope) known(name string) (string, bool) {
	if v, ok := sc.vars[name]; ok {
		if v.Literal {
			return v.Value, true
		}
		return v.Resolved, v.Known
	}
	if sc.assigned[name] {
		return "", false // set somewhere the walk has not read in order (a loop, a read)
	}
	v, ok := sc.w.known[name]
	return v, ok
}

func (sc *scope) text(n syntax.Node) string {
	start, end := n.Pos().Offset(), n.End().Offset()
	if start > end || end > uint(len(sc.src)) {
		return ""
	}
	return sc.src[start:end]
}

func (sc *scope) words(ws []*syntax.Word) []Word {
	out := make([]Word, len(ws))
	for i, w := range ws {
		out[i] = sc.word(w)
	}
	return out
}

var redirOps = map[syntax.RedirOperator]string{
	syntax.RdrOut: ">", syntax.AppOut: ">>", syntax.RdrIn: "<", syntax.RdrInOut: "<>",
	syntax.DplIn: "<&", syntax.DplOut: ">&", syntax.RdrClob: ">|", syntax.Hdoc: "<<",
	syntax.DashHdoc: "<<-", syntax.WordHdoc: "<<<", syntax.RdrAll: "&>", syntax.AppAll: "&>>",
}

func (sc *scope) redirs(rs []*syntax.Redirect) []Redir {
	if len(rs) == 0 {
		return nil
	}
	out := make([]Redir, 0, len(rs))
	for _, r := range rs {
		op, ok := redirOps[r.Op]
		if !ok {
			op = r.Op.String()
		}
		d := Redir{Op: op}
		if r.N != nil {
			d.N = r.N.Value
		}
		switch {
		case r.Hdoc != nil:
			d.Target = sc.word(r.Hdoc)
		case r.Word != nil:
			d.Target = sc.word(r.Word)
		}
		out = append(out, d)
	}
	return out
}

// envFor is the environment of a command line: what the script exported, then its prefixes.
func (sc *scope) envFor(assigns []*syntax.Assign) []Assign {
	if len(assigns) == 0 {
		return sc.exported
	}
	env := make([]Assign, len(sc.exported), len(sc.exported)+len(assigns))
	copy(env, sc.exported)
	for _, a := range assigns {
		if a.Name == nil {
			continue
		}
		env = append(env, Assign{Name: a.Name.Value, Value: sc.assignValue(a)})
	}
	return env
}

func (sc *scope) assignValue(a *syntax.Assign) Word {
	switch {
	case a.Value != nil:
		return sc.word(a.Value)
	case a.Array != nil:
		return Word{Source: sc.text(a.Array)}
	}
	return Lit("")
}

func (sc *scope) setVar(name string, v Word, export bool) {
	if sc.vars == nil {
		sc.vars = map[string]Word{}
	}
	sc.vars[name] = v
	if export || sc.allexport {
		sc.export(name, v)
	}
}

func (sc *scope) export(name string, v Word) {
	env := make([]Assign, 0, len(sc.exported)+1)
	for _, a := range sc.exported {
		if a.Name != name {
			env = append(env, a)
		}
	}
	sc.exported = append(env, Assign{Name: name, Value: v})
}

func (sc *scope) call(st *syntax.Stmt, call *syntax.CallExpr, f frame) {
	if len(call.Args) == 0 { // NAME=VALUE alone: a shell variable
		for _, a := range call.Assigns {
			if a.Name != nil {
				sc.setVar(a.Name.Value, sc.assignValue(a), false)
			}
		}
		return
	}
	args := sc.words(call.Args)
	if args[0].Literal && args[0].Value == "set" {
		for _, a := range args[1:] {
			if a.Literal && (strings.HasPrefix(a.Value, "-") && strings.Contains(a.Value, "a") || a.Value == "allexport") {
				sc.allexport = true
			}
		}
	}
	sc.w.run(args, sc.envFor(call.Assigns), f, sc.input(st), sc.redirs(st.Redirs))
}

// decl reads export, declare, typeset, local and readonly: the variables they set (and export),
// and yields the builtin as a command.
func (sc *scope) decl(st *syntax.Stmt, d *syntax.DeclClause, f frame) {
	variant := d.Variant.Value
	export := variant == "export"
	args := []Word{Lit(variant)}
	for _, a := range d.Args {
		if a.Name == nil && a.Value != nil {
			w := sc.word(a.Value)
			args = append(args, w)
			if w.Literal && strings.HasPrefix(w.Value, "-") && strings.Contains(w.Value, "x") {
				export = true
			}
		}
	}
	type set struct {
		name  string
		value Word
		naked bool
	}
	var sets []set
	for _, a := range d.Args {
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		if a.Naked {
			args = append(args, Lit(name))
			sets = append(sets, set{name: name, naked: true})
			continue
		}
		v := sc.assignValue(a)
		args = append(args, Word{Value: name + "=" + v.Value, Literal: v.Literal, Source: sc.text(a)})
		sets = append(sets, set{name: name, value: v})
	}
	sc.w.emit(Command{Args: args, Name: variant, Env: sc.exported, Redirs: sc.redirs(st.Redirs)}, f)
	for _, s := range sets {
		if !s.naked {
			sc.setVar(s.name, s.value, export)
		} else if v, ok := sc.vars[s.name]; ok && export {
			sc.export(s.name, v)
		}
	}
}
