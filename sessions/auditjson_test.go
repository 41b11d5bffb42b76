package sessions

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// escapes holds a string of every class of character json.Marshal escapes or rewrites: the
// named control escapes, the other control characters, quote and backslash, the HTML
// characters, U+2028 and U+2029, invalid UTF-8 (a stray continuation byte, a truncated
// sequence, an encoded surrogate, an overlong form), and characters it leaves alone (DEL,
// multibyte letters, an emoji).
const escapes = "a\"b\\c\b\f\n\r\t\x00\x01\x1f\x7f <script>&amp;</script> \u2028\u2029 \x80 \xe2\x82 \xed\xa0\x80 \xc0\xaf é 日本 😀 /"

// TestAppendEventJSONIsJSONMarshal: an audit line is what json.Marshal writes for the event,
// byte for byte (the chain hashes the line as written), and the same error where json.Marshal
// fails.
func TestAppendEventJSONIsJSONMarshal(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 28, 17, 35, 38, 699419099, time.UTC)
	hash := strings.Repeat("0123456789abcdef", 4)
	full := Event{Seq: 42, Prev: hash, Time: at, Event: "PreToolUse", Name: "lint", Type: "command",
		Source: "project", Format: "autoagent", File: "/w/.autoagent/config.json", Status: "blocked",
		ExitCode: 2, DurationMs: 13, Decision: "block", Reason: "no", ToolUseID: "toolu_1",
		Details: map[string]any{"anchor": &AuditHead{Seq: 3, Hash: hash}, "n": 1.5, "html": "<&>", "list": []any{"a", nil, true}}}
	tests := []struct {
		name string
		e    Event
	}{
		{"zero", Event{}},
		{"full", full},
		{"no seq, with prev", Event{Prev: hash, Time: at}},
		{"seq, no prev", Event{Seq: 1, Time: at}},
		{"escapes in every string", Event{Seq: 1, Prev: escapes, Time: at, Event: escapes, Name: escapes,
			Type: escapes, Source: escapes, Format: escapes, File: escapes, Status: escapes,
			Decision: escapes, Reason: escapes, ToolUseID: escapes}},
		{"negative and extreme numbers", Event{Seq: math.MinInt64, Time: at, ExitCode: -1, DurationMs: math.MaxInt64}},
		{"largest numbers", Event{Seq: math.MaxInt64, Time: at, ExitCode: math.MinInt, DurationMs: math.MinInt64}},
		{"empty details", Event{Time: at, Details: map[string]any{}}},
		{"nil details value", Event{Time: at, Details: map[string]any{"x": nil}}},
		{"time without fraction", Event{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}},
		{"time in a zone", Event{Time: time.Date(2026, 1, 2, 3, 4, 5, 100, time.FixedZone("x", -(5*3600+30*60)))}},
		{"time of year 0", Event{Time: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"time of year 9999", Event{Time: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)}},
		// What json.Marshal refuses, the encoder refuses with the same error.
		{"time of year 10000", Event{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"time of year -1", Event{Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"time zone of 24 hours", Event{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 24*3600))}},
		{"details json cannot encode", Event{Time: at, Details: map[string]any{"nan": math.NaN()}}},
		{"details of a channel", Event{Time: at, Details: map[string]any{"c": make(chan int)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkEventJSON(t, tt.e)
		})
	}
}

// checkEventJSON fails the test when appendEventJSON does not write what json.Marshal writes for
// e, after a prefix it must keep, or fails otherwise.
func checkEventJSON(t *testing.T, e Event) {
	t.Helper()
	want, wantErr := json.Marshal(e)
	const prefix = "kept\n"
	got, err := appendEventJSON([]byte(prefix), &e)
	switch {
	case (err != nil) != (wantErr != nil) || err != nil && err.Error() != wantErr.Error():
		t.Fatalf("appendEventJSON(%+v): error %v, json.Marshal's %v", e, err, wantErr)
	case err != nil:
	case !strings.HasPrefix(string(got), prefix):
		t.Fatalf("appendEventJSON(%+v) did not keep what it appended to: %q", e, got)
	case string(got[len(prefix):]) != string(want):
		t.Fatalf("appendEventJSON(%+v)\n got %s\nwant %s", e, got[len(prefix):], want)
	}
}

// FuzzAppendEventJSON: for any strings, numbers and times, appendEventJSON writes what
// json.Marshal writes.
func FuzzAppendEventJSON(f *testing.F) {
	f.Add(int64(1), "prev", int64(1795887336499419099), "PreToolUse", "lint", "command", "project", "", "/f", "ok", 0, int64(13), "", "", "", "")
	f.Add(int64(0), "", int64(0), escapes, escapes, escapes, escapes, escapes, escapes, escapes, -1, int64(-7), escapes, escapes, escapes, escapes)
	f.Add(int64(-3), "\xff", int64(-62135596800000000), "<", ">", "&", "\u2028", "\u2029", "\x00", "\"", 255, int64(1<<40), "\\", "\t", "x", "<b>")
	f.Fuzz(func(t *testing.T, seq int64, prev string, unixNano int64, event, name, typ, source, format, file, status string,
		exitCode int, durationMs int64, decision, reason, toolUseID, detail string) {
		e := Event{Seq: seq, Prev: prev, Time: time.Unix(0, unixNano).UTC(), Event: event, Name: name, Type: typ,
			Source: source, Format: format, File: file, Status: status, ExitCode: exitCode, DurationMs: durationMs,
			Decision: decision, Reason: reason, ToolUseID: toolUseID}
		if detail != "" {
			e.Details = map[string]any{detail: detail, "n": float64(durationMs)}
		}
		checkEventJSON(t, e)
		e.Time = time.Unix(unixNano, 0).UTC() // years far outside 0 to 9999 too
		checkEventJSON(t, e)
	})
}
