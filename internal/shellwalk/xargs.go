package shellwalk

import (
	"strconv"
	"strings"
)

// maxRuns bounds the commands one xargs or parallel is read to run; past it the command is
// yielded once more with OpenArgs.
const maxRuns = 32

// runXargs reads xargs: the command (echo by default) runs with arguments from its input. With
// input the walker knows (`echo push | xargs git`), each command line is yielded as xargs builds
// it; otherwise the command is yielded with OpenArgs, and the words holding -I's replace string
// are not literal.
func runXargs(w *walker, c Command, f frame, stdin *input) {
	ws := c.Args[1:]
	var (
		replace  string
		perLines int
		perArgs  int
		delim    byte
		byDelim  bool
		argFile  bool
	)
	i := 0
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
		value := func(attached string, has bool) string {
			if has {
				return attached
			}
			if i < len(ws) {
				i++
				return ws[i-1].Text()
			}
			return ""
		}
		if strings.HasPrefix(v, "--") {
			name, val, has := strings.Cut(v, "=")
			switch name {
			case "--null":
				delim, byDelim = 0, true
			case "--arg-file":
				value(val, has)
				argFile = true
			case "--delimiter":
				delim, byDelim = delimiter(value(val, has)), true
			case "--replace":
				replace = "{}"
				if has {
					replace = val
				}
			case "--max-lines":
				perLines = 1
				if has {
					perLines = atoi(val, 1)
				}
			case "--max-args":
				perArgs = atoi(value(val, has), 0)
			case "--eof", "--max-procs", "--max-chars", "--process-slot-var":
				value(val, has)
			}
			continue
		}
	letters:
		for j := 1; j < len(v); j++ {
			rest, has := v[j+1:], j+1 < len(v)
			switch v[j] {
			case '0':
				delim, byDelim = 0, true
			case 'a':
				value(rest, has)
				argFile = true
				break letters
			case 'd':
				delim, byDelim = delimiter(value(rest, has)), true
				break letters
			case 'I':
				replace = value(rest, has)
				break letters
			case 'i':
				replace = "{}"
				if has {
					replace = rest
				}
				break letters
			case 'L':
				perLines = atoi(value(rest, has), 1)
				break letters
			case 'l':
				perLines = 1
				if has {
					perLines = atoi(rest, 1)
				}
				break letters
			case 'n':
				perArgs = atoi(value(rest, has), 0)
				break letters
			case 'E', 'P', 's':
				value(rest, has)
				break letters
			case 'e':
				break letters // -e[EOF]: its value is attached
			}
		}
	}
	cmd := ws[min(i, len(ws)):]
	own := len(c.Args) - len(cmd)
	if len(cmd) == 0 {
		cmd = []Word{Lit("echo")}
	}
	c.Args, c.Wrapper = c.Args[:own], true
	w.emit(c, f)
	inner := f.with("xargs")
	in := stdin
	if argFile || in != nil && in.expanded {
		in = nil
	}
	if in == nil {
		if replace != "" {
			w.run(replaced(cmd, replace), c.Env, inner, nil, nil)
			return
		}
		inner.open = true
		w.run(cmd, c.Env, inner, nil, nil)
		return
	}
	var runs [][]Word
	switch {
	case replace != "":
		for _, line := range lines(in.text) {
			line = strings.TrimLeft(line, " \t")
			if line == "" {
				continue
			}
			runs = append(runs, substitute(cmd, replace, line))
		}
	default:
		var items []string
		if perLines > 0 && !byDelim {
			var groups [][]string
			for _, line := range lines(in.text) {
				its, ok := xargsItems(line, 0, false)
				if !ok {
					inner.open = true
					w.run(cmd, c.Env, inner, nil, nil)
					return
				}
				if len(its) > 0 {
					groups = append(groups, its)
				}
			}
			for start := 0; start < len(groups); start += perLines {
				var run []Word
				run = append(run, cmd...)
				for _, g := range groups[start:min(start+perLines, len(groups))] {
					for _, it := range g {
						run = append(run, Lit(it))
					}
				}
				runs = append(runs, run)
			}
			if len(runs) == 0 {
				runs = append(runs, cmd)
			}
			break
		}
		items, ok := xargsItems(in.text, delim, byDelim)
		if !ok {
			inner.open = true
			w.run(cmd, c.Env, inner, nil, nil)
			return
		}
		if perArgs <= 0 {
			perArgs = len(items)
		}
		if len(items) == 0 {
			runs = append(runs, cmd)
		}
		for start := 0; start < len(items); start += perArgs {
			run := append([]Word{}, cmd...)
			for _, it := range items[start:min(start+perArgs, len(items))] {
				run = append(run, Lit(it))
			}
			runs = append(runs, run)
		}
	}
	for n, run := range runs {
		if n == maxRuns {
			inner.open = true
			w.run(cmd, c.Env, inner, nil, nil)
			return
		}
		w.run(run, c.Env, inner, nil, nil)
	}
}

