package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a fake clock that advances by step on every reading.
type clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

func newTestStore(t *testing.T, opts ...Option) (*Store, *clock) {
	t.Helper()
	c := &clock{t: time.UnixMilli(1704067200000), step: time.Second}
	return New(filepath.Join(t.TempDir(), "sessions"), append([]Option{WithClock(c.now)}, opts...)...), c
}

func TestCreateWritesSeedRecordAndCurrentLink(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, err := s.Create(Params{
		Workspace: "/work/ws", Command: "autoagent", Args: []string{"run", "--all"},
		Provider: "claude", GitBranch: "main", GitCommit: "0123abcd",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^session-1704067200000-[a-z0-9]{6}$`).MatchString(sess.ID) {
		t.Fatalf("id = %q, want session-1704067200000-<6 [a-z0-9]>", sess.ID)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir(), sess.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("record is not JSON: %v\n%s", err, b)
	}
	want := map[string]any{
		"id":              sess.ID,
		"startTime":       "2024-01-01T00:00:00Z",
		"workspace":       "/work/ws",
		"command":         "autoagent",
		"args":            []any{"run", "--all"},
		"issuesPlanned":   []any{},
		"issuesCompleted": []any{},
		"issuesFailed":    []any{},
		"status":          "active",
		"provider":        "claude",
		"metadata":        map[string]any{"gitBranch": "main", "gitCommit": "0123abcd"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("record =\n%s\nwant the fields %v", b, want)
	}
	target, err := os.Readlink(filepath.Join(s.Dir(), "current"))
	if err != nil {
		t.Fatalf("current link: %v", err)
	}
	if target != sess.ID+".json" {
		t.Errorf("current -> %q, want %q", target, sess.ID+".json")
	}
	cur, err := s.Current()
	if err != nil || cur.ID != sess.ID {
		t.Errorf("Current() = %v, %v; want %s", cur, err, sess.ID)
	}
}

func TestNewIDsAreRandomAndDistinct(t *testing.T) {
	t.Parallel()
	// Every Create happens at the same millisecond: only the random part tells them apart.
	s := New(t.TempDir(), WithClock(func() time.Time { return time.UnixMilli(1700000000000) }))
	seen := map[string]bool{}
	for range 50 {
		sess, err := s.Create(Params{Workspace: "/w"})
		if err != nil {
			t.Fatal(err)
		}
		if seen[sess.ID] {
			t.Fatalf("id %s created twice", sess.ID)
		}
		seen[sess.ID] = true
	}
}

// repeatReader yields the same bytes forever: every id it makes collides with the first.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestCreateNeverOverwritesAnExistingSession(t *testing.T) {
	t.Parallel()
	s := New(t.TempDir(), WithClock(func() time.Time { return time.UnixMilli(1700000000000) }), WithRand(repeatReader(1)))
	first, err := s.Create(Params{Workspace: "/first"})
	if err != nil {
		t.Fatal(err)
	}
	if first.ID != "session-1700000000000-bbbbbb" {
		t.Fatalf("id = %s, want session-1700000000000-bbbbbb", first.ID)
	}
	if _, err := s.Create(Params{Workspace: "/second"}); err == nil {
		t.Fatal("Create with an id that always collides succeeded")
	}
	if _, err := s.Create(Params{ID: first.ID}); err == nil || !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create with an existing explicit id: %v, want fs.ErrExist", err)
	}
	got, err := s.Get(first.ID)
	if err != nil || got.Workspace != "/first" {
		t.Fatalf("first session after collisions = %+v, %v", got, err)
	}
}

func TestInvalidIDsAreRejectedBeforeTouchingFiles(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	for _, id := range []string{"", "../etc/passwd", "session-1-ABC", "session-x-abc", "current", "session-1-a/b"} {
		if _, err := s.Get(id); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %v, want invalid id", id, err)
		}
		if _, err := s.Update(id, func(*Session) error { return nil }); err == nil {
			t.Errorf("Update(%q) succeeded", id)
		}
		if err := s.Append(id, Event{Event: "Stop"}); err == nil {
			t.Errorf("Append(%q) succeeded", id)
		}
	}
	if _, err := s.Get("session-1-abcdef"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a missing session = %v, want ErrNotFound", err)
	}
	if _, err := s.Current(); !errors.Is(err, ErrNoCurrent) {
		t.Errorf("Current in an empty store = %v, want ErrNoCurrent", err)
	}
}

// TestSessionName: a session's name is kept in its record; one that iteratr and agent-pipelines
// would refuse is refused before anything is written.
func TestSessionName(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, err := s.Create(Params{Workspace: "/ws", Name: "auth_refactor-2"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(sess.ID); err != nil || got.Name != "auth_refactor-2" {
		t.Errorf("read back %+v, %v", got, err)
	}
	for _, name := range []string{"a b", "x/y", "ü", strings.Repeat("n", 65), "a.b"} {
		if _, err := s.Create(Params{Workspace: "/ws", Name: name}); err == nil || !strings.Contains(err.Error(), "invalid name") {
			t.Errorf("Create with name %q: %v, want invalid name", name, err)
		}
	}
	if list, _, err := s.List(0); err != nil || len(list) != 1 {
		t.Errorf("sessions after refused names: %d, %v", len(list), err)
	}
}

func TestIssueBookkeeping(t *testing.T) {
	t.Parallel()
	type step struct {
		plan    int // StartIssue when > 0
		finish  int // FinishIssue when > 0
		success bool
	}
	tests := []struct {
		name                       string
		steps                      []step
		planned, completed, failed []int
		current                    *int
	}{
		{"planned", []step{{plan: 3}}, []int{3}, nil, nil, ptr(3)},
		{"completed", []step{{plan: 3}, {finish: 3, success: true}}, []int{3}, []int{3}, nil, nil},
		{"failed", []step{{plan: 3}, {finish: 3}}, []int{3}, nil, []int{3}, nil},
		{"retried after failure", []step{{plan: 3}, {finish: 3}, {plan: 3}, {finish: 3, success: true}}, []int{3}, []int{3}, []int{}, nil},
		{"finished without a start", []step{{finish: 7, success: true}}, []int{7}, []int{7}, nil, nil},
		{"two issues", []step{{plan: 1}, {finish: 1, success: true}, {plan: 2}}, []int{1, 2}, []int{1}, nil, ptr(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Session
			for _, st := range tt.steps {
				if st.plan > 0 {
					s.StartIssue(st.plan)
				}
				if st.finish > 0 {
					s.FinishIssue(st.finish, st.success)
				}
			}
			if !slices.Equal(s.IssuesPlanned, tt.planned) || !slices.Equal(s.IssuesCompleted, tt.completed) || !slices.Equal(s.IssuesFailed, tt.failed) {
				t.Errorf("planned %v completed %v failed %v; want %v %v %v", s.IssuesPlanned, s.IssuesCompleted, s.IssuesFailed, tt.planned, tt.completed, tt.failed)
			}
			if (s.CurrentIssue == nil) != (tt.current == nil) || (s.CurrentIssue != nil && *s.CurrentIssue != *tt.current) {
				t.Errorf("currentIssue = %v, want %v", s.CurrentIssue, tt.current)
			}
		})
	}
}

func ptr(n int) *int { return &n }

func TestEndSetsStatusTimeAndDuration(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	end := sess.StartTime.Add(90*time.Second + 250*time.Millisecond)
	got, err := s.Update(sess.ID, func(x *Session) error { x.End(StatusInterrupted, end); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusInterrupted || !got.EndTime.Equal(end) || got.Metadata.TotalDuration != 90250 {
		t.Errorf("after End: status %s end %v duration %d", got.Status, got.EndTime, got.Metadata.TotalDuration)
	}
	b, _ := os.ReadFile(s.Path(sess.ID))
	for _, want := range []string{`"endTime": "2024-01-01T00:01:30.25Z"`, `"totalDuration": 90250`, `"status": "interrupted"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("record lacks %s:\n%s", want, b)
		}
	}
}

