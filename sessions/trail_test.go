package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
		`{"reason":"r","status":"ok","event":"Stop","seq":3,"time":"2025-01-01T00:02:00Z"}`,
		`{"seq":1}`, `{"seq":1,"Event":"Stop","EVENT":"x"}`, `{"sequence":1,"event":"Stop"}`, `{"event" : "Stop" , "name":"a","name":"b"}`,
		`{"name":"x\"y"}`, `{"name":"x"y"}`, `{"name":"x\u0022y"}`, `{"name":"\u0041"}`, `{"name":"A"}`, `{"name":"A"}`, `{"name":"A\"}`,
		`{"name":"","status":"x"}`, `{"name":"" ,"status":"x"}`, `{"name":"ok"}`, `{"name":"okay"}`, `{"name":"ok`,
		`{"durationMs":5,"durationMsX":6}`, `{"toolUseId":"toolu_1","details":{"call":{"tool":"Bash"}},"reason":"late"}`,
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

// eachEventCall is one call EachEvent made: of fn (an event) or of problem (a line that is not
// one).
type eachEventCall struct {
	n       int
	line    string
	e       Event
	problem string
}

// eachEventCalls reads trail line by line, one line at a time (ScanLines and DecodeEvent), and
// returns the calls EachEvent makes for it.
func eachEventCalls(t *testing.T, trail []byte) []eachEventCall {
	t.Helper()
	var calls []eachEventCall
	err := ScanLines(bytes.NewReader(trail), func(n int, line []byte, complete bool) error {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		var e Event
		err := DecodeEvent(line, &e, true)
		if err == nil && !complete {
			err = errors.New("unexpected end of JSON input")
		}
		if err != nil {
			calls = append(calls, eachEventCall{problem: lineError("trail", n, line, complete, err).Error()})
			return nil
		}
		calls = append(calls, eachEventCall{n: n, line: string(line), e: e})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

// TestEachEventInChunks: EachEvent, reading a trail in chunks that goroutines decode side by
// side, makes the calls a reading of one line at a time makes, in the same order, wherever the
// chunks end: lines cut by a chunk's end, lines longer than a chunk, blank lines, a torn line in
// the middle and one at the end, \r\n line ends.
func TestEachEventInChunks(t *testing.T) {
	t.Parallel()
	var trail bytes.Buffer
	for i := range 300 {
		e := Event{Seq: int64(i + 1), Time: time.Date(2025, 1, 1, 0, 0, 0, i*37_000_000, time.UTC), Event: "PreToolUse",
			Name: "lint-" + strconv.Itoa(i%7), Status: "ok", Details: map[string]any{"i": float64(i)}}
		if i%50 == 7 {
			e.Reason = strings.Repeat("long ", 100)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		trail.Write(b)
		switch i % 40 {
		case 3:
			trail.WriteString("\n\n  \n")
		case 11:
			trail.WriteString("\r\n")
		case 23:
			trail.WriteString("\n{\"seq\":9,\"ti\n")
		default:
			trail.WriteString("\n")
		}
	}
	trail.WriteString(`{"seq":301,"event":"Stop"}`) // no newline: torn
	want := eachEventCalls(t, trail.Bytes())
	for _, size := range []int{1, 2, 7, 100, 333, 4096, 1 << 20} {
		for _, decoders := range []int{1, 2, 3} {
			var got []eachEventCall
			err := eachEvent(bytes.NewReader(trail.Bytes()), "trail", true, func(n int, e *Event, line []byte) error {
				got = append(got, eachEventCall{n: n, line: string(line), e: *e})
				return nil
			}, func(err error) {
				got = append(got, eachEventCall{problem: err.Error()})
			}, size, decoders)
			if err != nil {
				t.Fatalf("chunks of %d, %d decoders: %v", size, decoders, err)
			}
			if !reflect.DeepEqual(got, want) {
				for i := range min(len(got), len(want)) {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Fatalf("chunks of %d, %d decoders: call %d = %+v, want %+v", size, decoders, i, got[i], want[i])
					}
				}
				t.Fatalf("chunks of %d, %d decoders: %d calls, want %d", size, decoders, len(got), len(want))
			}
		}
	}
}

// failingReader hands over data, then fails; it counts the reads after done is set.
type failingReader struct {
	data      []byte
	err       error
	done      atomic.Bool
	lateReads atomic.Int32
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.done.Load() {
		r.lateReads.Add(1)
	}
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data[:min(len(r.data), 10)])
	r.data = r.data[n:]
	return n, nil
}

// emptyReader reads nothing, and never fails.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestEachEventStops: a read error ends EachEvent with it, after the lines before it (the line
// it cut short not handed over), and so does a reader that reads nothing; fn's error ends it at
// once, with nothing read after it returns.
func TestEachEventStops(t *testing.T) {
	t.Parallel()
	line := `{"event":"PreToolUse","name":"lint"}` + "\n"
	broken := errors.New("disk on fire")
	r := &failingReader{data: []byte(strings.Repeat(line, 5) + `{"event":"Stop"`), err: broken}
	events := 0
	err := eachEvent(r, "trail", false, func(int, *Event, []byte) error {
		events++
		return nil
	}, func(err error) { t.Errorf("problem %v", err) }, 16, 2)
	if !errors.Is(err, broken) || events != 5 {
		t.Errorf("EachEvent over a failing read = %v after %d events, want %v after 5", err, events, broken)
	}

	// A reader that never reads anything (nor fails) is given up on, as bufio does.
	err = eachEvent(emptyReader{}, "trail", false, func(int, *Event, []byte) error { return nil }, nil, 16, 2)
	if !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("EachEvent over a reader that reads nothing = %v, want %v", err, io.ErrNoProgress)
	}

	stop := errors.New("enough")
	r = &failingReader{data: []byte(strings.Repeat(line, 1000)), err: io.EOF}
	events = 0
	err = eachEvent(r, "trail", false, func(int, *Event, []byte) error {
		events++
		if events == 3 {
			return stop
		}
		return nil
	}, nil, 64, 2)
	r.done.Store(true)
	if !errors.Is(err, stop) || events != 3 {
		t.Errorf("EachEvent with fn failing at the third event = %v after %d events, want %v after 3", err, events, stop)
	}
	if n := r.lateReads.Load(); n > 0 {
		t.Errorf("the trail was read %d times after EachEvent returned", n)
	}
}

// BenchmarkDecodeEvent decodes lines as bench/trailgen writes them (and `run` does), one
// processor, keeping what it keeps from line to line as EachEvent does.
func BenchmarkDecodeEvent(b *testing.B) {
	var lines [][]byte
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 64 {
		e := Event{Seq: int64(i + 1), Prev: strings.Repeat("0123456789abcdef", 4), Time: at.Add(time.Duration(i) * 37 * time.Millisecond),
			Event: "PreToolUse", Name: "lint-" + strconv.Itoa(i%7), Type: "command", Source: "project", Format: "autoagent",
			File: "/work/repo/.autoagent/config.json", Status: []string{"ok", "ok", "ok", "blocked", "skipped", "error"}[i%6], DurationMs: int64(i * 13)}
		if e.Status == "blocked" {
			e.ExitCode, e.Decision, e.Reason = 2, "block", "2 lint errors in internal/runner/fire.go"
		}
		line, err := json.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, line)
	}
	var in interner
	var e Event
	b.SetBytes(int64(len(lines[0])))
	i := 0
	for b.Loop() {
		if err := decodeEvent(lines[i%len(lines)], &e, false, &in); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