func delimiter(s string) byte {
	switch {
	case s == `\n`:
		return '\n'
	case s == `\t`:
		return '\t'
	case s == `\0`:
		return 0
	case s == "":
		return '\n'
	}
	return s[0]
}

func atoi(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return def
	}
	return n
}

// replaced marks the words holding a replace string as not literal: their value comes at run
// time.
func replaced(cmd []Word, repl string) []Word {
	out := make([]Word, len(cmd))
	for i, w := range cmd {
		out[i] = w
		if strings.Contains(w.Text(), repl) {
			out[i] = Word{Source: w.Source, node: w.node}
		}
	}
	return out
}

// substitute puts value in place of the replace string.
func substitute(cmd []Word, repl, value string) []Word {
	out := make([]Word, len(cmd))
	for i, w := range cmd {
		out[i] = w
		if w.Literal && strings.Contains(w.Value, repl) {
			out[i] = Lit(strings.ReplaceAll(w.Value, repl, value))
		} else if !w.Literal && strings.Contains(w.Source, repl) {
			out[i] = Word{Source: w.Source, node: w.node}
		}
	}
	return out
}

// findActions are find's actions that run a command, up to `;` or `+`.
var findActions = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// runFind reads find's -exec, -execdir, -ok and -okdir: each command line runs with {} the file
// found (not literal); with `+`, with more files appended (OpenArgs).
func runFind(w *walker, c Command, f frame, _ *input) {
	type action struct {
		name string
		cmd  []Word
		plus bool
	}
	var actions []action
	own := []Word{c.Args[0]}
	ws := c.Args[1:]
	for i := 0; i < len(ws); i++ {
		x := ws[i]
		if !x.Literal || !findActions[x.Value] {
			own = append(own, x)
			continue
		}
		j := i + 1
		for j < len(ws) && !(ws[j].Literal && (ws[j].Value == ";" || ws[j].Value == "+")) {
			j++
		}
		a := action{name: x.Value, cmd: replaced(ws[i+1:j], "{}")}
		if j < len(ws) {
			a.plus = ws[j].Value == "+"
		}
		actions = append(actions, a)
		i = j
	}
	if len(actions) == 0 {
		w.emit(c, f)
		return
	}
	c.Args, c.Wrapper = own, true
	w.emit(c, f)
	for _, a := range actions {
		inner := f.with("find " + a.name)
		inner.open = a.plus
		w.run(a.cmd, c.Env, inner, nil, nil)
	}
}

// fdPlaceholders are fd's placeholders for the path found.
var fdPlaceholders = []string{"{}", "{/}", "{//}", "{.}", "{/.}"}

