package sessions

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestSkipPlain: the eight-bytes-at-a-time scan stops where a byte-at-a-time one does, at the
// first quote, backslash or control character, whatever the bytes around it (UTF-8 lead and
// continuation bytes, DEL, a quote or a backslash with the high bit set) and wherever it starts.
func TestSkipPlain(t *testing.T) {
	t.Parallel()
	alphabet := []byte{'a', ' ', '"', '\\', 0x00, 0x1f, 0x7f, 0x80, 0x9f, 0xa2, 0xdc, 0xe2, 0xff}
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := [][]byte{nil, []byte(`abcdefgh"`), []byte(`abcdefghijklmno\`), []byte("abcdefgh\x1f"), []byte("ünïcode 日本 \u202e")}
	for range 2000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[i] = 'a' + byte(rng.IntN(26))
			}
		}
		inputs = append(inputs, b)
	}
	for _, b := range inputs {
		for j := 0; j <= len(b); j++ {
			want := j
			for want < len(b) && b[want] != '"' && b[want] != '\\' && b[want] >= 0x20 {
				want++
			}
			if got := skipPlain(b, j); got != want {
				t.Fatalf("skipPlain(%q, %d) = %d, want %d", b, j, got, want)
			}
		}
	}
}

// TestEachEventMatchesJSON: what EachEvent hands over for each line of a trail is what
// encoding/json reads from it, for lines that share their minute, their names and their statuses
// with the lines before (which the reader keeps from line to line) and lines that differ from
// them in a single byte.
func TestEachEventMatchesJSON(t *testing.T) {
	t.Parallel()
	trail := strings.Join([]string{
		`{"time":"2025-01-01T00:00:59.963Z","event":"PreToolUse","name":"lint-0","status":"ok"}`,
		`{"time":"2025-01-01T00:01:00Z","event":"PreToolUse","name":"lint-1","status":"blocked","exitCode":2}`,
		`{"time":"2025-01-01T00:01:00.5Z","event":"PreToolUse","name":"lint-0","status":"ok"}`,
		`{"time":"2025-01-01T00:01:07.000000001Z","event":"Stop","name":"lint-0","status":"ok","exitCode":-1}`,
		`{"time":"2025-01-01T00:01:60Z","event":"Stop"}`,
		`{"time":"2025-01-01T00:01:5Z","event":"Stop"}`,
		`{"time":"2025-01-01T00:01:05+01:00","event":"Stop"}`,
		`{"time":"2025-01-01T00:01:05.1234567891Z","event":"Stop"}`,
		`{"time":"2025-01-01T00:01:05.Z","event":"Stop"}`,
		`{"time":"2025-01-01T00:01x05Z","event":"Stop"}`,
		`{"time":"2025-02-31T00:01:05Z","event":"Stop"}`,
		`{"time":"2025-01-01T00:01:05Z","event":"Stop","name":"","status":""}`,
		`{"time":"2025-01-01T00:02:00Z","name":"lint-1","status":"ok","durationMs":123456789012345678}`,
		`{"time":"2025-01-01T00:02:00Z","name":"lint-1","durationMs":1234567890123456789}`,
		`{"time":"2025-01-01T00:02:00Z","name":"lint-1","durationMs":12345678901234567890}`,
		`{"time":"2025-01-01T00:02:00Z","name":"lint-1","exitCode":-0}`,
		`{"time":"2025-01-01T00:02:00Z","name":"lint-\u0031"}`,
		`{"name":"lint-2"}`, `{"name":"lint-3"}`, `{"name":"lint-4"}`, `{"name":"lint-5"}`,
		`{"name":"lint-6"}`, `{"name":"lint-7"}`, `{"name":"lint-8"}`, `{"name":"lint-9"}`,
		`{"name":"lint-0","reason":"2 lint errors in \"fire.go\""}`,
	}, "\n") + "\n"
	want := 0
	for line := range strings.Lines(trail) {
		var e Event
		if json.Unmarshal([]byte(line), &e) == nil {
			want++
		}
	}
	if got := checkEachEvent(t, []byte(trail)); got != want {
		t.Errorf("EachEvent handed over %d events, encoding/json reads %d of the lines", got, want)
	}
}

// FuzzEachEventMatchesJSON: whatever trail EachEvent reads, each event it hands over is what
// encoding/json reads from its line, whatever the lines before it were.
func FuzzEachEventMatchesJSON(f *testing.F) {
	f.Add([]byte("{\"time\":\"2024-05-06T07:08:09.1Z\",\"name\":\"a\"}\n{\"time\":\"2024-05-06T07:08:10Z\",\"name\":\"a\",\"status\":\"ok\"}\n"))
	f.Add([]byte("{\"time\":\"2024-05-06T07:08:09Z\"}\n{\"time\":\"2024-05-06T07:08:61Z\"}\n{\"exitCode\":12}\n"))
	f.Fuzz(func(t *testing.T, trail []byte) {
		checkEachEvent(t, trail)
	})
}

// checkEachEvent reads trail with EachEvent, holding each event it hands over to what
// encoding/json reads from its line, and returns how many it handed over.
func checkEachEvent(t *testing.T, trail []byte) int {
	t.Helper()
	events := 0
	err := EachEvent(bytes.NewReader(trail), "trail", false, func(n int, e *Event, line []byte) error {
		events++
		var want Event
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("line %d %q: handed over, but encoding/json refuses it: %v", n, line, err)
		}
		want.Details, want.Prev = nil, ""
		if !reflect.DeepEqual(*e, want) {
			t.Fatalf("line %d %q:\n got %+v\nwant %+v", n, line, *e, want)
		}
		return nil
	}, func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	return events
}
