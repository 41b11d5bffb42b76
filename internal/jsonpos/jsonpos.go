// Package jsonpos is agent-hooks' one position-aware JSON parser. It reads a document into a
// tree that keeps where every value and key stands in the source, so that a configuration
// error names its line and column (syntax, type, duplicate key) and an edit can change a few
// bytes of a file and keep every other byte as it was written.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the kind of a JSON value.
type Kind byte

// The kinds of value.
const (
	Object Kind = '{'
	Array  Kind = '['
	String Kind = '"'
	Number Kind = '0'
	True   Kind = 't'
	False  Kind = 'f'
	Null   Kind = 'n'
)

func (k Kind) String() string {
	switch k {
	case Object:
		return "an object"
	case Array:
		return "an array"
	case String:
		return "a string"
	case Number:
		return "a number"
	case True, False:
		return "a boolean"
	case Null:
		return "null"
	}
	return fmt.Sprintf("Kind(%q)", byte(k))
}

// Value is one JSON value and where it is in the source.
type Value struct {
	Kind    Kind
	Start   int      // offset of its first byte
	End     int      // offset just past its last byte
	Members []Member // an object's members in source order
	Elems   []*Value // an array's elements
	Str     string   // a string's decoded value
}

// Member is one key and its value in an object.
type Member struct {
	Key      string // decoded
	KeyStart int    // offset of the key's opening quote
	Value    *Value
}

// Get returns the value of key in an object and its index in Members (nil, -1 when absent).
func (v *Value) Get(key string) (*Value, int) {
	for i, m := range v.Members {
		if m.Key == key {
			return m.Value, i
		}
	}
	return nil, -1
}

// Doc is a parsed document.
type Doc struct {
	Src  []byte
	Root *Value
	// Duplicates are the keys repeated in an object, in document order. The tree keeps every
	// member, so each caller decides; agent-hooks refuses them, because other JSON readers keep
	// only the last of them while a walk of the tree would see both.
	Duplicates []Duplicate
	lines      []int // offsets where lines start, computed on first use
}

// Duplicate is a key repeated in one object.
type Duplicate struct {
	// Path is where the object is: "" for the top level, "hooks", "hooks.Stop[0].env".
	Path                string
	Key                 string
	Offset              int // of the repeated key's opening quote
	First               int // of the first occurrence's opening quote
	Line, Col           int // of Offset
	FirstLine, FirstCol int // of First
}

// Message describes the duplicate without its position: `duplicate key "k" (first at 2:3)`.
func (d Duplicate) Message() string {
	return fmt.Sprintf("duplicate key %q (first at %d:%d)", d.Key, d.FirstLine, d.FirstCol)
}

// SyntaxError is malformed JSON and where it is.
type SyntaxError struct {
	Offset    int // in bytes
	Line, Col int // 1-based; columns count characters
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// TypeError is a value of the wrong type for what it is decoded into, and where it is.
type TypeError struct {
	Offset    int // of the value
	Line, Col int
	Field     string // the path of the field inside the decoded value ("" for the value itself)
	Want      string // what the field takes: "a string", "an object", "true or false", …
	Got       string // the JSON type found: "string", "number", "array", …
}

func (e *TypeError) Error() string {
	field := e.Field
	if field == "" {
		field = "value"
	}
	return fmt.Sprintf("%d:%d: %s: want %s, got JSON %s", e.Line, e.Col, field, e.Want, e.Got)
}

// Decode decodes v into dst with encoding/json. A value whose type does not fit is a *TypeError
// at that value, however deep it is; an error of an UnmarshalJSON method is returned as it is.
func (d *Doc) Decode(v *Value, dst any) error {
	err := json.Unmarshal(d.Raw(v), dst)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	at := v.Start
	if bad := v.find(v.Start + int(te.Offset)); bad != nil {
		at = bad.Start
	}
	line, col := d.LineCol(at)
	return &TypeError{Offset: at, Line: line, Col: col, Field: te.Field, Want: Want(te.Type), Got: te.Value}
}

// find is the value encoding/json means by the offset of an UnmarshalTypeError: it is just past
// a scalar, and just past the opening bracket of an array or object.
func (v *Value) find(offset int) *Value {
	switch v.Kind {
	case Object, Array:
		if offset == v.Start+1 {
			return v
		}
		for _, m := range v.Members {
			if f := m.Value.find(offset); f != nil {
				return f
			}
		}
		for _, e := range v.Elems {
			if f := e.find(offset); f != nil {
				return f
			}
		}
		return nil
	}
	if offset == v.End {
		return v
	}
	return nil
}

var numberType = reflect.TypeFor[json.Number]()

// Want names the JSON a Go type takes ("a string", "an object", "true or false", …).
func Want(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a value"
	}
	switch {
	case t == numberType:
		return "a number"
	case t.Kind() == reflect.Map || t.Kind() == reflect.Struct:
		return "an object"
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return "an array"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return "a number"
	}
	return t.String()
}

