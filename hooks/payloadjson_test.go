package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// awkward is text every escaping rule of encoding/json applies to: HTML characters, control
// characters (short and \u00XX escapes), invalid UTF-8, U+2028/U+2029, multi-byte characters,
// DEL.
const awkward = "a<b>&c\"d\\e/f\b\f\n\r\t\x00\x01\x1f\x7f é中😀 \u2028\u2029 \xff\xfe \xe2\x82 end"

func TestEncodePayloadIsJSONMarshal(t *testing.T) {
	t.Parallel()
	long := strings.Repeat(awkward, 10000) // far past any buffer
	for name, p := range map[string]Payload{
		"empty":   {},
		"awkward": {"s": awkward, awkward: "key"},
		"long":    {"output": long, "n": json.Number("12.5e3")},
		"types": {"b": true, "f": false, "nil": nil, "int": 42, "int64": int64(-7), "float": 1.5,
			"strings": []string{"x", "<y>"}, "map": map[string]string{"k": "v"}, "num": json.Number("1")},
		"nested":  {"a": map[string]any{"z": []any{1, "two", map[string]any{}, []any{}, nil}, "y": Payload{"p": awkward}}},
		"nilsets": {"m": map[string]any(nil), "a": []any(nil)},
	} {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := EncodePayload(&got, p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: EncodePayload differs from json.Marshal:\n got %.300q\nwant %.300q", name, got.Bytes(), want)
		}
	}
}

func TestParsePayloadIsJSONDecoder(t *testing.T) {
	t.Parallel()
	awkwardJSON, _ := json.Marshal(awkward)
	for _, src := range []string{
		`{}`,
		` {"a": 1, "b": -2.5e-3, "c": 0, "d": true, "e": false, "f": null} `,
		`{"s": ` + string(awkwardJSON) + `}`,
		`{"esc": "\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u4e2d \ud83d\ude00 \ud800 x \udc00 \ud83d\u0041 \u2028"}`,
		"{\"raw\": \"é中😀 \xff\xfe x \xe2\x82 y\", \"after\": \"\\n\"}", // invalid UTF-8 as written, then more
		`{"nested": {"a": [1, "two", {}, [], null, [{"x": "\u003c"}]]}, "dup": 1, "dup": 2}`,
		`{"": "", "k\u00e9y": "v"}`,
		"{\"long\": \"" + strings.Repeat(`x\n\u00e9`, 100000) + "\"}",
	} {
		dec := json.NewDecoder(strings.NewReader(src))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("%.80s: %v", src, err)
		}
		got, ok := ParsePayload([]byte(src))
		if !ok {
			t.Errorf("%.80s: not parsed", src)
			continue
		}
		if !reflect.DeepEqual(map[string]any(got), want) {
			t.Errorf("%.80s:\n got %#v\nwant %#v", src, got, want)
		}
	}
	for _, src := range []string{`[1]`, `"x"`, `1`, `{} {}`, `{"a":}`, `{"a": 1`, `{"a": 1}x`} {
		if _, ok := ParsePayload([]byte(src)); ok {
			t.Errorf("%s: parsed, want it left to encoding/json", src)
		}
	}
}

// TestLargePayloadIsNotCopied: decoding a payload and handing it to a hook allocate a small
// fraction of its size (before, the decoder's copy, the decoded strings and json.Marshal's
// buffer made it 6x in all).
func TestLargePayloadIsNotCopied(t *testing.T) {
	const size = 16 << 20
	src := []byte(`{"output": "` + strings.Repeat("line of output\\n", size/16) + `", "issueNumber": 1}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, ok := ParsePayload(src)
	if !ok {
		t.Fatal("not parsed")
	}
	in, err := NewHookInput(p)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Cleanup()
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/8 {
		t.Errorf("decoding and encoding a %d MB payload allocated %d MB", size>>20, alloc>>20)
	}
	st, err := os.Stat(in.File)
	if err != nil || st.Size() < size || st.Mode().Perm() != 0o600 {
		t.Errorf("payload file %s: %v, %v", in.File, st, err)
	}
}
