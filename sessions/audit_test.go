package sessions

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAppendAndReadEvents(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	id := "session-1704067200000-abcdef"
	at := time.Date(2024, 1, 1, 12, 0, 0, 5e6, time.FixedZone("CET", 3600))
	in := []Event{
		{Time: at, Event: "PreExecutionEnd", Name: "lint", Type: "command", Source: "project", Format: "autoagent", File: "/w/.autoagent/config.json", Status: "blocked", ExitCode: 2, DurationMs: 31, Decision: "block", Reason: "5 lint errors"},
		{Event: "PreExecutionEnd", Name: "tests", Type: "command", Source: "project", Status: "skipped"},
		{Event: "PostExecutionEnd", Name: "git-commit", Type: "git-commit", Source: "user", Status: "ok", Decision: "approve", Details: map[string]any{"changes": true, "commitSha": "abc"}},
	}
	if err := s.Append(id, in[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(id, in[1:]...); err != nil {
		t.Fatal(err)
	}
	got, problems, err := s.Events(id)
	if err != nil || len(problems) > 0 {
		t.Fatalf("Events: %v %v", problems, err)
	}
	if len(got) != 3 {
		t.Fatalf("read %d events, want 3", len(got))
	}
	if !got[0].Time.Equal(at) || got[0].Time.Location() != time.UTC {
		t.Errorf("time = %v, want %v in UTC", got[0].Time, at)
	}
	if got[1].Time.IsZero() {
		t.Error("an event without a time did not get the clock's")
	}
	for i := range got {
		if got[i].Seq != int64(i+1) || len(got[i].Prev) != 64 {
			t.Errorf("event %d: seq %d prev %q, want seq %d and a sha256", i, got[i].Seq, got[i].Prev, i+1)
		}
		got[i].Time, in[i].Time = time.Time{}, time.Time{}
		got[i].Seq, got[i].Prev = 0, ""
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("events =\n%+v\nwant\n%+v", got, in)
	}

	// Every line carries the fields the trail promises, even when empty: a skipped hook reads
	// differently from one that approved.
	b, _ := os.ReadFile(s.EventsPath(id))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var skipped map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &skipped); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"time", "event", "name", "type", "source", "status", "exitCode", "durationMs", "decision", "reason"} {
		if _, ok := skipped[k]; !ok {
			t.Errorf("audit line lacks %q: %s", k, lines[1])
		}
	}
	if skipped["status"] != "skipped" {
		t.Errorf("status = %v, want skipped", skipped["status"])
	}
}

// storeWithStopAnd returns a store whose session id has a trail of one Stop event followed by raw,
// written as a broken writer would.
func storeWithStopAnd(t *testing.T, raw string) (*Store, string) {
	t.Helper()
	s, _ := newTestStore(t)
	id := "session-1704067200000-abcdef"
	if err := s.Append(id, Event{Event: "Stop", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(s.EventsPath(id), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(raw); err != nil {
		t.Fatal(err)
	}
	return s, id
}

// TestEventsSkipsBrokenLines: lines that are not events are skipped and reported. (Complete
// lines agent-hooks did not append end the trail past its noted head: the next append says so
// in a line of its own before its event.)
func TestEventsSkipsBrokenLines(t *testing.T) {
	t.Parallel()
	s, id := storeWithStopAnd(t, "{\"event\": \"Sto\n\n")
	if err := s.Append(id, Event{Event: "SessionEnd", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	got, problems, err := s.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Event != "Stop" || got[1].Type != breakType || got[2].Event != "SessionEnd" {
		t.Errorf("events = %+v, want Stop, the trail's break and SessionEnd", got)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), ".events.jsonl:2:") {
		t.Errorf("problems = %v, want line 2 reported", problems)
	}
	if got, problems, err := s.Events("session-1-nothing"); len(got)+len(problems) != 0 || err != nil {
		t.Errorf("Events of a session without a trail = %v %v %v", got, problems, err)
	}
}

func TestConcurrentAppendsNeverInterleave(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	id := "session-1704067200000-abcdef"
	const writers, each = 16, 25
	big := strings.Repeat("r", 8192) // longer than a pipe buffer, so a split write would show
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			st := New(s.Dir())
			for i := range each {
				if err := st.Append(id, Event{Event: "PreIteration", Name: fmt.Sprintf("w%d-%d", w, i), Reason: big}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	f, err := os.Open(s.EventsPath(id))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	seen := map[string]bool{}
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("torn line: %v", err)
		}
		seen[e.Name] = true
	}
	if len(seen) != writers*each {
		t.Errorf("%d distinct lines, want %d", len(seen), writers*each)
	}
}

// TestAppendAfterATornLine: a writer killed in the middle of its line (or a full disk) leaves a
// fragment without a newline. The next event is still read, and the fragment is reported as a
// torn line with its line number, not glued to the next event and losing it.
func TestAppendAfterATornLine(t *testing.T) {
	t.Parallel()
	s, id := storeWithStopAnd(t, `{"time":"2024-01-01T00:00:00Z","event":"Sto`)

	// The torn last line of a trail is reported as such.
	got, problems, err := s.Events(id)
	if err != nil || len(got) != 1 {
		t.Fatalf("Events = %v %v, want the Stop before the torn line", got, err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), ".events.jsonl:2: torn line") {
		t.Errorf("problems = %v, want line 2 reported as torn", problems)
	}

	if err := s.Append(id, Event{Event: "SessionEnd", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	got, problems, err = s.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Event != "Stop" || got[1].Event != "SessionEnd" {
		t.Errorf("events = %+v, want Stop and SessionEnd", got)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), ".events.jsonl:2: torn line") {
		t.Errorf("problems = %v, want line 2 reported as torn", problems)
	}
}

// TestLineProblemNamesTornLines: a line that ends before its JSON does, or (in a trail written
// before appends ended torn fragments) a fragment with the next event glued to it, is reported as
// torn; other garbage is reported as what the JSON decoder says.
func TestLineProblemNamesTornLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		torn bool
	}{
		{`{"time":"2024-01-01T00:00:00Z","event":"Sto`, true},
		{`{"time":"2024-01-01T00:00:00Z","event":"Sto` + "\n", true},
		{`{"time":"2024-01-01T00:00:00Z","event":"Sto{"time":"2024-01-01T00:00:01Z","event":"End"}` + "\n", true},
		{`{"time":"2024-01-01T00:00:00Z",` + "\n", true},
		{"not json\n", false},
		{`{"time": 5}` + "\n", false},
	}
	for _, tc := range tests {
		var e Event
		err := json.Unmarshal([]byte(tc.line), &e)
		if err == nil {
			t.Fatalf("%q parses", tc.line)
		}
		line, complete := strings.CutSuffix(tc.line, "\n")
		got := lineError("trail.jsonl", 3, []byte(line), complete, err).Error()
		if strings.HasPrefix(got, "trail.jsonl:3: torn line") != tc.torn || !strings.HasPrefix(got, "trail.jsonl:3: ") {
			t.Errorf("%q: %s, want torn %v", tc.line, got, tc.torn)
		}
	}
}
