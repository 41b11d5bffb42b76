package approval

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Expr is a condition on a JSON document, as http-poll's successWhen and abortWhen are written
// (the agent-pipelines seed's `success_when: ".status == 'approved'"`). The language is a small
// subset of jq:
//
//	.status == "approved"              a path compared with a literal
//	.review.state != 'pending'         strings in single or double quotes
//	.approved                          a bare path holds unless it is missing, null or false
//	.items[0].state == "done"          array indexes (negative from the end); .["odd key"]
//	.status == "ok" && !(.stale)       && (and), || (or), ! (not), parentheses
//	.decision == null                  literals: strings, numbers, true, false, null
//	.                                  the whole document
//
// Only == and != compare. Equality is JSON equality: 2 == 2.0, "2" != 2, objects and arrays
// compare deeply. A path through a missing key, a non-object or an index out of range is null.
type Expr struct {
	src  string
	root node
}

// CompileExpr parses an expression.
func CompileExpr(src string) (*Expr, error) {
	p := &parser{src: src}
	p.next()
	n, err := p.parseOr()
	if err == nil && p.tok.kind != tEOF {
		err = p.errorf("unexpected %s", p.tok)
	}
	if err != nil {
		return nil, err
	}
	return &Expr{src: src, root: n}, nil
}

// String returns the expression as written.
func (e *Expr) String() string { return e.src }

// Match evaluates the expression on doc (a value decoded by encoding/json) as a condition.
func (e *Expr) Match(doc any) bool { return truthy(e.root.eval(doc)) }

// Value evaluates the expression on doc.
func (e *Expr) Value(doc any) any { return e.root.eval(doc) }

type node interface{ eval(doc any) any }

type (
	pathNode    []any // string keys and int indexes
	literalNode struct{ v any }
	notNode     struct{ x node }
	binaryNode  struct {
		op   string
		l, r node
	}
)

func (p pathNode) eval(doc any) any {
	cur := doc
	for _, seg := range p {
		switch k := seg.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			cur = m[k]
		case int:
			a, ok := cur.([]any)
			if !ok {
				return nil
			}
			if k < 0 {
				k += len(a)
			}
			if k < 0 || k >= len(a) {
				return nil
			}
			cur = a[k]
		}
	}
	return cur
}

func (n literalNode) eval(any) any { return n.v }

func (n notNode) eval(doc any) any { return !truthy(n.x.eval(doc)) }

func (n binaryNode) eval(doc any) any {
	switch n.op {
	case "&&":
		return truthy(n.l.eval(doc)) && truthy(n.r.eval(doc))
	case "||":
		return truthy(n.l.eval(doc)) || truthy(n.r.eval(doc))
	case "==":
		return jsonEqual(n.l.eval(doc), n.r.eval(doc))
	default: // "!="
		return !jsonEqual(n.l.eval(doc), n.r.eval(doc))
	}
}

func truthy(v any) bool {
	b, isBool := v.(bool)
	return v != nil && (!isBool || b)
}