// MaxDepth is how deeply arrays and objects may nest (encoding/json's limit), so that a hostile
// file cannot exhaust the stack.
const MaxDepth = 10000

// Parse reads one JSON document (RFC 8259; whitespace around it is allowed, nothing else). The
// error is a *SyntaxError at the first byte that is wrong; an input that ends too early is
// reported at its last non-blank byte, the place where it stops.
func Parse(src []byte) (*Doc, error) {
	d := &Doc{Src: src}
	p := &parser{doc: d, src: src, text: string(src)}
	p.ws()
	root, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos != len(src) {
		r, _ := utf8.DecodeRune(src[p.pos:])
		return nil, p.errorf("unexpected %q after the document", r)
	}
	d.Root = root
	return d, nil
}

// Raw is the source text of v.
func (d *Doc) Raw(v *Value) []byte { return d.Src[v.Start:v.End] }

// LineCol is the 1-based line and column of a byte offset in src, as Doc.LineCol counts them:
// for a text read once (a command template, a payload), with no Doc to keep.
func LineCol(src []byte, offset int) (line, col int) {
	d := Doc{Src: src}
	return d.LineCol(offset)
}

// LineCol is the 1-based line and column of a byte offset; columns count characters (runes),
// as editors show them. An offset out of range is clamped to the source.
func (d *Doc) LineCol(offset int) (line, col int) {
	if d.lines == nil {
		d.lines = []int{0}
		for i, c := range d.Src {
			if c == '\n' {
				d.lines = append(d.lines, i+1)
			}
		}
	}
	offset = min(max(offset, 0), len(d.Src))
	i := sort.Search(len(d.lines), func(i int) bool { return d.lines[i] > offset }) - 1
	return i + 1, utf8.RuneCount(d.Src[d.lines[i]:offset]) + 1
}

// step is one level of the path to the value being read: an object's key or an array's index.
type step struct {
	key   string
	index int // -1 for a key
}

type parser struct {
	doc  *Doc
	src  []byte
	text string // src, copied once: every decoded string without an escape is a slice of it
	pos  int
	path []step
	slab []Value // where new Values are taken from, a block at a time
}

// newValue is a Value from the slab: a configuration has hundreds, and one allocation each was
// a tenth of what a hook call allocates.
func (p *parser) newValue(kind Kind, start int) *Value {
	if len(p.slab) == 0 {
		// A value takes at least a few bytes of source: a small document gets a small block.
		p.slab = make([]Value, min(64, max(4, (len(p.src)-p.pos)/8)))
	}
	v := &p.slab[0]
	p.slab = p.slab[1:]
	v.Kind, v.Start = kind, start
	return v
}

