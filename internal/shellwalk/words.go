package shellwalk

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Word is one word of a command line.
type Word struct {
	// Value is the word as the program receives it, when Literal: quotes and escapes removed.
	Value string
	// Literal is set when the shell expands nothing in the word: no parameter, command or
	// arithmetic substitution, no glob or brace pattern, no $'…', no zsh =cmd.
	Literal bool
	// Source is the word as written.
	Source string
	// Resolved is the value of a word that is not Literal but expands only variables whose
	// values are known where it stands: set to a known value earlier in the script, as read in
	// order (a branch not taken may have set it otherwise), or given to WalkKnown (HOME). Known
	// reports that it is set. Callers that match paths read it; the git gates do not trust it.
	Resolved string
	Known    bool

	// envVar is the variable a word that is exactly one `$NAME` (or "${NAME}") names, when the
	// script being read does not set it: its value comes from the environment the command was
	// started in.
	envVar string
	// node is the word in the syntax tree, nil for a word the walker made (env -S, xargs' input).
	node *syntax.Word
}

// Lit is a literal word the walker makes (from env -S's string, xargs' input, a template).
func Lit(value string) Word { return Word{Value: value, Literal: true, Source: value} }

// Text is the word's value when it is literal, else its source text.
func (w Word) Text() string {
	if w.Literal {
		return w.Value
	}
	return w.Source
}

// resolve is the value of w when its only expansions are simple parameters ($X, ${X}, "$X")
// whose values are known (value returns them).
func resolve(w *syntax.Word, value func(name string) (string, bool)) (string, bool) {
	var b strings.Builder
	var part func(p syntax.WordPart, quoted bool) bool
	part = func(p syntax.WordPart, quoted bool) bool {
		switch p := p.(type) {
		case *syntax.Lit:
			if !quoted && pattern(p.Value) {
				return false
			}
			b.WriteString(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if !part(q, true) {
					return false
				}
			}
		case *syntax.ParamExp:
			if p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil ||
				p.Repl != nil || p.Exp != nil || p.Names != 0 || p.NestedParam != nil || p.Flags != nil {
				return false
			}
			v, ok := value(p.Param.Value)
			if !ok {
				return false
			}
			b.WriteString(v)
		default:
			return false
		}
		return true
	}
	for _, p := range w.Parts {
		if !part(p, false) {
			return "", false
		}
	}
	return b.String(), true
}

// literal is the value of a word without expansions: literal text and quotes only.
func literal(w *syntax.Word) (string, bool) {
	if l, ok := w.Parts[0].(*syntax.Lit); ok && len(l.Value) > 1 && l.Value[0] == '=' && isName(l.Value[1:2]) {
		return "", false // zsh's =cmd: the path of cmd
	}
	if len(w.Parts) == 1 { // the common case: one plain literal, no copy
		if l, ok := w.Parts[0].(*syntax.Lit); ok {
			if pattern(l.Value) {
				return "", false
			}
			return unescape(l.Value, false), true
		}
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if pattern(p.Value) {
				return "", false
			}
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

// pattern reports whether unquoted text holds a glob (*, ?, [...]) or a brace expansion
// ({a,b}, {1..3}) the shell expands: such a word's value is not known until it runs.
func pattern(s string) bool {
	if !strings.ContainsAny(s, "*?[{") {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		case '{':
			rest := s[i+1:]
			end := strings.IndexByte(rest, '}')
			if end > 0 && (strings.IndexByte(rest[:end], ',') >= 0 || strings.Contains(rest[:end], "..")) {
				return true
			}
		}
	}
	return false
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

// simpleParam is the name a word made of exactly one `$NAME` or `${NAME}` (quoted or not)
// expands, or "".
func simpleParam(w *syntax.Word) string {
	if len(w.Parts) != 1 {
		return ""
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok {
		if len(dq.Parts) != 1 {
			return ""
		}
		part = dq.Parts[0]
	}
	p, ok := part.(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil ||
		p.Repl != nil || p.Exp != nil || p.Names != 0 || p.NestedParam != nil || p.Flags != nil {
		return ""
	}
	return p.Param.Value
}

// baseName is the last element of a program's path, as the shell's PATH lookup does not change it.
func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// splitAssign splits a literal NAME=VALUE word.
func splitAssign(w Word) (string, Word, bool) {
	if !w.Literal {
		// NAME=$(…) is still an assignment: its name is literal text before '='.
		name, _, ok := strings.Cut(w.Source, "=")
		if !ok || !isName(name) {
			return "", Word{}, false
		}
		v := strings.TrimPrefix(w.Source, name+"=")
		return name, Word{Source: v}, true
	}
	name, value, ok := strings.Cut(w.Value, "=")
	if !ok || !isName(name) {
		return "", Word{}, false
	}
	return name, Lit(value), true
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// joinWords joins words into a script line as `sh -c "$*"` would see them: literal words as
// they are, others by their source text. ok is false when a word is not literal.
func joinWords(ws []Word) (string, bool) {
	parts := make([]string, len(ws))
	ok := true
	for i, w := range ws {
		parts[i] = w.Text()
		ok = ok && w.Literal
	}
	return strings.Join(parts, " "), ok
}

// sourceOf joins words by their source text.
func sourceOf(ws []Word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.Source
	}
	return strings.Join(parts, " ")
}