func jsonEqual(a, b any) bool {
	if fa, ok := toFloat(a); ok {
		fb, ok := toFloat(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

// lexer and parser

type tokKind int

const (
	tEOF tokKind = iota
	tPath
	tString
	tNumber
	tIdent
	tOp
	tErr
)

type token struct {
	kind tokKind
	text string
	path pathNode
	val  any
	pos  int
}

func (t token) String() string {
	if t.kind == tEOF {
		return "end of expression"
	}
	return strconv.Quote(t.text)
}

type parser struct {
	src string
	pos int
	tok token
	err error
}

func (p *parser) errorf(format string, args ...any) error {
	if p.err != nil {
		return p.err
	}
	return fmt.Errorf("at column %d: %s", p.tok.pos+1, fmt.Sprintf(format, args...))
}

func (p *parser) next() {
	s := p.src
	for p.pos < len(s) && (s[p.pos] == ' ' || s[p.pos] == '\t' || s[p.pos] == '\n') {
		p.pos++
	}
	start := p.pos
	if p.pos >= len(s) {
		p.tok = token{kind: tEOF, pos: start}
		return
	}
	c := s[p.pos]
	switch {
	case c == '.':
		path, err := p.lexPath()
		if err != nil {
			p.err = fmt.Errorf("at column %d: %w", start+1, err)
			p.tok = token{kind: tErr, pos: start}
			return
		}
		p.tok = token{kind: tPath, text: s[start:p.pos], path: path, pos: start}
	case c == '"' || c == '\'':
		str, err := p.lexString()
		if err != nil {
			p.err = fmt.Errorf("at column %d: %w", start+1, err)
			p.tok = token{kind: tErr, pos: start}
			return
		}
		p.tok = token{kind: tString, text: s[start:p.pos], val: str, pos: start}
	case c == '-' || c >= '0' && c <= '9':
		p.pos++
		for p.pos < len(s) && strings.ContainsRune("0123456789.eE+-", rune(s[p.pos])) {
			p.pos++
		}
		f, err := strconv.ParseFloat(s[start:p.pos], 64)
		if err != nil {
			p.err = fmt.Errorf("at column %d: bad number %q", start+1, s[start:p.pos])
			p.tok = token{kind: tErr, pos: start}
			return
		}
		p.tok = token{kind: tNumber, text: s[start:p.pos], val: f, pos: start}
	case isIdentStart(c):
		p.tok = token{kind: tIdent, text: p.lexIdent(), pos: start}
	default:
		for _, op := range []string{"==", "!=", "&&", "||", "!", "(", ")"} {
			if strings.HasPrefix(s[p.pos:], op) {
				p.pos += len(op)
				p.tok = token{kind: tOp, text: op, pos: start}
				return
			}
		}
		r, _ := utf8.DecodeRuneInString(s[p.pos:])
		p.err = fmt.Errorf("at column %d: unexpected %q (operators: == != && || ! and parentheses)", start+1, r)
		p.tok = token{kind: tErr, pos: start}
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '-' }

// lexPath reads .a.b[0]["c d"] (or "." alone, the whole document).
func (p *parser) lexPath() (pathNode, error) {
	s := p.src
	at := func(i int, ok func(byte) bool) bool { return i < len(s) && ok(s[i]) }
	is := func(c byte) func(byte) bool { return func(b byte) bool { return b == c } }
	path := pathNode{}
	p.pos++ // the leading '.'
	if at(p.pos, isIdentStart) {
		path = append(path, p.lexIdent())
	}
	for {
		switch {
		case at(p.pos, is('[')):
			p.pos++
			if at(p.pos, is('"')) || at(p.pos, is('\'')) {
				key, err := p.lexString()
				if err != nil {
					return nil, err
				}
				path = append(path, key)
			} else {
				start := p.pos
				for at(p.pos, func(b byte) bool { return b == '-' || b >= '0' && b <= '9' }) {
					p.pos++
				}
				i, err := strconv.Atoi(s[start:p.pos])
				if err != nil {
					return nil, fmt.Errorf("want an index or a quoted key inside [ ]")
				}
				path = append(path, i)
			}
			if !at(p.pos, is(']')) {
				return nil, fmt.Errorf("missing ]")
			}
			p.pos++
		case at(p.pos, is('.')) && at(p.pos+1, isIdentStart):
			p.pos++
			path = append(path, p.lexIdent())
		case at(p.pos, is('.')) && at(p.pos+1, is('[')):
			p.pos++
		case at(p.pos, is('.')) || at(p.pos, isIdentChar):
			return nil, fmt.Errorf("bad path near %q", s[p.pos:min(len(s), p.pos+10)])
		default:
			return path, nil
		}
	}
}

func (p *parser) lexIdent() string {
	start := p.pos
	for p.pos < len(p.src) && isIdentChar(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos]
}

// lexString reads a quoted string; \" \' \\ \n \t and \uXXXX escapes are understood.
func (p *parser) lexString() (string, error) {
	s := p.src
	q := s[p.pos]
	p.pos++
	var b strings.Builder
	for p.pos < len(s) {
		c := s[p.pos]
		switch {
		case c == q:
			p.pos++
			return b.String(), nil
		case c == '\\' && p.pos+1 < len(s):
			e := s[p.pos+1]
			p.pos += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if p.pos+4 > len(s) {
					return "", fmt.Errorf("bad \\u escape")
				}
				n, err := strconv.ParseUint(s[p.pos:p.pos+4], 16, 32)
				if err != nil {
					return "", fmt.Errorf("bad \\u escape")
				}
				b.WriteRune(rune(n))
				p.pos += 4
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", fmt.Errorf("unterminated string")
}

func (p *parser) parseOr() (node, error) {
	l, err := p.parseAnd()
	for err == nil && p.tok.kind == tOp && p.tok.text == "||" {
		p.next()
		var r node
		if r, err = p.parseAnd(); err == nil {
			l = binaryNode{op: "||", l: l, r: r}
		}
	}
	return l, err
}

func (p *parser) parseAnd() (node, error) {
	l, err := p.parseNot()
	for err == nil && p.tok.kind == tOp && p.tok.text == "&&" {
		p.next()
		var r node
		if r, err = p.parseNot(); err == nil {
			l = binaryNode{op: "&&", l: l, r: r}
		}
	}
	return l, err
}

func (p *parser) parseNot() (node, error) {
	if p.tok.kind == tOp && p.tok.text == "!" {
		p.next()
		x, err := p.parseNot()
		return notNode{x}, err
	}
	return p.parseCmp()
}

func (p *parser) parseCmp() (node, error) {
	l, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	if p.tok.kind == tOp && (p.tok.text == "==" || p.tok.text == "!=") {
		op := p.tok.text
		p.next()
		r, err := p.parsePrimary()
		if err != nil {
			return nil, err
		}
		return binaryNode{op: op, l: l, r: r}, nil
	}
	return l, nil
}

func (p *parser) parsePrimary() (node, error) {
	t := p.tok
	switch t.kind {
	case tErr:
		return nil, p.err
	case tPath:
		p.next()
		return t.path, nil
	case tString, tNumber:
		p.next()
		return literalNode{t.val}, nil
	case tIdent:
		lits := map[string]any{"true": true, "false": false, "null": nil}
		if v, ok := lits[t.text]; ok {
			p.next()
			return literalNode{v}, nil
		}
		hint := ""
		if r, _ := utf8.DecodeRuneInString(t.text); unicode.IsLetter(r) {
			hint = fmt.Sprintf(" (a path starts with a dot: .%s; a string is quoted: %q)", t.text, t.text)
		}
		return nil, p.errorf("unexpected %s%s", t, hint)
	case tOp:
		if t.text == "(" {
			p.next()
			n, err := p.parseOr()
			if err != nil {
				return nil, err
			}
			if p.tok.kind != tOp || p.tok.text != ")" {
				return nil, p.errorf("missing )")
			}
			p.next()
			return n, nil
		}
	}
	return nil, p.errorf("unexpected %s", t)
}
