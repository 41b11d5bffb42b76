package sessions

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// chainedTrail writes a trail of n events through Append (in batches, as events append them)
// and returns the store, the session id and the trail's lines.
func chainedTrail(t *testing.T, n int) (*Store, string, []string) {
	t.Helper()
	s, _ := newTestStore(t)
	id := "session-1704067200000-abcdef"
	for i := 0; i < n; i += 2 {
		batch := []Event{{Event: "PreToolUse", Name: fmt.Sprintf("h%d", i), Status: "ok"}}
		if i+1 < n {
			batch = append(batch, Event{Event: "PreToolUse", Name: fmt.Sprintf("h%d", i+1), Status: "blocked", Reason: "no"})
		}
		if err := s.Append(id, batch...); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(s.EventsPath(id))
	if err != nil {
		t.Fatal(err)
	}
	return s, id, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func verifyLines(t *testing.T, id string, lines []string, head *AuditHead) *Verification {
	t.Helper()
	text := strings.Join(lines, "\n")
	if len(lines) > 0 {
		text += "\n"
	}
	v, err := VerifyTrail(strings.NewReader(text), "trail", id, head)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func headOf(lines []string) *AuditHead {
	last := lines[len(lines)-1]
	seq, _, _ := chainFields([]byte(last))
	return &AuditHead{Seq: seq, Hash: lineHash([]byte(last))}
}

func TestChainLinksEveryLine(t *testing.T) {
	t.Parallel()
	_, id, lines := chainedTrail(t, 5)
	prev := ChainStart(id)
	for i, l := range lines {
		seq, p, ok := chainFields([]byte(l))
		if !ok || seq != int64(i+1) || p != prev {
			t.Fatalf("line %d: seq %d prev %s ok %v; want seq %d prev %s", i+1, seq, p, ok, i+1, prev)
		}
		if !strings.HasPrefix(l, fmt.Sprintf(`{"seq":%d,"prev":"`, i+1)) {
			t.Errorf("line %d does not start with its chain: %s", i+1, l)
		}
		prev = lineHash([]byte(l))
	}
	v := verifyLines(t, id, lines, headOf(lines))
	if !v.OK() || v.Chained != 5 || v.Lines != 5 || v.AfterHead != 0 {
		t.Errorf("verification = %+v, want 5 chained lines intact", v)
	}
}

func TestVerifyFindsTheFirstEditedLine(t *testing.T) {
	t.Parallel()
	_, id, lines := chainedTrail(t, 6)
	head := headOf(lines)
	edit := func(f func([]string) []string) []string { return f(append([]string(nil), lines...)) }
	tests := []struct {
		name     string
		lines    []string
		head     *AuditHead
		line     int
		kind     string
		contains string
	}{
		{"changed", edit(func(l []string) []string { l[2] = strings.Replace(l[2], `"h2"`, `"hX"`, 1); return l }), head, 3, "changed", "was changed"},
		{"changed last line", edit(func(l []string) []string { l[5] = strings.Replace(l[5], `"no"`, `"ok"`, 1); return l }), head, 6, "changed", "head"},
		{"removed", edit(func(l []string) []string { return append(l[:2], l[3:]...) }), head, 3, "removed", "1 line(s) were removed"},
		{"removed first", edit(func(l []string) []string { return l[1:] }), head, 1, "removed", "removed"},
		{"removed from the end", edit(func(l []string) []string { return l[:4] }), head, 5, "removed", "last 2 line(s) were removed"},
		{"inserted copy", edit(func(l []string) []string { return append(l[:3], append([]string{l[1]}, l[3:]...)...) }), head, 4, "inserted", ""},
		{"inserted forged", edit(func(l []string) []string {
			seq, prev, _ := chainFields([]byte(l[2]))
			forged := fmt.Sprintf(`{"seq":%d,"prev":"%s","event":"Forged"}`, seq+1, lineHash([]byte(l[2])))
			_ = prev
			return append(l[:3], append([]string{forged}, l[3:]...)...)
		}), head, 4, "inserted", "not in the chain"},
		{"unchained line inserted", edit(func(l []string) []string {
			return append(l[:3], append([]string{`{"event":"Forged"}`}, l[3:]...)...)
		}), head, 4, "inserted", "carries no chain"},
		{"swapped", edit(func(l []string) []string { l[1], l[2] = l[2], l[1]; return l }), head, 2, "", ""},
		{"moved to another session", lines, nil, 1, "changed", "does not start it"},
	}
	for _, tc := range tests {
		sid := id
		if tc.name == "moved to another session" {
			sid = "session-1704067200000-zzzzzz"
		}
		v := verifyLines(t, sid, tc.lines, tc.head)
		if v.OK() {
			t.Errorf("%s: verified intact", tc.name)
			continue
		}
		if v.Break.Line != tc.line || tc.kind != "" && v.Break.Kind != tc.kind || !strings.Contains(v.Break.Msg, tc.contains) {
			t.Errorf("%s: break = %+v, want line %d kind %q containing %q", tc.name, v.Break, tc.line, tc.kind, tc.contains)
		}
	}
}

// TestVerifyAfterHead: lines past the head are not vouched for (every append notes the head it
// leaves, so nothing agent-hooks wrote anchors them): not a break in the chain, but not OK either;
// without a head, no chained line is.
func TestVerifyAfterHead(t *testing.T) {
	t.Parallel()
	_, id, lines := chainedTrail(t, 4)
	v := verifyLines(t, id, lines, headOf(lines[:2]))
	if v.OK() || v.Break != nil || v.AfterHead != 2 {
		t.Errorf("verification = %+v, want no break, 2 lines after the head, not OK", v)
	}
	v = verifyLines(t, id, lines, nil)
	if v.OK() || v.Break != nil || v.AfterHead != 4 {
		t.Errorf("without a head: %+v, want no break, 4 lines after the head, not OK", v)
	}
}

// TestVerifyUnchainedTrail: a trail written before the chain existed verifies as unchained, and
// one continued after an upgrade chains on from its last unchained line.
func TestVerifyUnchainedTrail(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	id := "session-1704067200000-abcdef"
	legacy := `{"time":"2024-01-01T00:00:00Z","event":"Stop","name":"a","type":"command","source":"project","status":"ok","exitCode":0,"durationMs":1,"decision":"","reason":""}` + "\n" +
		`{"time":"2024-01-01T00:00:01Z","event":"Stop","name":"b","type":"command","source":"project","status":"ok","exitCode":0,"durationMs":1,"decision":"","reason":""}` + "\n"
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.EventsPath(id), []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := VerifyTrail(strings.NewReader(legacy), "trail", id, nil)
	if err != nil || !v.OK() || v.Unchained != 2 || v.Chained != 0 {
		t.Fatalf("legacy trail: %+v %v", v, err)
	}
	if err := s.Append(id, Event{Event: "SessionEnd", Name: "c", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.EventsPath(id))
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	seq, prev, ok := chainFields([]byte(lines[2]))
	if !ok || seq != 1 || prev != lineHash([]byte(lines[1])) {
		t.Fatalf("first chained line: seq %d prev %s, want 1 linked to the last unchained line", seq, prev)
	}
	v = verifyLines(t, id, lines, headOf(lines))
	if !v.OK() || v.Unchained != 2 || v.Chained != 1 {
		t.Errorf("mixed trail: %+v", v)
	}
	// The last unchained line is covered by the chain; the ones before it are not.
	lines[1] = strings.Replace(lines[1], `"b"`, `"B"`, 1)
	if v := verifyLines(t, id, lines, headOf(lines)); v.OK() || v.Break.Line != 2 {
		t.Errorf("changed last unchained line: %+v", v)
	}
}

// TestVerifyPassesOverTornLines: a torn write is reported, and the chain still holds across it.
func TestVerifyPassesOverTornLines(t *testing.T) {
	t.Parallel()
	s, id := storeWithStopAnd(t, `{"seq":2,"prev":"abc","time":"2024-01-01T00:00:00Z","event":"Sto`)
	if err := s.Append(id, Event{Event: "SessionEnd", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	head := s.notedHead(id)
	if head == nil || head.Seq != 2 {
		t.Fatalf("head = %+v; want seq 2", head)
	}
	b, _ := os.ReadFile(s.EventsPath(id))
	v, err := VerifyTrail(bytes.NewReader(b), "trail", id, head)
	if err != nil || !v.OK() || v.Chained != 2 || len(v.Problems) != 1 || !strings.Contains(v.Problems[0], "trail:2: torn line") {
		t.Errorf("verification = %+v, %v; want 2 chained lines and line 2 torn", v, err)
	}
}

// TestRecordKeepsTheHead: every write of the record takes the trail's head.
func TestRecordKeepsTheHead(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if sess.AuditHead != nil {
		t.Errorf("new session has a head: %+v", sess.AuditHead)
	}
	if err := s.Append(sess.ID, Event{Event: "Stop"}, Event{Event: "Stop"}); err != nil {
		t.Fatal(err)
	}
	sess, err = s.Update(sess.ID, func(*Session) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.EventsPath(sess.ID))
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if !reflect.DeepEqual(sess.AuditHead, headOf(lines)) {
		t.Errorf("head = %+v, want %+v", sess.AuditHead, headOf(lines))
	}
	got, err := s.Get(sess.ID)
	if err != nil || !reflect.DeepEqual(got.AuditHead, sess.AuditHead) {
		t.Errorf("read back: %+v %v", got.AuditHead, err)
	}
}

// TestDecodeEventFastMatchesJSON: the scanner reads every line exactly as encoding/json does, and
// leaves to it whatever it does not handle.
func TestDecodeEventFastMatchesJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	events := []Event{
		{Seq: 3, Prev: strings.Repeat("a", 64), Time: at, Event: "PreToolUse", Name: "lint", Type: "command", Source: "project", Format: "autoagent", File: "/w/c.json", Status: "blocked", ExitCode: 2, DurationMs: 17, Decision: "block", Reason: "nope", ToolUseID: "toolu_01"},
		{Time: at, Event: "Stop", Name: "q\"uote\\", Reason: "line\nbreak\ttab ünïcode \u2028", ExitCode: -1, Details: map[string]any{"a": []any{"}", "{", 1.5}, "b": map[string]any{"c": "\"]"}}},
		{Event: "x", Details: map[string]any{}},
		{Time: time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC)},
		{Time: time.Date(2024, 2, 29, 23, 59, 59, 120000000, time.UTC)},
		{Time: time.Date(2024, 2, 29, 23, 59, 59, 1, time.FixedZone("X", 3600))},
	}
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var want, got Event
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		want.Details, want.Prev = nil, ""
		if err := DecodeEvent(line, &got, false); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("DecodeEvent(%s) =\n%+v\nwant\n%+v", line, got, want)
		}
	}
	// The lines of agents' tool calls, most of an agent's trail, take the scanner too.
	call := Event{Seq: 9, Time: at, Event: "PreToolUse", Name: "claude", Type: "agent", Source: "agent-hooks", Status: "answered", Decision: "deny", ToolUseID: "toolu_01", Details: map[string]any{"call": map[string]any{"tool": "Bash"}}}
	line, err := json.Marshal(call)
	if err != nil {
		t.Fatal(err)
	}
	var fast Event
	if !fastDecode(line, &fast, nil) || fast.ToolUseID != call.ToolUseID {
		t.Errorf("fastDecode(%s) left it to encoding/json (or lost the toolUseId: %q)", line, fast.ToolUseID)
	}
	// And so do the lines of skipped matchers, whose reasons quote the matcher.
	skipped := Event{Time: at, Event: "PreToolUse", Name: "lint", Status: "skipped", Reason: `matcher: tools "Write" does not match Bash \ é`, ToolUseID: "toolu_01"}
	if line, err = json.Marshal(skipped); err != nil {
		t.Fatal(err)
	}
	fast = Event{}
	if !fastDecode(line, &fast, nil) || fast.Reason != skipped.Reason {
		t.Errorf("fastDecode(%s) left it to encoding/json (or read the reason as %q)", line, fast.Reason)
	}
	for _, bad := range []string{`{"time":"2023-02-29T00:00:00Z"}`, `{"reason":"\x"}`, `{"reason":"a\"}`, `{"details":"0"}`, `{"details":[]}`, `{"exitCode":01}`, `{"seq":-}`, `{"details":{"a":}}`, `{"event":"x"`, `{"event":"x",}`, `{"exitCode":"2"}`, `[1]`, `{"event":"x"} extra`} {
		var e Event
		if err := DecodeEvent([]byte(bad), &e, false); err == nil {
			t.Errorf("DecodeEvent(%s) = %+v, want an error", bad, e)
		}
	}
}

// FuzzDecodeEventMatchesJSON: whatever the scanner reads, encoding/json reads the same.
func FuzzDecodeEventMatchesJSON(f *testing.F) {
	f.Add([]byte(`{"time":"2024-05-06T07:08:09.1Z","event":"PreToolUse","name":"q\"uote\\","reason":"a\nb \u00e9 \ud83d\ude00","toolUseId":"t","details":{"x":"}"}}`))
	f.Add([]byte(`{"reason":"matcher: tools \"Write\" does not match Bash","status":"skipped","exitCode":-1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast Event
		if !utf8.Valid(line) || !fastDecode(line, &fast, nil) {
			return
		}
		var want Event
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("the scanner read %q, encoding/json refuses it: %v", line, err)
		}
		want.Details, want.Prev = nil, ""
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("%q: scanner %+v, encoding/json %+v", line, fast, want)
		}
	})
}

// TestNoteFastMatchesJSON: a note is written as encoding/json writes an AuditHead, and read as it
// reads one (the fast path, or encoding/json for anything else).
func TestNoteFastMatchesJSON(t *testing.T) {
	t.Parallel()
	hash := strings.Repeat("0123456789abcdef", 4)
	for _, h := range []AuditHead{{Seq: 1, Hash: hash}, {Seq: 1 << 62, Hash: hash}} {
		want, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendNote(nil, h); string(got) != string(want)+"\n" {
			t.Errorf("appendNote(%+v) = %q, want %q", h, got, string(want)+"\n")
		}
	}
	notes := []string{
		`{"seq":7,"hash":"` + hash + `"}` + "\n",
		`{"seq":7,"hash":"` + hash + `"}`,
		`{"seq":7,"hash":"` + strings.ToUpper(hash) + `"}` + "\n",
		`{"hash":"` + hash + `","seq":7}`,
		` {"seq":7,"hash":"` + hash + `"}`,
		`{"seq":07,"hash":"` + hash + `"}`,
		`{"seq":0,"hash":"` + hash + `"}`,
		`{"seq":-1,"hash":"` + hash + `"}`,
		`{"seq":99999999999999999999,"hash":"` + hash + `"}`,
		`{"seq":7,"hash":"` + hash[:63] + `"}`,
		`{"seq":7,"hash":"` + hash[:63] + `g"}`,
		`{"seq":7,"hash":"` + hash + `"}x`,
		`{"seq":7,"hash":"` + hash + `"}` + "\n\n",
		`{"seq":7,"hash":"` + hash + `"`,
		`{"seq":7,"hash":"` + hash + `","more":1}`,
		"",
		"\n",
	}
	for _, note := range notes {
		got, gotState := parseNote([]byte(note))
		var want *AuditHead
		wantState := "missing"
		if strings.TrimSpace(note) != "" {
			var h AuditHead
			wantState = "damaged"
			if json.Unmarshal([]byte(note), &h) == nil && validHead(&h) {
				want, wantState = &h, ""
			}
		}
		if !reflect.DeepEqual(got, want) || gotState != wantState {
			t.Errorf("parseNote(%q) = %+v, %q; want %+v, %q", note, got, gotState, want, wantState)
		}
	}
}

// TestValidHeadIsHex: a head's hash is valid exactly when hex.DecodeString reads it, at 64
// characters.
func TestValidHeadIsHex(t *testing.T) {
	t.Parallel()
	hash := strings.Repeat("0123456789abcdef", 4)
	for _, h := range []string{hash, strings.ToUpper(hash), "ABCDEF" + hash[6:], hash[:63] + "g", hash[:63] + "G",
		hash[:63] + "/", hash[:63] + ":", hash[:63] + "@", hash[:63] + "`", hash[:63] + " ", hash[:63] + "\xff", hash[:63], hash + "0"} {
		_, err := hex.DecodeString(h)
		want := err == nil && len(h) == 64
		if got := validHead(&AuditHead{Seq: 1, Hash: h}); got != want {
			t.Errorf("validHead(%q) = %v, want %v", h, got, want)
		}
	}
}
