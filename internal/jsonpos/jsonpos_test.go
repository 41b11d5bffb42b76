package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSyntaxErrorPositions: every kind of malformed input is reported at the byte that is wrong,
// with line and column (columns count characters), and an input that stops early at the place
// where it stops.
func TestSyntaxErrorPositions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		line, col int
		msg       string
	}{
		{"empty", "", 1, 1, "unexpected end of JSON input"},
		{"blank", "  \n ", 1, 1, "unexpected end of JSON input"},
		{"truncated object", `{"hooks": {`, 1, 11, "unexpected end of JSON input in an object"},
		{"truncated after key", "{\"a\"\n", 1, 4, "unexpected end of JSON input in an object"},
		{"truncated array", "[1,\n 2,\n\n", 2, 3, "unexpected end of JSON input"},
		{"trailing comma", "{\n  \"a\": 1,}", 2, 10, "expected a string key"},
		{"missing colon", "{\n  \"hooks\": {\n    \"Stop\" []}}", 3, 12, `expected ':' after key "Stop"`},
		{"missing comma", `[1 2]`, 1, 4, "expected ',' or ']' in an array"},
		{"bad literal", `{"a": tru}`, 1, 7, "unexpected 't'"},
		{"bad number", `[01]`, 1, 2, `bad number "01"`},
		{"bad number sign", `[+1]`, 1, 2, "unexpected '+'"},
		{"unterminated string", "{\"a\": \"abc", 1, 7, "unterminated string"},
		{"control character", "[\"a\tb\"]", 1, 4, `control character '\t' in a string`},
		{"bad escape", `["\q"]`, 1, 4, "invalid character 'q' in string escape code"},
		{"short unicode escape", `["ab\u12"]`, 1, 9, `invalid character '"' in \u hexadecimal character escape`},
		{"bad unicode escape", "[\n \"\\u00G0\"]", 2, 7, `invalid character 'G' in \u hexadecimal character escape`},
		{"control character after an escape", "[\"\\n\n\"]", 1, 5, `control character '\n' in a string`},
		{"after the document", "{} {}", 1, 4, "unexpected '{' after the document"},
		{"byte order mark", "\ufeff{}", 1, 1, `unexpected '\ufeff'`},
		// columns count characters: "é" is two bytes, one column
		{"column in characters", "{\"é\": x}", 1, 7, "unexpected 'x'"},
		{"second line", "{\"a\": 1,\n \"b\": }", 2, 7, "unexpected '}'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.src))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) = %v, want a *SyntaxError", tc.src, err)
			}
			if se.Line != tc.line || se.Col != tc.col || se.Msg != tc.msg {
				t.Errorf("Parse(%q) = %d:%d: %s, want %d:%d: %s", tc.src, se.Line, se.Col, se.Msg, tc.line, tc.col, tc.msg)
			}
			if got, want := se.Error(), fmt.Sprintf("%d:%d: %s", tc.line, tc.col, tc.msg); got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		})
	}
}

