package shellwalk

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// input is what a statement reads on its standard input, when the walker can tell: a literal
// here-document or here-string, or the output of `echo`/`printf`/`cat` piped into it.
func (sc *scope) input(st *syntax.Stmt) *input {
	return sc.inputDepth(st, 0)
}

func (sc *scope) inputDepth(st *syntax.Stmt, depth int) *input {
	for i := len(st.Redirs) - 1; i >= 0; i-- {
		r := st.Redirs[i]
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				return &input{}
			}
			if v, ok := literal(r.Hdoc); ok {
				if r.Op == syntax.DashHdoc {
					v = stripTabs(v)
				}
				return &input{text: v}
			}
			text := sc.text(r.Hdoc)
			if d, ok := literal(r.Word); ok { // the source runs up to the closing delimiter
				text = strings.TrimSuffix(strings.TrimRight(text, "\n"), d)
			}
			return &input{text: text, expanded: true}
		case syntax.WordHdoc:
			if v, ok := literal(r.Word); ok {
				return &input{text: v + "\n"}
			}
			return &input{text: sc.text(r.Word), expanded: true}
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			return nil
		}
	}
	if left, ok := sc.left[st]; ok {
		if depth > 16 {
			return nil
		}
		return sc.outputDepth(left, depth+1)
	}
	return sc.stdin
}

// outputDepth is what a statement writes on its standard output when the walker can tell.
func (sc *scope) outputDepth(st *syntax.Stmt, depth int) *input {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	for _, r := range st.Redirs {
		if r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc && r.Op != syntax.WordHdoc {
			return nil // the output may go elsewhere
		}
	}
	args := make([]string, len(call.Args))
	literalArgs := true
	for i, a := range call.Args {
		v, ok := literal(a)
		if !ok {
			v, literalArgs = sc.text(a), false
		}
		args[i] = v
	}
	if !literalArgs && (call.Args[0].Lit() == "" || len(call.Args) == 1) {
		return nil
	}
	var out *input
	switch baseName(args[0]) {
	case "echo":
		out = echoOutput(args[1:])
	case "printf":
		out = printfOutput(args[1:])
	case "cat":
		if len(args) == 1 || len(args) == 2 && args[1] == "-" {
			return sc.inputDepth(st, depth)
		}
		return nil
	default:
		return nil
	}
	if !literalArgs {
		// echo "git $SUB": written here, but expanded first.
		out.text, out.expanded = strings.Join(args[1:], " "), true
	}
	return out
}

// echoOutput is what echo prints. Text with a backslash is not known: shells' echo differ on
// escapes.
func echoOutput(args []string) *input {
	newline := true
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		if strings.Contains(args[0], "n") {
			newline = false
		}
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if strings.Contains(s, `\`) {
		return &input{text: s, expanded: true} // shells' echo differ on escapes
	}
	if newline {
		s += "\n"
	}
	return &input{text: s}
}

// printfOutput is what printf prints, for formats of text, \n, \t, \\, %s and %%.
func printfOutput(args []string) *input {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return &input{}
	}
	unread := &input{text: strings.Join(args, " "), expanded: true}
	format, values := args[0], args[1:]
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\' && i+1 < len(format):
				i++
				switch format[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '\\':
					b.WriteByte('\\')
				default:
					return unread
				}
			case c == '%' && i+1 < len(format):
				i++
				switch format[i] {
				case '%':
					b.WriteByte('%')
				case 's':
					if used < len(values) {
						b.WriteString(values[used])
					}
					used++
				default:
					return unread
				}
			default:
				b.WriteByte(c)
			}
		}
		if used == 0 || used >= len(values) {
			break
		}
		values = values[used:]
	}
	return &input{text: b.String()}
}

func stripTabs(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "")
}

// procOutput is the output of a process substitution given as a word (`sh <(echo …)`), when the
// walker can tell.
func (w Word) procOutput() *input {
	if w.node == nil || len(w.node.Parts) != 1 {
		return nil
	}
	ps, ok := w.node.Parts[0].(*syntax.ProcSubst)
	if !ok || ps.Op != syntax.CmdIn || len(ps.Stmts) != 1 {
		return nil
	}
	sc := &scope{}
	return sc.outputDepth(ps.Stmts[0], 0)
}

// xargsItems splits xargs' input into arguments: by blanks and newlines, with quotes and
// backslashes, or at each delim when delim is not 0 (-0, -d).
func xargsItems(text string, delim byte, byDelim bool) ([]string, bool) {
	if byDelim {
		items := strings.Split(text, string(delim))
		if len(items) > 0 && items[len(items)-1] == "" {
			items = items[:len(items)-1]
		}
		return items, true
	}
	var items []string
	var b strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\n' {
				return nil, false // xargs: unmatched quote
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(text):
			i++
			b.WriteByte(text[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				items = append(items, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		items = append(items, b.String())
	}
	return items, true
}

// lines splits text into lines without their newline, dropping a last empty one.
func lines(text string) []string {
	ls := strings.Split(text, "\n")
	if len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}
