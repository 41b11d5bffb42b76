package hooks

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// EncodePayload writes p as JSON to w, byte for byte what json.Marshal(p) returns, without
// holding the whole encoding in memory: a payload of tens of megabytes (an agent's whole output)
// is written in pieces of at most encodeChunk bytes of its strings, so that handing it to a hook
// costs no copy of it.
func EncodePayload(w io.Writer, p Payload) error {
	bw := encodeBuffers.Get().(*bufio.Writer)
	bw.Reset(w)
	defer func() {
		bw.Reset(nil) // not keeping w
		encodeBuffers.Put(bw)
	}()
	if err := encodeValue(bw, map[string]any(p)); err != nil {
		return err
	}
	return bw.Flush()
}

// encodeBuffers are EncodePayload's write buffers, kept between calls: a payload is encoded once
// for every hook an event runs, and a new 64 KB buffer each time was most of what a hook
// allocated (BenchmarkFireTrue: 77 KB of 78 an event with one hook).
var encodeBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

func encodeValue(w *bufio.Writer, v any) error {
	switch x := v.(type) {
	case Payload:
		return encodeValue(w, map[string]any(x))
	case map[string]any:
		if x == nil {
			_, err := w.WriteString("null")
			return err
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // as json.Marshal orders a map's keys
		w.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := encodeString(w, k); err != nil {
				return err
			}
			w.WriteByte(':')
			if err := encodeValue(w, x[k]); err != nil {
				return err
			}
		}
		return w.WriteByte('}')
	case []any:
		if x == nil {
			_, err := w.WriteString("null")
			return err
		}
		w.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := encodeValue(w, e); err != nil {
				return err
			}
		}
		return w.WriteByte(']')
	case string:
		return encodeString(w, x)
	default:
		// Numbers, booleans, null and whatever else a caller put in: small, as json.Marshal has them.
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
}

// encodeString writes s as a JSON string, escaped exactly as json.Marshal escapes it (HTML
// characters, control characters, invalid UTF-8 as U+FFFD, U+2028 and U+2029), straight into w:
// no copy of s is made, however long.
func encodeString(w *bufio.Writer, s string) error {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	plain := 0 // s[plain:i] is written as it is
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			w.WriteString(s[plain:i])
			switch b {
			case '\\', '"':
				w.WriteByte('\\')
				w.WriteByte(b)
			case '\b':
				w.WriteString(`\b`)
			case '\f':
				w.WriteString(`\f`)
			case '\n':
				w.WriteString(`\n`)
			case '\r':
				w.WriteString(`\r`)
			case '\t':
				w.WriteString(`\t`)
			default:
				w.WriteString(`\u00`)
				w.WriteByte(hex[b>>4])
				w.WriteByte(hex[b&0xF])
			}
			i++
			plain = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			w.WriteString(s[plain:i])
			w.WriteString(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			w.WriteString(s[plain:i])
			w.WriteString(`\u202`)
			w.WriteByte(hex[r&0xF])
		default:
			i += n
			continue
		}
		i += n
		plain = i
	}
	w.WriteString(s[plain:])
	return w.WriteByte('"')
}

// HookInput is the payload as a hook process gets it: the JSON itself when it is small, else a
// private temporary file holding it (see MaxEnvPayload), which the hook reads as its stdin.
type HookInput struct {
	JSON    []byte // the payload, when it is at most MaxEnvPayload bytes
	File    string // else the file holding it
	Cleanup func() // removes File; never nil
}

// NewHookInput encodes p for a hook: in memory up to MaxEnvPayload bytes, else streamed to a
// temporary file, so that a large payload is never held twice.
func NewHookInput(p Payload) (*HookInput, error) {
	sw := &spillWriter{}
	if err := EncodePayload(sw, p); err != nil {
		sw.discard()
		return nil, fmt.Errorf("encode payload: %w", err)
	}
	if sw.f == nil {
		return &HookInput{JSON: sw.buf, Cleanup: func() {}}, nil
	}
	name := sw.f.Name()
	if err := sw.f.Close(); err != nil {
		sw.discard()
		return nil, fmt.Errorf("payload file %s: %w", name, err)
	}
	return &HookInput{File: name, Cleanup: func() { os.Remove(name) }}, nil
}

// Env is the NAME=payload variable of a hook process, or NAME_FILE=path for a payload in a file.
func (in *HookInput) Env(name string) string {
	if in.File != "" {
		return name + "_FILE=" + in.File
	}
	return name + "=" + string(in.JSON)
}

// spillWriter keeps what is written in memory up to MaxEnvPayload bytes, then moves it to a
// private temporary file and writes the rest there.
type spillWriter struct {
	buf []byte
	f   *os.File
}

