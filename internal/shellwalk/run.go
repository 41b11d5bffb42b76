package shellwalk

import "strings"

// run yields a command line and, through the program's handler, what it runs.
func (w *walker) run(args []Word, env []Assign, f frame, stdin *input, redirs []Redir) {
	if len(args) == 0 {
		return
	}
	c := Command{Args: args, Env: env, Redirs: redirs, OpenArgs: f.open}
	if env == nil {
		c.Env = f.env
	}
	prog := args[0]
	if !prog.Literal {
		c.Unknown, c.Why = NamedByExpansion, "runs a program named by an expansion: "+prog.Source
		if prog.envVar != "" {
			c.Unknown = NamedByEnv
		}
		w.emit(c, f)
		return
	}
	c.Name = ProgramName(prog.Value)
	p, ok := lookup(family(c.Name))
	if !ok || p.run == nil {
		w.emit(c, f)
		return
	}
	p.run(w, c, f, stdin)
}

// ProgramName is the name a program is known by: its path's base name, without Windows' .exe.
func ProgramName(p string) string {
	name := baseName(p)
	if len(name) > 4 && strings.EqualFold(name[len(name)-4:], ".exe") {
		name = name[:len(name)-4]
	}
	return name
}

// family maps versioned names to their program: python3.12 to python.
func family(name string) string {
	for _, prefix := range []string{"python", "pypy"} {
		if strings.HasPrefix(name, prefix) && strings.Trim(name[len(prefix):], "0123456789.") == "" {
			return "python"
		}
	}
	return name
}

// wrap yields c as a wrapper of its own words c.Args[:own] and runs rest as its command.
func (w *walker) wrap(c Command, own int, env []Assign, rest []Word, f frame, stdin *input) {
	if len(rest) == 0 {
		w.emit(c, f)
		return
	}
	c.Args, c.Wrapper = c.Args[:own], true
	w.emit(c, f)
	w.run(rest, env, f.with(c.Name), stdin, nil)
}

// nestedScript yields c as a wrapper that runs script, and the script's commands.
func (w *walker) nestedScript(c Command, env []Assign, script Word, via string, f frame, stdin *input) {
	if !script.Literal {
		c.Unknown, c.Why = ScriptExpansion, c.Name+" runs a script the shell expands first: "+script.Source
		w.emit(c, f)
		return
	}
	c.Wrapper = true
	w.emit(c, f)
	inner := f.nested(via)
	inner.env, inner.open = env, false
	w.script(script.Value, inner, stdin)
}

// scriptFile yields c as a program reading a script the walker cannot see, unless it is
// /dev/stdin or a process substitution whose output is known.
func (w *walker) scriptFile(c Command, file *Word, via string, f frame, stdin *input) {
	var in *input
	switch {
	case file == nil || file.Literal && (file.Value == "-" || file.Value == "/dev/stdin"):
		in = stdin
	default:
		in = file.procOutput()
	}
	if in == nil {
		c.Unknown = ScriptFile
		if file == nil {
			c.Why = c.Name + " reads commands from its standard input"
		} else {
			c.Why = c.Name + " runs the script " + file.Source
		}
		w.emit(c, f)
		return
	}
	script := Lit(in.text)
	if in.expanded {
		script = Word{Source: in.text}
	}
	w.nestedScript(c, c.Env, script, via, f, nil)
}
