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
	"slices"
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
	// last is the position LineCol found last: the loader asks in document order, and a column
	// is counted on from there rather than from its line's start (a configuration written on
	// one line would cost the square of its length).
	last struct{ offset, line, col int }
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
	p := &parser{doc: d, text: string(src)}
	p.ws()
	root, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	d.Root = root
	d.placeDuplicates()
	return d, nil
}

// DecodeObject decodes the JSON document text, which must be an object, as encoding/json
// decodes it into a map[string]any with UseNumber: objects are map[string]any (a key repeated
// in an object takes its last value, as encoding/json and JavaScript's JSON.parse do), arrays
// []any, numbers json.Number, strings, booleans and nil. Every string and number without an
// escape is a substring of text, so a large document is held once. The error is a *SyntaxError,
// or a *TypeError when the document is valid but not an object, with its line:column.
func DecodeObject(text string) (map[string]any, error) {
	p := &parser{text: text}
	p.ws()
	start := p.pos
	v, err := p.anyValue()
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		line, col := p.lineCol(start)
		return nil, &TypeError{Offset: start, Line: line, Col: col, Want: "an object", Got: jsonType(text[start])}
	}
	return obj, nil
}

// jsonType is encoding/json's name of the type of the value that starts with c.
func jsonType(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// end checks that nothing but whitespace follows the document.
func (p *parser) end() error {
	p.ws()
	if p.pos != len(p.text) {
		r, _ := utf8.DecodeRuneInString(p.text[p.pos:])
		return p.errorf("unexpected %q after the document", r)
	}
	return nil
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
		for i := 0; ; {
			n := bytes.IndexByte(d.Src[i:], '\n')
			if n < 0 {
				break
			}
			i += n + 1
			d.lines = append(d.lines, i)
		}
	}
	offset = min(max(offset, 0), len(d.Src))
	i := sort.Search(len(d.lines), func(i int) bool { return d.lines[i] > offset }) - 1
	from, col := d.lines[i], 1
	if l := d.last; l.line == i+1 && l.offset >= from && l.offset <= offset {
		from, col = l.offset, l.col
	}
	col += utf8.RuneCount(d.Src[from:offset])
	d.last.offset, d.last.line, d.last.col = offset, i+1, col
	return i + 1, col
}

// step is one level of the path to the value being read: an object's key or an array's index.
type step struct {
	key   string
	index int // -1 for a key
}

type parser struct {
	doc   *Doc   // nil when decoding into Go values (DecodeObject)
	text  string // the source, copied once: every decoded string without an escape is a slice of it
	pos   int
	depth int // of the arrays and objects being read
	path  []step
	slab  []Value // where new Values are taken from, a block at a time
}

// newValue is a Value from the slab: a configuration has hundreds, and one allocation each was
// a tenth of what a hook call allocates.
func (p *parser) newValue(kind Kind, start int) *Value {
	if len(p.slab) == 0 {
		// A value takes at least a few bytes of source: a small document gets a small block.
		p.slab = make([]Value, min(64, max(4, (len(p.text)-p.pos)/8)))
	}
	v := &p.slab[0]
	p.slab = p.slab[1:]
	v.Kind, v.Start = kind, start
	return v
}