func (s *spillWriter) Write(b []byte) (int, error) {
	if s.f == nil && len(s.buf)+len(b) <= MaxEnvPayload {
		s.buf = append(s.buf, b...)
		return len(b), nil
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "agent-hooks-payload-*.json") // 0600: the payload may hold secrets
		if err != nil {
			return 0, fmt.Errorf("payload file: %w", err)
		}
		s.f = f
		if _, err := f.Write(s.buf); err != nil {
			return 0, fmt.Errorf("payload file %s: %w", f.Name(), err)
		}
		s.buf = nil
	}
	n, err := s.f.Write(b)
	if err != nil {
		err = fmt.Errorf("payload file %s: %w", s.f.Name(), err)
	}
	return n, err
}

func (s *spillWriter) discard() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}

// ParsePayload decodes src, a JSON object, as json.Decoder with UseNumber does (numbers as
// json.Number, objects as map[string]any, the last of duplicate keys), in place: the strings of
// the payload are src itself, unescaped where they stand, so that a payload of tens of megabytes
// costs its own size once rather than three times (the bytes read, the decoder's copy of them,
// the decoded strings). src must not be used by the caller afterwards. ok is false when src is
// not exactly one JSON object (with white space around it); decode it with encoding/json then,
// for an error that says where.
func ParsePayload(src []byte) (p Payload, ok bool) {
	if !json.Valid(src) {
		return nil, false
	}
	d := inPlace{b: src}
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != '{' {
		return nil, false
	}
	m, _ := d.value().(map[string]any)
	return m, true
}

// inPlace decodes JSON that json.Valid accepted, writing unescaped strings over their own
// escaped form (never longer) and handing them out as strings over b.
type inPlace struct {
	b []byte
	i int
}

func (d *inPlace) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *inPlace) value() any {
	d.space()
	switch c := d.b[d.i]; c {
	case '{':
		d.i++
		m := map[string]any{}
		for {
			d.space()
			if d.b[d.i] == '}' {
				d.i++
				return m
			}
			k := d.str()
			d.space()
			d.i++ // ':'
			m[k] = d.value()
			d.space()
			if d.b[d.i] == ',' {
				d.i++
			}
		}
	case '[':
		d.i++
		a := []any{}
		for {
			d.space()
			if d.b[d.i] == ']' {
				d.i++
				return a
			}
			a = append(a, d.value())
			d.space()
			if d.b[d.i] == ',' {
				d.i++
			}
		}
	case '"':
		return d.str()
	case 't':
		d.i += 4
		return true
	case 'f':
		d.i += 5
		return false
	case 'n':
		d.i += 4
		return nil
	default:
		start := d.i
		for d.i < len(d.b) && strings.IndexByte("+-.0123456789eE", d.b[d.i]) >= 0 {
			d.i++
		}
		return json.Number(d.b[start:d.i])
	}
}

// str decodes the string at d.i (its opening quote) as encoding/json does: escapes resolved,
// invalid UTF-8 and lone surrogates replaced by U+FFFD.
func (d *inPlace) str() string {
	d.i++
	start, w := d.i, d.i
	for {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return unsafe.String(unsafe.SliceData(d.b[start:]), w-start)
		case c == '\\':
			r, n := d.escape()
			d.i += n
			w += utf8.EncodeRune(d.b[w:], r) // never past d.i: an escape is at least as long
		case c < utf8.RuneSelf:
			d.b[w] = c
			d.i++
			w++
		default:
			r, n := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && n == 1 {
				// U+FFFD takes 3 bytes where the invalid byte took 1: it would overtake the
				// input. Such strings are rare; this one is copied out instead.
				return d.copyOut(start, w)
			}
			copy(d.b[w:], d.b[d.i:d.i+n])
			d.i += n
			w += n
		}
	}
}

// escape reads the escape at d.i: the rune it stands for and its length in bytes.
func (d *inPlace) escape() (rune, int) {
	switch d.b[d.i+1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r := hex4(d.b[d.i+2 : d.i+6])
		if utf16.IsSurrogate(r) {
			if d.i+12 <= len(d.b) && d.b[d.i+6] == '\\' && d.b[d.i+7] == 'u' {
				if pair := utf16.DecodeRune(r, hex4(d.b[d.i+8:d.i+12])); pair != utf8.RuneError {
					return pair, 12
				}
			}
			return utf8.RuneError, 6
		}
		return r, 6
	default: // '"', '\\', '/'
		return rune(d.b[d.i+1]), 2
	}
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// copyOut finishes the string at d.i with encoding/json, what was unescaped so far (b[start:w])
// first, into memory of its own.
func (d *inPlace) copyOut(start, w int) string {
	end := d.i
	for d.b[end] != '"' {
		if d.b[end] == '\\' {
			end++
		}
		end++
	}
	var rest string
	_ = json.Unmarshal(append(append([]byte{'"'}, d.b[d.i:end]...), '"'), &rest)
	s := string(d.b[start:w]) + rest
	d.i = end + 1
	return s
}