func TestDepthLimit(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	var se *SyntaxError
	if _, err := Parse([]byte(deep)); !errors.As(err, &se) || se.Offset != MaxDepth || !strings.Contains(se.Msg, "nested more than") {
		t.Errorf("too deep: %v", err)
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

// TestDuplicatesAtAnyDepth: every repeated key is listed, in document order, with the path of
// its object and both positions; the tree keeps both members.
func TestDuplicatesAtAnyDepth(t *testing.T) {
	t.Parallel()
	src := "{\"a\": 1, \"b\": {\"c\": [{\"d\": 1,\n \"d\": 2}], \"c\": 0},\n\"a\": 3, \"St\\u006fp\": 1, \"Stop\": 2}"
	doc, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range doc.Duplicates {
		got = append(got, fmt.Sprintf("%s|%d:%d: %s", d.Path, d.Line, d.Col, d.Message()))
		if src[d.Offset] != '"' || src[d.First] != '"' {
			t.Errorf("%+v: offsets not at the keys' quotes", d)
		}
	}
	want := []string{
		`b.c[0]|2:2: duplicate key "d" (first at 1:23)`,
		`b|2:12: duplicate key "c" (first at 1:16)`,
		`|3:1: duplicate key "a" (first at 1:2)`,
		`|3:25: duplicate key "Stop" (first at 3:9)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("duplicates:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(doc.Root.Members); n != 5 {
		t.Errorf("root has %d members, want every one of the 5", n)
	}
	if v, i := doc.Root.Get("a"); i != 0 || string(doc.Raw(v)) != "1" {
		t.Errorf("Get(a) = %s, %d: want the first", doc.Raw(v), i)
	}
}

// TestTreePositions: every value's Start and End delimit its text, keys start at their quote,
// strings are decoded.
func TestTreePositions(t *testing.T) {
	t.Parallel()
	src := " {\"k\\n\": [true, false, null, -1.5e3, \"a\\u00e9\\\"\", {}, []], \"é\": \"x\"} \n"
	doc, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	root := doc.Root
	if root.Kind != Object || root.Start != 1 || root.End != len(src)-2 {
		t.Fatalf("root %+v", root)
	}
	m := root.Members[0]
	if m.Key != "k\n" || m.KeyStart != 2 {
		t.Errorf("member %+v", m)
	}
	var kinds, raws []string
	for _, e := range m.Value.Elems {
		kinds = append(kinds, e.Kind.String())
		raws = append(raws, string(doc.Raw(e)))
	}
	if got, want := strings.Join(kinds, ","), "a boolean,a boolean,null,a number,a string,an object,an array"; got != want {
		t.Errorf("kinds %s, want %s", got, want)
	}
	if got, want := strings.Join(raws, " "), `true false null -1.5e3 "a\u00e9\"" {} []`; got != want {
		t.Errorf("raw %s, want %s", got, want)
	}
	if s := m.Value.Elems[4].Str; s != "aé\"" {
		t.Errorf("decoded %q", s)
	}
	if v, _ := root.Get("é"); v == nil || v.Str != "x" || src[v.Start:v.End] != `"x"` {
		t.Errorf("é = %+v", v)
	}
}

// TestDecodeTypeErrors: a value of the wrong type is reported at that value, however deep.
func TestDecodeTypeErrors(t *testing.T) {
	t.Parallel()
	type matcher struct {
		Field string `json:"field"`
	}
	type hook struct {
		Env      map[string]string `json:"env"`
		Matcher  *matcher          `json:"matcher"`
		Blocking bool              `json:"blocking"`
		Count    json.Number       `json:"count"`
		List     []string          `json:"list"`
	}
	tests := []struct {
		src, want string
	}{
		{`{"blocking": "yes"}`, `1:14: blocking: want true or false, got JSON string`},
		{"{\"env\":\n  {\"A\": 1}}", `2:9: env: want a string, got JSON number`},
		{`{"matcher": {"field": 3}}`, `1:23: matcher.field: want a string, got JSON number`},
		{`{"env": [1]}`, `1:9: env: want an object, got JSON array`},
		{`{"list": ["a", {"x": 1}]}`, `1:16: list: want a string, got JSON object`},
		{`{"count": true}`, `1:11: count: want a number, got JSON bool`},
		{`[]`, `1:1: value: want an object, got JSON array`},
	}
	for _, tc := range tests {
		doc, err := Parse([]byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		var h hook
		err = doc.Decode(doc.Root, &h)
		var te *TypeError
		if !errors.As(err, &te) || te.Error() != tc.want {
			t.Errorf("Decode(%s) = %v, want %s", tc.src, err, tc.want)
		}
	}
}

func TestStringOffset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lit  string
		i    int
		want int
	}{
		{`"abc"`, 0, 1},
		{`"abc"`, 2, 3},
		{`"a\nb"`, 2, 4},           // \n is one byte
		{`"\u00e9x"`, 2, 7},        // é is two bytes
		{`"\ud83d\ude00x"`, 4, 13}, // a surrogate pair is four bytes
		{`"abc"`, 10, 4},           // past the end: the closing quote
	}
	for _, tc := range tests {
		if got := StringOffset([]byte(tc.lit), tc.i); got != tc.want {
			t.Errorf("StringOffset(%s, %d) = %d, want %d", tc.lit, tc.i, got, tc.want)
		}
	}
}

// FuzzParse: Parse accepts exactly what encoding/json accepts, every value's text is valid JSON
// on its own, and decodes as encoding/json decodes it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"hooks": {"Stop": [{"command": "x", "timeout": 1.5e3}]}}`, `[true, false, null]`,
		`"a\u00e9\ud83d\ude00"`, `{"a": 1, "a": 2}`, `{"a":`, `01`, "\"\xff\"", ` [ ] `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		doc, err := Parse([]byte(src))
		if (err == nil) != json.Valid([]byte(src)) {
			t.Fatalf("Parse(%q) = %v, json.Valid = %v", src, err, json.Valid([]byte(src)))
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(src) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("Parse(%q): %v", src, err)
			}
			return
		}
		var walk func(v *Value)
		walk = func(v *Value) {
			raw := doc.Raw(v)
			var want any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber() // 1e700 is valid JSON but no float64
			if err := dec.Decode(&want); err != nil {
				t.Fatalf("%q: value %q does not decode: %v", src, raw, err)
			}
			if v.Kind == String && v.Str != want {
				t.Fatalf("%q: string %q decoded as %q, want %q", src, raw, v.Str, want)
			}
			for _, m := range v.Members {
				var key string
				if err := json.NewDecoder(bytes.NewReader(doc.Src[m.KeyStart:])).Decode(&key); err != nil || key != m.Key {
					t.Fatalf("%q: key %q is not at %d (%q, %v)", src, m.Key, m.KeyStart, key, err)
				}
				walk(m.Value)
			}
			for _, e := range v.Elems {
				walk(e)
			}
		}
		walk(doc.Root)
	})
}