func TestUpdateKeepsFieldsWrittenByOtherTools(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	id := "session-1704067200000-abc12"
	// As the AutoAgent seed writes it, with fields of its own.
	seed := `{
  "id": "session-1704067200000-abc12",
  "startTime": "2024-01-01T00:00:00.000Z",
  "workspace": "/w",
  "command": "/usr/bin/autoagent",
  "args": ["run"],
  "issuesPlanned": [1],
  "issuesCompleted": [],
  "issuesFailed": [],
  "currentIssue": 1,
  "status": "active",
  "provider": "gemini",
  "metadata": {"gitBranch": "dev", "costUsd": 1.5},
  "tokensUsed": {"input": 10, "output": 20}
}`
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(id), []byte(seed), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(id, func(x *Session) error { x.FinishIssue(1, true); return nil }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.Path(id))
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got["tokensUsed"], map[string]any{"input": 10.0, "output": 20.0}) {
		t.Errorf("tokensUsed = %v, want it kept", got["tokensUsed"])
	}
	meta, _ := got["metadata"].(map[string]any)
	if meta["costUsd"] != 1.5 || meta["gitBranch"] != "dev" {
		t.Errorf("metadata = %v, want costUsd and gitBranch kept", meta)
	}
	if _, ok := got["currentIssue"]; ok {
		t.Errorf("currentIssue still set after the issue finished: %s", b)
	}
	if !reflect.DeepEqual(got["issuesCompleted"], []any{1.0}) {
		t.Errorf("issuesCompleted = %v, want [1]", got["issuesCompleted"])
	}
}