// runFd reads fd's -x/--exec and -X/--exec-batch: the rest of the line, up to `;`, runs with
// the path found in place of the placeholders, or appended when there is none.
func runFd(w *walker, c Command, f frame, _ *input) {
	ws := c.Args[1:]
	for i, x := range ws {
		if !x.Literal || x.Value != "-x" && x.Value != "--exec" && x.Value != "-X" && x.Value != "--exec-batch" {
			continue
		}
		cmd := ws[i+1:]
		for j, y := range cmd {
			if y.Literal && y.Value == ";" {
				cmd = cmd[:j]
				break
			}
		}
		open := true
		for _, ph := range fdPlaceholders {
			for _, y := range cmd {
				if strings.Contains(y.Text(), ph) {
					open = false
				}
			}
		}
		for _, ph := range fdPlaceholders {
			cmd = replaced(cmd, ph)
		}
		c.Args, c.Wrapper = c.Args[:1+i+1], true
		w.emit(c, f)
		inner := f.with("fd " + x.Value)
		inner.open = open
		w.run(cmd, c.Env, inner, nil, nil)
		return
	}
	w.emit(c, f)
}

var parallelOptions = spec{valued: "-j -S -a -C -d -E -I -n -N -L -l -P -s --jobs --sshlogin --sshloginfile --slf " +
	"--arg-file --colsep --delimiter --max-args --max-lines --results --res --tmpdir --joblog --timeout " +
	"--delay --memfree --load --retries --tagstring --tag-string --workdir --wd --basefile --bf --env " +
	"--halt --sshdelay --max-procs --return --transfer-file --tf --max-chars --block --recstart --recend"}.compile()

// runParallel reads GNU parallel (and sem): each command line is the template (or the input
// itself when there is none) with an input value in place of {} or appended, run by a shell.
// Values the walker knows are those of one `:::` list or of its known input.
func runParallel(w *walker, c Command, f frame, stdin *input) {
	ws := c.Args[1:]
	p := parallelOptions.parse(ws)
	replace := "{}"
	open := false
	for i := 0; i < p.next; i++ {
		v := ws[i].Text()
		switch {
		case v == "-I" && i+1 < p.next:
			replace = ws[i+1].Text()
		case v == "-a" || strings.HasPrefix(v, "--arg-file"):
			open = true
		}
	}
	rest := ws[p.next:]
	template := rest
	var values []Word
	sources := 0
	for i, x := range rest {
		if x.Literal && strings.HasPrefix(x.Value, ":::") {
			if i < len(template) {
				template = rest[:i]
			}
			sources++
			if x.Value != ":::" {
				open = true // :::: files, :::+ linked lists
			}
			continue
		}
		if sources > 0 {
			values = append(values, x)
		}
	}
	if sources > 1 {
		open = true
	}
	if sources == 0 {
		if stdin == nil || stdin.expanded {
			open = true
		} else {
			for _, l := range lines(stdin.text) {
				values = append(values, Lit(l))
			}
		}
	}
	c.Args, c.Wrapper = c.Args[:1+p.next+len(template)], true
	if len(template) == 0 && open {
		c.Unknown, c.Why = ScriptFile, c.Name+" runs command lines from its input"
		c.Wrapper = false
		w.emit(c, f)
		return
	}
	w.emit(c, f)
	if open {
		inner := f.with(c.Name)
		inner.open = true
		w.run(replaced(template, replace), c.Env, inner, nil, nil)
		return
	}
	line, literal := joinWords(template)
	inner := f.nested(c.Name)
	inner.env = c.Env
	for n, v := range values {
		text := v.Value
		if len(template) > 0 {
			text = line
			if strings.Contains(line, replace) {
				text = strings.ReplaceAll(line, replace, shellQuote(v.Value))
			} else {
				text += " " + shellQuote(v.Value)
			}
		}
		if n == maxRuns || !literal || !v.Literal {
			open := f.with(c.Name)
			open.open = true
			if len(template) == 0 {
				w.emit(Command{Args: []Word{v}, Unknown: ScriptExpansion, Env: c.Env,
					Why: c.Name + " runs a command line named by an expansion: " + v.Source}, open)
				continue
			}
			w.run(replaced(template, replace), c.Env, open, nil, nil)
			return
		}
		w.script(text, inner, nil)
	}
}