// TestDuplicatesInLargeObjects: an object of many members (which keeps its keys in a map past a
// size) reports every repeated key with its first occurrence, as a look through all the keys
// before it would.
func TestDuplicatesInLargeObjects(t *testing.T) {
	t.Parallel()
	for _, n := range []int{seenAfter - 1, seenAfter, seenAfter + 1, 3 * seenAfter} {
		// keys k0, k1, … with every third one a repeat of a key some way back
		var keys []string
		for i := range n {
			k := fmt.Sprintf("k%d", i)
			if i%3 == 2 {
				k = keys[i/2]
			}
			keys = append(keys, k)
		}
		var b strings.Builder
		b.WriteString("{")
		offsets := make([]int, n)
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			offsets[i] = b.Len()
			fmt.Fprintf(&b, "%q: %d", k, i)
		}
		b.WriteString("}")
		doc, err := Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for i, k := range keys {
			if first := slices.Index(keys, k); first < i {
				want = append(want, fmt.Sprintf("%s at %d, first at %d", k, offsets[i], offsets[first]))
			}
		}
		for _, d := range doc.Duplicates {
			got = append(got, fmt.Sprintf("%s at %d, first at %d", d.Key, d.Offset, d.First))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d members: duplicates\n%s\nwant\n%s", n, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if len(doc.Root.Members) != n {
			t.Errorf("%d members kept, want %d", len(doc.Root.Members), n)
		}
	}
}