func TestUpdateErrorWritesNothing(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path(sess.ID))
	boom := errors.New("boom")
	_, err = s.Update(sess.ID, func(x *Session) error { x.Status = StatusFailed; return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Update error = %v, want boom", err)
	}
	after, _ := os.ReadFile(s.Path(sess.ID))
	if !bytes.Equal(before, after) {
		t.Errorf("record changed by a failed update:\n%s", after)
	}
	if _, err := s.Update("session-1-zzzzzz", func(*Session) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Errorf("Update of a missing session = %v, want ErrNotFound", err)
	}
}

// TestConcurrentUpdatesLoseNothing runs many goroutines updating one session, each through its
// own open of the lock file, while readers check that the record is never torn.
func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	const writers = 40
	var wg sync.WaitGroup
	stop := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				close(readErr)
				return
			default:
			}
			if _, err := New(s.Dir()).Get(sess.ID); err != nil {
				readErr <- err
				close(readErr)
				return
			}
		}
	}()
	for i := 1; i <= writers; i++ {
		wg.Go(func() {
			if _, err := New(s.Dir()).Update(sess.ID, func(x *Session) error { x.StartIssue(i); return nil }); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	close(stop)
	if err := <-readErr; err != nil {
		t.Fatalf("a reader saw a broken record: %v", err)
	}
	got, err := s.Get(sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got.IssuesPlanned)
	want := make([]int, writers)
	for i := range want {
		want[i] = i + 1
	}
	if !slices.Equal(got.IssuesPlanned, want) {
		t.Errorf("issuesPlanned = %v, want 1..%d: updates were lost", got.IssuesPlanned, writers)
	}
	leftovers, _ := filepath.Glob(filepath.Join(s.Dir(), "*.tmp"))
	if hidden, _ := filepath.Glob(filepath.Join(s.Dir(), ".*.tmp")); len(leftovers)+len(hidden) > 0 {
		t.Errorf("temporary files left behind: %v %v", leftovers, hidden)
	}
}

func TestSetCurrentAndCurrentFile(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	a, _ := s.Create(Params{Workspace: "/a"})
	b, _ := s.Create(Params{Workspace: "/b"})
	if id, _ := s.CurrentID(); id != b.ID {
		t.Fatalf("current = %s after creating %s", id, b.ID)
	}
	if err := s.SetCurrent(a.ID); err != nil {
		t.Fatal(err)
	}
	if id, _ := s.CurrentID(); id != a.ID {
		t.Errorf("current = %s after SetCurrent(%s)", id, a.ID)
	}
	if err := s.SetCurrent("session-1-nothere"); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetCurrent of a missing session = %v, want ErrNotFound", err)
	}
	// Where symbolic links cannot be made, `current` is a file naming the record (also how the
	// seed's absolute-path link reads once resolved to its base name).
	link := filepath.Join(s.Dir(), "current")
	os.Remove(link)
	if err := os.WriteFile(link, []byte(filepath.Join(s.Dir(), b.ID+".json")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cur, err := s.Current(); err != nil || cur.ID != b.ID {
		t.Errorf("Current from a plain file = %v, %v; want %s", cur, err, b.ID)
	}
	if err := os.WriteFile(link, []byte("notes.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Current(); err == nil || errors.Is(err, ErrNoCurrent) {
		t.Errorf("Current pointing at a foreign file = %v, want an error naming it", err)
	}
}

func TestValidID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want bool
	}{
		{"session-1704067200000-abc123", true},
		{"session-1704067200000-5", true}, // the seed's generator can make short ones
		{"session-1-a", true},
		{"session-1704067200000-ABC123", false},
		{"session-1704067200000-", false},
		{"session--abc123", false},
		{"session-17040672000x0-abc123", false},
		{"session-1704067200000-abc-12", false},
		{"session-1704067200000-abc123.json", false},
		{"session-1234567890123456789-abc", false}, // more digits than an int64 holds
		{"Session-1704067200000-abc123", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestParseStatus(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"active", "completed", "interrupted", "failed"} {
		if got, err := ParseStatus(s); err != nil || string(got) != s {
			t.Errorf("ParseStatus(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseStatus("done"); err == nil {
		t.Error(`ParseStatus("done") succeeded`)
	}
}

func ExampleStore() {
	dir, _ := os.MkdirTemp("", "sessions")
	defer os.RemoveAll(dir)
	s := New(dir, WithClock(func() time.Time { return time.UnixMilli(1704067200000) }), WithRand(repeatReader(0)))
	sess, _ := s.Create(Params{Workspace: "/work/app", Command: "autoagent"})
	s.Update(sess.ID, func(x *Session) error { x.StartIssue(42); return nil })
	got, _ := s.Get(sess.ID)
	fmt.Println(got.ID, got.Status, got.IssuesPlanned, *got.CurrentIssue)
	// Output: session-1704067200000-aaaaaa active [42] 42
}

// TestCreateRemovesStaleTemporaryFiles: a writer killed between writing its temporary file and
// renaming it leaves .<name>.<digits>.tmp behind; the next session start removes those older than
// an hour and leaves a fresh one (a write under way in another process) alone.
func TestCreateRemovesStaleTemporaryFiles(t *testing.T) {
	t.Parallel()
	var warnings []error
	s, c := newTestStore(t, WithWarnings(func(err error) { warnings = append(warnings, err) }))
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	now := c.t
	files := map[string]time.Time{
		".session-1704067100000-aaaaaa.json.4242.tmp":              now.Add(-2 * time.Hour), // a killed record write
		".session-1704067100000-aaaaaa.agent-pipelines.json.7.tmp": now.Add(-3 * time.Hour), // a killed state write
		".session-1704067100000-aaaaaa.json.99.tmp":                now.Add(-time.Minute),   // under way
		"session-1704067100000-aaaaaa.agent-pipelines.json.lock":   now.Add(-3 * time.Hour),
		"session-1704067100000-aaaaaa.events.jsonl":                now.Add(-3 * time.Hour),
	}
	for name, at := range files {
		path := filepath.Join(s.Dir(), name)
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Create(Params{Workspace: "/w"}); err != nil {
		t.Fatal(err)
	}
	for name, at := range files {
		_, err := os.Stat(filepath.Join(s.Dir(), name))
		stale := strings.HasSuffix(name, ".tmp") && now.Sub(at) > time.Hour
		if gone := errors.Is(err, fs.ErrNotExist); gone != stale {
			t.Errorf("%s: removed %v, want %v", name, gone, stale)
		}
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
}

// TestCreateWhenCurrentIsADirectory: a `current` that is a directory (made by hand or another
// tool) does not break session start for good: it is moved aside, with its content, under a name
// that `session list` reports, a warning says so, and the new session becomes current.
func TestCreateWhenCurrentIsADirectory(t *testing.T) {
	t.Parallel()
	var warnings []error
	s, _ := newTestStore(t, WithWarnings(func(err error) { warnings = append(warnings, err) }))
	dir := filepath.Join(s.Dir(), CurrentLink)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		sess, err := s.Create(Params{Workspace: "/w"})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if id, err := s.CurrentID(); err != nil || id != sess.ID {
			t.Fatalf("current = %q, %v; want %s", id, err, sess.ID)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Error(), "is a directory") {
		t.Fatalf("warnings = %v, want one saying current was a directory", warnings)
	}
	moved, _ := filepath.Glob(filepath.Join(s.Dir(), "current.*", "keep.txt"))
	if len(moved) != 1 || !strings.Contains(warnings[0].Error(), filepath.Dir(moved[0])) {
		t.Fatalf("moved aside to %v, want one folder named in %v", moved, warnings[0])
	}
	_, problems, err := s.List(0)
	var foreign *ForeignError
	if err != nil || len(problems) != 1 || !errors.As(problems[0], &foreign) || foreign.Path != filepath.Dir(moved[0]) {
		t.Errorf("list problems = %v, %v; want the moved folder reported", problems, err)
	}
}

// TestDecodersNameEveryField: the keys a record read decodes (and does not keep as another
// tool's) are exactly those the record's own fields encode to (all of them set, none omitted).
func TestDecodersNameEveryField(t *testing.T) {
	t.Parallel()
	n := 3
	full := Session{
		ID: "session-1-a", StartTime: time.Unix(1, 0), EndTime: time.Unix(2, 0), Workspace: "/w", Command: "c",
		Args: []string{"a"}, IssuesPlanned: []int{1}, IssuesCompleted: []int{1}, IssuesFailed: []int{2},
		CurrentIssue: &n, Status: StatusActive, Provider: "p", StopBlockCount: 1, SubagentStopBlockCount: 1,
		Agent: "claude", AgentSessionID: "s", FilesModified: []string{"f"}, AuditHead: &AuditHead{Seq: 1},
		Name: "n", EndReason: EndReasonIdle, Metadata: Metadata{GitBranch: "b", GitCommit: "c", TotalDuration: 1},
	}
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Metadata  map[string]json.RawMessage `json:"metadata"`
		AuditHead map[string]json.RawMessage `json:"auditHead"`
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string]struct {
		encoded map[string]json.RawMessage
		known   map[string]bool
	}{
		"record":    {top, decoderNames(sessionDecoders)},
		"metadata":  {rec.Metadata, decoderNames(metadataDecoders)},
		"auditHead": {rec.AuditHead, decoderNames(auditHeadDecoders)},
	} {
		if len(pair.encoded) != len(pair.known) {
			t.Errorf("%s: %d keys encoded, %d known", name, len(pair.encoded), len(pair.known))
		}
		for k := range pair.encoded {
			if !pair.known[k] {
				t.Errorf("%s: key %q is encoded but not known", name, k)
			}
		}
	}
}

func decoderNames[T any](fields []fieldDecoder[T]) map[string]bool {
	names := map[string]bool{}
	for _, f := range fields {
		names[f.name] = true
	}
	return names
}
