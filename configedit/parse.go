// Package configedit changes agent-hooks' JSON configuration files, and the hook settings of the
// agent hosts (Claude Code's settings.json, Codex's hooks.json), the way a careful person would:
// it edits the text in place, so every other key, their order, the numbers as written and the
// file's indentation survive; it adds and removes built-in hooks and agent-hooks' own host hooks
// idempotently; and it replaces the file atomically.
package configedit

import (
	"encoding/json"
	"fmt"
	"strings"
)

// node is a JSON value with its position in the source.
type node struct {
	kind    byte // '{' object, '[' array, '"' string, 'n' number, 'l' literal (true, false, null)
	start   int  // offset of the first byte
	end     int  // offset just past the last byte
	members []member
	elems   []*node
	str     string // decoded value of a string
	lit     string // a literal as written
}

type member struct {
	key      string
	keyStart int
	val      *node
}

// SyntaxError is malformed JSON, with its position.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

type parser struct {
	src []byte
	pos int
}

// parse reads one JSON document.
func parse(src []byte) (*node, error) {
	p := &parser{src: src}
	p.ws()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos != len(src) {
		return nil, p.errorf("unexpected %q after the document", src[p.pos])
	}
	return n, nil
}

func (p *parser) errorf(format string, args ...any) error {
	line, col := lineCol(p.src, p.pos)
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// lineCol is the 1-based line and column (in bytes) of offset in src.
func lineCol(src []byte, offset int) (line, col int) {
	line, col = 1, 1
	for _, c := range src[:min(offset, len(src))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

func (p *parser) ws() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (*node, error) {
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(p.src[p.pos:min(len(p.src), p.pos+5)]), lit) {
				n := &node{kind: 'l', start: p.pos, end: p.pos + len(lit), lit: lit}
				p.pos += len(lit)
				return n, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *parser) object() (*node, error) {
	n := &node{kind: '{', start: p.pos}
	seen := map[string]int{} // key: offset of its first occurrence
	err := p.list('}', "an object", func() error {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return p.errorf("expected a string key")
		}
		keyStart := p.pos
		k, err := p.string()
		if err != nil {
			return err
		}
		// A repeated key is refused: get would edit the first, other readers use the last.
		if first, dup := seen[k.str]; dup {
			line, col := lineCol(p.src, first)
			p.pos = keyStart
			return p.errorf("duplicate key %q (first at %d:%d)", k.str, line, col)
		}
		seen[k.str] = keyStart
		p.ws()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return p.errorf("expected ':' after key %q", k.str)
		}
		p.pos++
		p.ws()
		v, err := p.value()
		if err != nil {
			return err
		}
		n.members = append(n.members, member{key: k.str, keyStart: keyStart, val: v})
		return nil
	})
	n.end = p.pos
	return n, err
}

func (p *parser) array() (*node, error) {
	n := &node{kind: '[', start: p.pos}
	err := p.list(']', "an array", func() error {
		v, err := p.value()
		if err == nil {
			n.elems = append(n.elems, v)
		}
		return err
	})
	n.end = p.pos
	return n, err
}

// list reads the comma-separated items of an object or array up to and including closer; the
// opening bracket is at p.pos.
func (p *parser) list(closer byte, what string, item func() error) error {
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == closer {
		p.pos++
		return nil
	}
	for {
		p.ws()
		if err := item(); err != nil {
			return err
		}
		p.ws()
		if p.pos >= len(p.src) {
			return p.errorf("unexpected end of input in %s", what)
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case closer:
			p.pos++
			return nil
		default:
			return p.errorf("expected ',' or '%c' in %s", closer, what)
		}
	}
}

func (p *parser) string() (*node, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == '\\':
			p.pos += 2
		case c == '"':
			p.pos++
			n := &node{kind: '"', start: start, end: p.pos}
			if err := json.Unmarshal(p.src[start:p.pos], &n.str); err != nil {
				p.pos = start
				return nil, p.errorf("bad string: %v", err)
			}
			return n, nil
		case c < 0x20:
			return nil, p.errorf("control character in a string")
		default:
			p.pos++
		}
	}
	return nil, p.errorf("unterminated string")
}

func (p *parser) number() (*node, error) {
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte("+-0123456789.eE", p.src[p.pos]) >= 0 {
		p.pos++
	}
	if !json.Valid(p.src[start:p.pos]) {
		p.pos = start
		return nil, p.errorf("bad number")
	}
	return &node{kind: 'n', start: start, end: p.pos}, nil
}

// get returns the value of key in an object.
func (n *node) get(key string) (*node, int) {
	for i, m := range n.members {
		if m.key == key {
			return m.val, i
		}
	}
	return nil, -1
}
