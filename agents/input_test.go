package agents

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestReadInput: one JSON object is read as soon as it is complete, whether or not stdin is
// closed; more than the cap, nothing at all, or a stdin that never delivers are errors.
func TestReadInput(t *testing.T) {
	t.Parallel()
	in, _, err := ReadInput(context.Background(), strings.NewReader(`{"hook_event_name":"Stop","n":1.50}`+"\n"), 0)
	if err != nil || in.HostEvent != "Stop" || in.Fields["n"].(interface{ String() string }).String() != "1.50" {
		t.Fatalf("%+v, %v", in, err)
	}

	// A writer that never closes stdin: the object is read anyway.
	r, w := io.Pipe()
	defer w.Close()
	go func() { _, _ = w.Write([]byte(`{"hook_event_name": "PreToolUse"}`)) }()
	if in, _, err := ReadInput(context.Background(), r, 0); err != nil || in.HostEvent != "PreToolUse" {
		t.Errorf("open stdin: %+v, %v", in, err)
	}

	// A writer that sends what is no JSON and never closes stdin: refused at once, not when the
	// deadline ends the wait.
	r3, w3 := io.Pipe()
	defer w3.Close()
	go func() { _, _ = w3.Write([]byte(" hello")) }()
	ctx3, cancel3 := context.WithTimeout(context.Background(), 10*time.Second) // only so that a wait fails rather than hangs
	defer cancel3()
	if _, _, err := ReadInput(ctx3, r3, 0); err == nil || err.Error() != "the input is not a JSON object: 1:2: unexpected 'h'" {
		t.Errorf("garbage on an open stdin: %v", err)
	}

	// A writer that never writes: the deadline ends the wait.
	r2, w2 := io.Pipe()
	defer w2.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, _, err := ReadInput(ctx, r2, 0); err == nil || err.Error() != "the agent did not send its input in time" {
		t.Errorf("silent stdin: %v", err)
	}

	for _, tc := range []struct{ in, err string }{
		{``, "no input: the agent sent nothing on stdin"},
		{" \n\t", "no input: the agent sent nothing on stdin"},
		{`[1]`, "the input is not a JSON object: 1:1: value: want an object, got JSON array"},
		{`null`, "the input is not a JSON object: 1:1: value: want an object, got JSON null"},
		{` "x"`, "the input is not a JSON object: 1:2: value: want an object, got JSON string"},
		{`{"a": 1,}`, "the input is not a JSON object: 1:9: expected a string key"},
		{`{"a": "b`, "the input is not a JSON object: 1:7: unterminated string"},
		{`{"cwd": "/p"}`, `the input has no "hook_event_name"`},
		{`{"hook_event_name": "Stop", "x": "` + strings.Repeat("a", 100) + `"}`, "the input is larger than 64 bytes"},
		{sized(65), "the input is larger than 64 bytes"},
		{`"hook_event_name": "Stop"` + strings.Repeat(" ", 64), "the input is larger than 64 bytes"},
	} {
		in, raw, err := ReadInput(context.Background(), strings.NewReader(tc.in), 64)
		if err == nil || err.Error() != tc.err || in != nil {
			t.Errorf("%.30q: %v, want %q", tc.in, err, tc.err)
		}
		if strings.Contains(tc.in, "hook_event_name") && eventNameIn(raw) != "Stop" && tc.err != `the input has no "hook_event_name"` {
			t.Errorf("%.30q: the event is not found in %q", tc.in, raw)
		}
	}
	// The largest input allowed: 64 bytes, followed by more in the same read.
	if in, _, err := ReadInput(context.Background(), strings.NewReader(sized(64)+"\n\n"), 64); err != nil || in.HostEvent != "Stop" {
		t.Errorf("64 bytes: %+v, %v", in, err)
	}
}

// sized is a Stop event of n bytes.
func sized(n int) string {
	head := `{"hook_event_name": "Stop", "x": "`
	return head + strings.Repeat("a", n-len(head)-2) + `"}`
}