// unquoteCases are JSON string literals and what they decode to, encoding/json's semantics
// spelled out: a fuzz test's seeds, and a table test of its own.
var unquoteCases = []struct{ lit, want string }{
	{`""`, ""},
	{`"plain"`, "plain"},
	{`"é and 😀"`, "é and 😀"},
	{`"a\nb\tc\rd\be\ff\/g\\h\"i"`, "a\nb\tc\rd\be\ff/g\\h\"i"},
	{`"\u0041\u00e9\u20AC"`, "Aé€"},
	{`"\u0000"`, "\x00"},
	{`"\ud83d\ude00"`, "😀"},
	{`"\uD83D\uDE00 upper"`, "😀 upper"},
	{`"\ud800"`, "\ufffd"},                       // a lone high surrogate
	{`"\udc00x"`, "\ufffdx"},                     // a lone low surrogate
	{`"\ud800\u0041"`, "\ufffdA"},                // a high surrogate and no low one: both kept apart
	{`"\ud800\ud800\udc00"`, "\ufffd\U00010000"}, // the second high surrogate pairs
	{`"\ud800\n"`, "\ufffd\n"},
	{"\"\xff\"", "\ufffd"},                         // invalid UTF-8: U+FFFD per byte
	{"\"a\xe2\x82b\"", "a\ufffd\ufffdb"},           // a truncated sequence
	{"\"\xed\xa0\x80\"", "\ufffd\ufffd\ufffd"},     // a surrogate encoded in UTF-8
	{"\"\xc0\xaf\\n\"", "\ufffd\ufffd\n"},          // an overlong encoding, then an escape
	{"\"\\u00e9\xf0\x9f\x98\x80\"", "é\U0001F600"}, // valid UTF-8 after an escape is kept
	{`"\q"`, ""}, {`"\'"`, ""}, {`"\u12"`, ""}, {`"\u00g0"`, ""}, {`"\U0041"`, ""},
	{"\"a\tb\"", ""}, {"\"\\\t\"", ""}, {"\"\x7f\"", "\x7f"}, {`"abc`, ""}, {`"\"`, ""},
}

// TestUnquote: strings decode as the table says, which is what encoding/json does; a literal it
// refuses (want "") is a *SyntaxError.
func TestUnquote(t *testing.T) {
	t.Parallel()
	for _, tc := range unquoteCases {
		var want string
		werr := json.Unmarshal([]byte(tc.lit), &want)
		if werr == nil && want != tc.want || werr != nil && tc.want != "" {
			t.Fatalf("table: %q is %q (%v) in encoding/json, the table says %q", tc.lit, want, werr, tc.want)
		}
		doc, err := Parse([]byte(tc.lit))
		switch {
		case werr != nil:
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("Parse(%q) = %v, want a *SyntaxError", tc.lit, err)
			}
		case err != nil:
			t.Errorf("Parse(%q): %v", tc.lit, err)
		case doc.Root.Str != tc.want:
			t.Errorf("Parse(%q) = %q, want %q", tc.lit, doc.Root.Str, tc.want)
		}
	}
}

// FuzzUnquote: a JSON string decodes, in a document and into Go values, as encoding/json
// decodes it, and is refused where encoding/json refuses it. The fuzzed text is what stands
// between the quotes.
func FuzzUnquote(f *testing.F) {
	for _, tc := range unquoteCases {
		f.Add(strings.TrimSuffix(strings.TrimPrefix(tc.lit, `"`), `"`))
	}
	f.Fuzz(func(t *testing.T, content string) {
		lit := `"` + content + `"`
		var want string
		werr := json.Unmarshal([]byte(lit), &want)
		doc, err := Parse([]byte(lit))
		if (err == nil) != (werr == nil) {
			t.Fatalf("Parse(%q) = %v, encoding/json: %v", lit, err, werr)
		}
		if err == nil && doc.Root.Str != want {
			t.Fatalf("Parse(%q) = %q, encoding/json: %q", lit, doc.Root.Str, want)
		}
		obj, err := DecodeObject(`{"k":` + lit + `}`)
		if werr != nil {
			return // the literal may end early in the object and make it valid: FuzzDecodeObject
		}
		if err != nil {
			t.Fatalf("DecodeObject of %q: %v", lit, err)
		}
		var wantAny any
		_ = json.Unmarshal([]byte(lit), &wantAny)
		if got := obj["k"]; fmt.Sprint(got) != fmt.Sprint(wantAny) {
			t.Fatalf("DecodeObject of %q = %q, encoding/json: %q", lit, got, wantAny)
		}
	})
}