func (p *parser) errorAt(offset int, format string, args ...any) *SyntaxError {
	line, col := p.doc.LineCol(offset)
	return &SyntaxError{Offset: offset, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) errorf(format string, args ...any) error {
	return p.errorAt(p.pos, format, args...)
}

// eof is the error of a document that ends inside what.
func (p *parser) eof(what string) error {
	at := len(bytes.TrimRight(p.src, " \t\r\n")) - 1
	msg := "unexpected end of JSON input"
	if what != "" {
		msg += " in " + what
	}
	return p.errorAt(max(at, 0), "%s", msg)
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

func (p *parser) value() (*Value, error) {
	if p.pos >= len(p.src) {
		return nil, p.eof("")
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
	}
	for _, lit := range [...]struct {
		text string
		kind Kind
	}{{"true", True}, {"false", False}, {"null", Null}} {
		if bytes.HasPrefix(p.src[p.pos:], []byte(lit.text)) {
			v := p.newValue(lit.kind, p.pos)
			v.End = p.pos + len(lit.text)
			p.pos = v.End
			return v, nil
		}
	}
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	return nil, p.errorf("unexpected %q", r)
}

func (p *parser) object() (*Value, error) {
	v := p.newValue(Object, p.pos)
	var seen map[string]int // key: offset of its first occurrence, once the object is large
	err := p.list('}', "an object", func() error {
		if p.pos >= len(p.src) {
			return p.eof("an object")
		}
		if p.src[p.pos] != '"' {
			return p.errorf("expected a string key")
		}
		keyStart := p.pos
		key, _, err := p.stringLit()
		if err != nil {
			return err
		}
		if first, dup := p.seen(v.Members, &seen, key); dup {
			p.duplicate(key, keyStart, first)
		} else if seen != nil {
			seen[key] = keyStart
		}
		p.ws()
		if p.pos >= len(p.src) {
			return p.eof("an object")
		}
		if p.src[p.pos] != ':' {
			return p.errorf("expected ':' after key %q", key)
		}
		p.pos++
		p.ws()
		p.path = append(p.path, step{key: key, index: -1})
		val, err := p.value()
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return err
		}
		v.Members = append(v.Members, Member{Key: key, KeyStart: keyStart, Value: val})
		return nil
	})
	v.End = p.pos
	return v, err
}

// seenAfter is how many members an object has before seen keeps its keys in a map; below it a
// look through the members is quicker than making one.
const seenAfter = 16

// seen reports whether key is among an object's members so far, and the offset of its first
// occurrence; *index is the map of the keys of an object with more than seenAfter members,
// made when it reaches that size.
func (p *parser) seen(members []Member, index *map[string]int, key string) (int, bool) {
	if *index != nil {
		first, ok := (*index)[key]
		return first, ok
	}
	for _, m := range members {
		if m.Key == key {
			return m.KeyStart, true
		}
	}
	if len(members) >= seenAfter {
		*index = make(map[string]int, 2*len(members))
		for _, m := range members {
			if _, dup := (*index)[m.Key]; !dup {
				(*index)[m.Key] = m.KeyStart
			}
		}
	}
	return 0, false
}

func (p *parser) duplicate(key string, offset, first int) {
	var path strings.Builder
	for _, s := range p.path {
		switch {
		case s.index >= 0:
			path.WriteString("[" + strconv.Itoa(s.index) + "]")
		case path.Len() > 0:
			path.WriteString("." + s.key)
		default:
			path.WriteString(s.key)
		}
	}
	d := Duplicate{Path: path.String(), Key: key, Offset: offset, First: first}
	d.Line, d.Col = p.doc.LineCol(offset)
	d.FirstLine, d.FirstCol = p.doc.LineCol(first)
	p.doc.Duplicates = append(p.doc.Duplicates, d)
}

func (p *parser) array() (*Value, error) {
	v := p.newValue(Array, p.pos)
	err := p.list(']', "an array", func() error {
		p.path = append(p.path, step{index: len(v.Elems)})
		el, err := p.value()
		p.path = p.path[:len(p.path)-1]
		if err == nil {
			v.Elems = append(v.Elems, el)
		}
		return err
	})
	v.End = p.pos
	return v, err
}

// list reads the comma-separated items of an object or array up to and including closer; the
// opening bracket is at p.pos.
func (p *parser) list(closer byte, what string, item func() error) error {
	if len(p.path) >= MaxDepth {
		return p.errorf("nested more than %d levels deep", MaxDepth)
	}
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
			return p.eof(what)
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

func (p *parser) string() (*Value, error) {
	start := p.pos
	str, end, err := p.stringLit()
	if err != nil {
		return nil, err
	}
	v := p.newValue(String, start)
	v.End, v.Str = end, str
	return v, nil
}

// stringLit reads the string literal at p.pos and returns its decoded value and the offset just
// past it.
func (p *parser) stringLit() (string, int, error) {
	start := p.pos
	escaped := false
	for p.pos++; p.pos < len(p.src); {
		switch c := p.src[p.pos]; {
		case c == '\\':
			escaped = true
			p.pos += 2
		case c == '"':
			p.pos++
			lit := p.src[start:p.pos]
			if !escaped && utf8.Valid(lit) {
				return p.text[start+1 : p.pos-1], p.pos, nil
			}
			var str string
			if err := json.Unmarshal(lit, &str); err != nil {
				return "", 0, p.errorAt(start, "bad string: %v", strings.TrimPrefix(err.Error(), "json: "))
			}
			return str, p.pos, nil
		case c < 0x20:
			return "", 0, p.errorf("control character %q in a string", rune(c))
		default:
			p.pos++
		}
	}
	return "", 0, p.errorAt(start, "unterminated string")
}

func (p *parser) number() (*Value, error) {
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte("+-0123456789.eE", p.src[p.pos]) >= 0 {
		p.pos++
	}
	if !json.Valid(p.src[start:p.pos]) {
		return nil, p.errorAt(start, "bad number %q", p.src[start:p.pos])
	}
	v := p.newValue(Number, start)
	v.End = p.pos
	return v, nil
}

// StringOffset is where byte i of the decoded value of the JSON string literal at the start of
// lit stands in lit, so that an error about part of a string (a command) can point into the file.
func StringOffset(lit []byte, i int) int {
	decoded := 0
	for j := 1; j < len(lit); {
		if decoded >= i || lit[j] == '"' {
			return j
		}
		if lit[j] != '\\' || j+1 >= len(lit) {
			decoded++
			j++
			continue
		}
		if lit[j+1] != 'u' || j+6 > len(lit) {
			decoded++ // \n, \", \\ …: one byte
			j += 2
			continue
		}
		r, err := strconv.ParseUint(string(lit[j+2:j+6]), 16, 32)
		j += 6
		if err == nil && utf16.IsSurrogate(rune(r)) && j+6 <= len(lit) && lit[j] == '\\' && lit[j+1] == 'u' {
			if r2, err := strconv.ParseUint(string(lit[j+2:j+6]), 16, 32); err == nil {
				r = uint64(utf16.DecodeRune(rune(r), rune(r2)))
				j += 6
			}
		}
		if n := utf8.RuneLen(rune(r)); n > 0 {
			decoded += n
		} else {
			decoded += 3 // a lone surrogate decodes to U+FFFD
		}
	}
	return len(lit)
}