func (p *parser) errorAt(offset int, format string, args ...any) *SyntaxError {
	line, col := p.lineCol(offset)
	return &SyntaxError{Offset: offset, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// lineCol is the line and column of offset, as Doc.LineCol counts them.
func (p *parser) lineCol(offset int) (line, col int) {
	if p.doc != nil {
		return p.doc.LineCol(offset)
	}
	offset = min(max(offset, 0), len(p.text))
	start := strings.LastIndexByte(p.text[:offset], '\n') + 1
	return strings.Count(p.text[:start], "\n") + 1, utf8.RuneCountInString(p.text[start:offset]) + 1
}

func (p *parser) errorf(format string, args ...any) error {
	return p.errorAt(p.pos, format, args...)
}

// eof is the error of a document that ends inside what.
func (p *parser) eof(what string) error {
	at := len(strings.TrimRight(p.text, " \t\r\n")) - 1
	msg := "unexpected end of JSON input"
	if what != "" {
		msg += " in " + what
	}
	return p.errorAt(max(at, 0), "%s", msg)
}

func (p *parser) ws() {
	for p.pos < len(p.text) {
		switch p.text[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (*Value, error) {
	if p.pos >= len(p.text) {
		return nil, p.eof("")
	}
	switch c := p.text[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		start := p.pos
		if err := p.number(); err != nil {
			return nil, err
		}
		v := p.newValue(Number, start)
		v.End = p.pos
		return v, nil
	}
	start := p.pos
	kind, err := p.literal()
	if err != nil {
		return nil, err
	}
	v := p.newValue(kind, start)
	v.End = p.pos
	return v, nil
}

// literal reads true, false or null at p.pos.
func (p *parser) literal() (Kind, error) {
	for _, lit := range [...]struct {
		text string
		kind Kind
	}{{"true", True}, {"false", False}, {"null", Null}} {
		if strings.HasPrefix(p.text[p.pos:], lit.text) {
			p.pos += len(lit.text)
			return lit.kind, nil
		}
	}
	r, _ := utf8.DecodeRuneInString(p.text[p.pos:])
	return 0, p.errorf("unexpected %q", r)
}

// anyValue reads the value at p.pos into Go values, as DecodeObject says.
func (p *parser) anyValue() (any, error) {
	if p.pos >= len(p.text) {
		return nil, p.eof("")
	}
	switch c := p.text[p.pos]; {
	case c == '{':
		obj := map[string]any{}
		err := p.list('}', "an object", func() error {
			key, err := p.key()
			if err != nil {
				return err
			}
			val, err := p.anyValue()
			obj[key] = val
			return err
		})
		return obj, err
	case c == '[':
		arr := []any{}
		err := p.list(']', "an array", func() error {
			el, err := p.anyValue()
			arr = append(arr, el)
			return err
		})
		return arr, err
	case c == '"':
		s, _, err := p.stringLit()
		return s, err
	case c == '-' || c >= '0' && c <= '9':
		start := p.pos
		err := p.number()
		return json.Number(p.text[start:p.pos]), err
	}
	switch kind, err := p.literal(); kind {
	case True:
		return true, nil
	case False:
		return false, nil
	default:
		return nil, err
	}
}

// key reads an object's key and the colon after it; the key is at p.pos.
func (p *parser) key() (string, error) {
	if p.pos >= len(p.text) {
		return "", p.eof("an object")
	}
	if p.text[p.pos] != '"' {
		return "", p.errorf("expected a string key")
	}
	key, _, err := p.stringLit()
	if err != nil {
		return "", err
	}
	p.ws()
	if p.pos >= len(p.text) {
		return "", p.eof("an object")
	}
	if p.text[p.pos] != ':' {
		return "", p.errorf("expected ':' after key %q", key)
	}
	p.pos++
	p.ws()
	return key, nil
}

func (p *parser) object() (*Value, error) {
	v := p.newValue(Object, p.pos)
	var seen map[string]int // key: offset of its first occurrence, once the object is large
	err := p.list('}', "an object", func() error {
		keyStart := p.pos
		key, err := p.key()
		if err != nil {
			return err
		}
		if first, dup := p.seen(v.Members, &seen, key); dup {
			p.duplicate(key, keyStart, first)
		} else if seen != nil {
			seen[key] = keyStart
		}
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
	p.doc.Duplicates = append(p.doc.Duplicates, Duplicate{Path: path.String(), Key: key, Offset: offset, First: first})
}

// placeDuplicates fills in the lines and columns of the duplicates, asking LineCol in the order
// of the source. Asked one duplicate at a time, each first occurrence sent LineCol back to the
// start of its line, so that a document of one line with n repeated keys cost n times its
// length (a session record is such a document, and the agent can write it).
func (d *Doc) placeDuplicates() {
	if len(d.Duplicates) == 0 {
		return
	}
	offsets := make([]int, 0, 2*len(d.Duplicates))
	for _, dup := range d.Duplicates {
		offsets = append(offsets, dup.Offset, dup.First)
	}
	slices.Sort(offsets)
	offsets = slices.Compact(offsets)
	places := make([][2]int, len(offsets))
	for i, o := range offsets {
		places[i][0], places[i][1] = d.LineCol(o)
	}
	place := func(offset int) (line, col int) {
		i, _ := slices.BinarySearch(offsets, offset)
		return places[i][0], places[i][1]
	}
	for i := range d.Duplicates {
		dup := &d.Duplicates[i]
		dup.Line, dup.Col = place(dup.Offset)
		dup.FirstLine, dup.FirstCol = place(dup.First)
	}
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
	if p.depth >= MaxDepth {
		return p.errorf("nested more than %d levels deep", MaxDepth)
	}
	p.depth++
	defer func() { p.depth-- }()
	p.pos++
	p.ws()
	if p.pos < len(p.text) && p.text[p.pos] == closer {
		p.pos++
		return nil
	}
	for {
		p.ws()
		if err := item(); err != nil {
			return err
		}
		p.ws()
		if p.pos >= len(p.text) {
			return p.eof(what)
		}
		switch p.text[p.pos] {
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
// past it. A string of valid UTF-8 without an escape is a slice of the source.
func (p *parser) stringLit() (string, int, error) {
	s, start := p.text, p.pos
	i, ascii := plainRun(s, start+1)
	if i < len(s) && s[i] == '"' && (ascii || utf8.ValidString(s[start+1:i])) {
		p.pos = i + 1
		return s[start+1 : i], p.pos, nil
	}
	// The end, then the value: an escape cannot be decoded before the size of the string is known.
	// No backslash comes before i: a quote after an odd number of them is escaped.
	end := i
	for end < len(s) && s[end] != '"' {
		q := strings.IndexByte(s[end:], '"')
		if q < 0 {
			end = len(s)
			break
		}
		end += q
		k := end
		for s[k-1] == '\\' {
			k--
		}
		if (end-k)%2 == 1 {
			end++
		}
	}
	if end >= len(s) {
		return "", 0, p.errorAt(start, "unterminated string")
	}
	str, bad, err := unquote(s[start+1 : end])
	if err != "" {
		return "", 0, p.errorAt(start+1+bad, "%s", err)
	}
	p.pos = end + 1
	return str, p.pos, nil
}

// plainRun is the offset of the first quote, backslash or control character in s from i on
// (len(s) when there is none), and whether the bytes before it are all ASCII. It looks at eight
// bytes at a time: a large input is mostly one long string.
func plainRun(s string, i int) (int, bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	ascii := true
	for i+8 <= len(s) {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q, b := x^(ones*'"'), x^(ones*'\\')
		// A byte below 0x20, a zero byte of q or b (a quote, a backslash), or one at or above
		// 0x80 sets its high bit here (and may set it in a byte above one that does).
		if ((x-ones*0x20)&^x|(q-ones)&^q|(b-ones)&^b|x)&highs == 0 {
			i += 8
			continue
		}
		for end := i + 8; i < end; i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\' || c < 0x20:
				return i, ascii
			case c >= utf8.RuneSelf:
				ascii = false
			}
		}
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c < 0x20:
			return i, ascii
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return i, ascii
}

// unquote decodes the text between a JSON string's quotes as encoding/json does: its escapes
// (\uXXXX as UTF-16, a surrogate without its pair as U+FFFD), and each byte that is not part of
// valid UTF-8 as U+FFFD. s has no unescaped quote. A bad escape or a control character is an
// error, returned with its offset in s; the value is built once, at its size.
func unquote(s string) (str string, bad int, err string) {
	var b strings.Builder
	b.Grow(len(s)) // an escape is longer than what it decodes to; only bad UTF-8 grows
	for i := 0; i < len(s); {
		j, ascii := plainRun(s, i)
		if ascii || utf8.ValidString(s[i:j]) {
			b.WriteString(s[i:j])
		} else {
			for k := i; k < j; {
				r, size := utf8.DecodeRuneInString(s[k:j])
				if r == utf8.RuneError && size == 1 {
					b.WriteRune(utf8.RuneError)
				} else {
					b.WriteString(s[k : k+size])
				}
				k += size
			}
		}
		if i = j; i == len(s) {
			break
		}
		if s[i] != '\\' { // a control character: s has no unescaped quote
			return "", i, fmt.Sprintf("control character %q in a string", rune(s[i]))
		}
		if i+1 == len(s) {
			return "", i, "unterminated escape in a string"
		}
		switch c := s[i+1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(s[i+2:])
			if r < 0 {
				k := i + 2
				for k < len(s) && k < i+6 && isHex(s[k]) {
					k++
				}
				c := '"' // the string ends
				if k < len(s) {
					c, _ = utf8.DecodeRuneInString(s[k:])
				}
				return "", k, fmt.Sprintf(`invalid character %q in \u hexadecimal character escape`, c)
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if strings.HasPrefix(s[i:], `\u`) {
					r2 = hex4(s[i+2:])
				}
				if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
					r = pair
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
			continue
		default:
			r, _ := utf8.DecodeRuneInString(s[i+1:])
			return "", i + 1, fmt.Sprintf("invalid character %q in string escape code", r)
		}
		i += 2
	}
	return b.String(), 0, ""
}

// hex4 is the value of the four hex digits s starts with, -1 when it does not.
func hex4(s string) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// number reads the number at p.pos.
func (p *parser) number() error {
	start := p.pos
	for p.pos < len(p.text) && strings.IndexByte("+-0123456789.eE", p.text[p.pos]) >= 0 {
		p.pos++
	}
	if !validNumber(p.text[start:p.pos]) {
		return p.errorAt(start, "bad number %q", p.text[start:p.pos])
	}
	return nil
}

// validNumber reports whether s is a JSON number (RFC 8259's grammar, as encoding/json reads it).
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i++; i < len(s) && isDigit(s[i]); i++ {
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		if i++; i == len(s) || !isDigit(s[i]) {
			return false
		}
		for ; i < len(s) && isDigit(s[i]); i++ {
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		if i++; i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || !isDigit(s[i]) {
			return false
		}
		for ; i < len(s) && isDigit(s[i]); i++ {
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

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