// TestReadInputEnd: the end of the object is found wherever the reads cut it (inside a string,
// between a backslash and what it escapes, in a run of backslashes), not at a bracket or quote
// in a string; the input is decoded as encoding/json decodes it; and what ReadInput returns is
// every byte it read, what comes after the object in the same read included.
func TestReadInputEnd(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{"hook_event_name":"Stop"}`,
		` {"hook_event_name" : "Stop", "a": "}]", "b": ["{", "[", {"c": "\"}"}]}`,
		`{"hook_event_name":"Stop","s":"\\","t":"\\\"}","u":"\\\\"}`,
		`{"hook_event_name":"Stop","e":"\u00e9\ud83d\ude00\ud800 \n\t\/","n":[-1.5e3,0,true,false,null],"o":{}}`,
		"{\"hook_event_name\":\"Stop\",\"bad\":\"\xff\xfe\",\"k\":1,\"k\":{\"last\":\"wins\"}}",
	} {
		var want map[string]any
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		for _, tail := range []string{"", "\n", `{"more": 1}`} {
			for _, tc := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", strings.NewReader(doc + tail)},
				{"a byte at a time", iotest.OneByteReader(strings.NewReader(doc + tail))},
				{"half at a time", iotest.HalfReader(strings.NewReader(doc + tail))},
				{"with the last data", iotest.DataErrReader(strings.NewReader(doc + tail))},
			} {
				in, raw, err := ReadInput(context.Background(), tc.r, 0)
				if err != nil {
					t.Fatalf("%q%q, %s: %v", doc, tail, tc.name, err)
				}
				if !reflect.DeepEqual(in.Fields, want) {
					t.Errorf("%q, %s: %#v, want %#v", doc, tc.name, in.Fields, want)
				}
				if !strings.HasPrefix(doc+tail, raw) || len(raw) < len(doc) {
					t.Errorf("%q%q, %s: read %q", doc, tail, tc.name, raw)
				}
				if tc.name == "a byte at a time" && raw != doc {
					t.Errorf("%q%q, one byte at a time: read %q, want the object and nothing more", doc, tail, raw)
				}
				if tc.name == "whole" && raw != doc+tail {
					t.Errorf("%q%q, in one read: read %q, want all of it", doc, tail, raw)
				}
			}
		}
	}
}

// TestReadInputLarge: an input far larger than a read takes in blocks is read whole and exactly,
// its strings decoded with their escapes.
func TestReadInputLarge(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"0123456789abcdef", `01234\"}]\\ab\n`} {
		doc := largeInput(3*maxBlock+12345, line)
		in, raw, err := ReadInput(context.Background(), iotest.HalfReader(strings.NewReader(doc)), 0)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		lit := doc[strings.Index(doc, `"content":`)+len(`"content":`) : len(doc)-2]
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatal(err)
		}
		if raw != doc || in.Args["content"] != want {
			t.Errorf("%q: read %d bytes of %d, content %d bytes, want %d", line, len(raw), len(doc), len(in.Args["content"].(string)), len(want))
		}
	}
}

// largeInput is a PreToolUse Write of about size bytes whose content is line repeated.
func largeInput(size int, line string) string {
	head := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Write","tool_input":{"file_path":"big.txt","content":"`
	return head + strings.Repeat(line, (size-len(head))/len(line)) + `"}}`
}

// BenchmarkReadInput reads and decodes a 20 MB Write (ns/op, B/op: what a hook call on such an
// input costs before its hooks), its content plain and with an escape every 16 bytes.
func BenchmarkReadInput(b *testing.B) {
	for _, tc := range []struct{ name, line string }{{"plain", "0123456789abcdef"}, {"escapes", `0123456789abcd\n`}} {
		doc := largeInput(20<<20, tc.line)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, _, err := ReadInput(context.Background(), strings.NewReader(doc), 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestPatchFiles(t *testing.T) {
	t.Parallel()
	patch := "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/new.md\n+hello\n*** Update File: src/a.go\n@@\n-x\n+y\n" +
		"*** Move to: src/b.go\n*** Delete File: old.txt\n*** Update File: src/a.go\n*** End Patch\nEOF\n*** Add File: outside.txt\n"
	if got, want := PatchFiles(patch), []string{"docs/new.md", "src/a.go", "src/b.go", "old.txt"}; !slices.Equal(got, want) {
		t.Errorf("PatchFiles = %q, want %q", got, want)
	}
	if !HasPatch(patch) || HasPatch("echo hi") || PatchFiles("echo '*** Add File: x'") != nil {
		t.Error("HasPatch / text without a patch")
	}
}

func TestMargin(t *testing.T) {
	t.Parallel()
	for budget, want := range map[time.Duration]time.Duration{
		600 * time.Second: 5 * time.Second, 30 * time.Second: 3 * time.Second,
		1500 * time.Millisecond: 250 * time.Millisecond, 400 * time.Millisecond: 200 * time.Millisecond,
	} {
		if got := margin(budget); got != want {
			t.Errorf("margin(%s) = %s, want %s", budget, got, want)
		}
	}
}