// FuzzDecodeObject: DecodeObject decodes a document as encoding/json decodes it into an any with
// UseNumber (the last of a repeated key wins), and refuses what encoding/json refuses, at a
// position in the document; a valid document that is not an object is a *TypeError.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{
		`{"hook_event_name": "PreToolUse", "n": 1.50, "tool_input": {"command": "ls\n", "a": [1, -2e3, true, null]}}`,
		`{"a": 1, "a": {"b": 2}}`, `{"a": {"b": 1}, "a": 2}`, `{}`, ` {"x":[]} `, `{"a":`, `[1]`, `null`, `"x"`,
		`{"k": "\ud83d\ude00\u00e9"}`, "{\"k\": \"\xff\"}", `{"k": 01}`, `{"k": 1} x`, `{"é": "é"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		got, err := DecodeObject(src)
		if !json.Valid([]byte(src)) {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(src) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("DecodeObject(%q) = %v, want a *SyntaxError", src, err)
			}
			return
		}
		dec := json.NewDecoder(strings.NewReader(src))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %q is valid but does not decode: %v", src, err)
		}
		if _, isObject := want.(map[string]any); !isObject {
			var te *TypeError
			if !errors.As(err, &te) || te.Want != "an object" {
				t.Fatalf("DecodeObject(%q) = %v, want a *TypeError", src, err)
			}
			return
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeObject(%q) = %#v, %v; encoding/json: %#v", src, got, err, want)
		}
	})
}

// TestLineColInAnyOrder: LineCol answers the same whatever was asked before it (it counts a
// column on from the last position it found when that is on the same line and before), for
// offsets in order, backwards and at random, on lines of several characters' widths.
func TestLineColInAnyOrder(t *testing.T) {
	t.Parallel()
	src := []byte("{\"a\": \"é\", \"b\": [1, 2],\n \"c\": \"日本\"\n\n, \"d\": 1}")
	want := func(offset int) (int, int) {
		line, col := 1, 1
		for _, r := range string(src[:offset]) {
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return line, col
	}
	var offsets []int
	for i := range len(src) + 1 {
		if i == len(src) || src[i]&0xC0 != 0x80 { // character boundaries
			offsets = append(offsets, i)
		}
	}
	backwards := slices.Clone(offsets)
	slices.Reverse(backwards)
	shuffled := []int{}
	for i := range offsets {
		shuffled = append(shuffled, offsets[(i*7)%len(offsets)])
	}
	for name, order := range map[string][]int{"in order": offsets, "backwards": backwards, "shuffled": shuffled} {
		doc := &Doc{Src: src}
		for _, off := range order {
			line, col := doc.LineCol(off)
			if wl, wc := want(off); line != wl || col != wc {
				t.Errorf("%s: LineCol(%d) = %d:%d, want %d:%d", name, off, line, col, wl, wc)
			}
		}
	}
}

// BenchmarkLineColOneLine: the positions of 2,000 rules of a configuration written on one line,
// asked in order as the loader asks them.
func BenchmarkLineColOneLine(b *testing.B) {
	var src bytes.Buffer
	var offsets []int
	src.WriteString(`{"rules": [`)
	for i := range 2000 {
		offsets = append(offsets, src.Len())
		fmt.Fprintf(&src, `{"name": "r%d", "command": "prog%d -rf", "decision": "deny"},`, i, i)
	}
	src.WriteString(`{}]}`)
	b.ReportAllocs()
	for b.Loop() {
		doc := &Doc{Src: src.Bytes()}
		for _, off := range offsets {
			doc.LineCol(off)
		}
	}
}

// BenchmarkParseDuplicatesOneLine is a document of one line that repeats one key 20,000 times:
// the places of its duplicates are found in one pass (it took the square of its length).
func BenchmarkParseDuplicatesOneLine(b *testing.B) {
	src := []byte("{" + strings.Repeat(`"a": 1, `, 20000) + `"a": 1}`)
	b.ReportAllocs()
	for b.Loop() {
		if doc, err := Parse(src); err != nil || len(doc.Duplicates) != 20000 {
			b.Fatal(err)
		}
	}
}
