package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// anchoredSession makes a session whose trail has n lines, appended one event at a time as hooks
// append them, and whose record was last written after the first recorded of them: the record's
// head behind the noted one, as while a session runs.
func anchoredSession(t *testing.T, n, recorded int) (*Store, string) {
	t.Helper()
	s, _ := newTestStore(t)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if i == recorded {
			if _, err := s.Update(sess.ID, func(*Session) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Append(sess.ID, Event{Event: "PreToolUse", Name: fmt.Sprintf("h%d", i+1), Status: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	if h := s.recordHead(sess.ID, s.Path(sess.ID)); h == nil || h.Seq != int64(recorded) {
		t.Fatalf("the record's head is %+v, want seq %d", h, recorded)
	}
	return s, sess.ID
}

// heldSession is anchoredSession with its last line appended through a TrailAppender, which
// holds the trail and its note open when it returns, as an event's appender does between its
// hooks; appendNext appends through it.
func heldSession(t *testing.T, n, recorded int) (s *Store, id string, appendNext func(...Event) error) {
	t.Helper()
	s, id = anchoredSession(t, n-1, recorded)
	a, err := s.Appender(id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	if err := a.Append(Event{Event: "PreToolUse", Name: fmt.Sprintf("h%d", n), Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	return s, id, a.Append
}

// appendModes are the two ways lines are appended: each through Store.Append, which opens the
// trail and its note for the append, and through a TrailAppender that holds them open from an
// append before (heldSession): both must find the same.
var appendModes = []struct {
	name    string
	session func(t *testing.T, n, recorded int) (*Store, string, func(...Event) error)
}{
	{"fresh", func(t *testing.T, n, recorded int) (*Store, string, func(...Event) error) {
		s, id := anchoredSession(t, n, recorded)
		return s, id, func(e ...Event) error { return s.Append(id, e...) }
	}},
	{"held", heldSession},
}

func trailLines(t *testing.T, s *Store, id string) []string {
	t.Helper()
	b, err := os.ReadFile(s.EventsPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func writeTrail(t *testing.T, s *Store, id string, lines []string) {
	t.Helper()
	text := strings.Join(lines, "\n")
	if len(lines) > 0 {
		text += "\n"
	}
	if err := os.WriteFile(s.EventsPath(id), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func writeNote(t *testing.T, s *Store, id, note string) {
	t.Helper()
	if err := os.WriteFile(s.headPath(id), []byte(note), 0o600); err != nil {
		t.Fatal(err)
	}
}

// verifyStored verifies session id's trail as `session verify` does: against the head its
// snapshot reads, up to the size it reads.
func verifyStored(t *testing.T, s *Store, id string) *Verification {
	t.Helper()
	sess, size, err := s.Snapshot(id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.OpenTrail(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v, err := VerifyTrail(io.LimitReader(r, size), "trail", id, sess.AuditHead)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAppendFindsTheTrailNotEndingAtItsHead: whatever was done to the end of the trail (and to its
// note) since the last append, the next append does not carry on as if nothing happened: it says
// what it found in a line of the chain, and verify fails from then on, also after more events.
// The head never goes back past what is still known of it.
func TestAppendFindsTheTrailNotEndingAtItsHead(t *testing.T) {
	t.Parallel()
	strip := regexp.MustCompile(`"seq":[0-9]+,"prev":"[0-9a-f]+",`)
	tests := []struct {
		name     string
		recorded int // the record's head: the seq of the last line when it was last written
		attack   func(t *testing.T, s *Store, id string, lines []string)
		found    string // in the line the append writes, which verify reports (else: see kind)
		kind     string // what verify reports, when the chain breaks before that line
	}{
		{"3 lines cut", 3, func(t *testing.T, s *Store, id string, l []string) { writeTrail(t, s, id, l[:5]) },
			"found cut at seq 5, short of the last head agent-hooks noted (seq 8): 3 line(s) were removed", ""},
		{"3 lines cut, note removed", 3, func(t *testing.T, s *Store, id string, l []string) {
			writeTrail(t, s, id, l[:5])
			os.Remove(s.headPath(id))
		}, "run 2 line(s) past the head the session record keeps (seq 3; the head note " + "session-", ""},
		{"3 lines cut, note damaged", 3, func(t *testing.T, s *Store, id string, l []string) {
			writeTrail(t, s, id, l[:5])
			writeNote(t, s, id, `{"seq":5,"hash":"x`)
		}, "is damaged", ""},
		{"3 lines cut, note emptied", 3, func(t *testing.T, s *Store, id string, l []string) {
			writeTrail(t, s, id, l[:5])
			writeNote(t, s, id, "")
		}, "is missing", ""},
		{"cut before the record's head, note removed", 3, func(t *testing.T, s *Store, id string, l []string) {
			writeTrail(t, s, id, l[:2])
			os.Remove(s.headPath(id))
		}, "found cut at seq 2, short of the head the session record keeps (seq 3", ""},
		{"note and trail rolled back behind the record", 6, func(t *testing.T, s *Store, id string, l []string) {
			writeTrail(t, s, id, l[:4])
			b, _ := json.Marshal(headOf(l[:4]))
			writeNote(t, s, id, string(b))
		}, "is behind it (seq 4): rolled back", ""},
		{"trail emptied", 3, func(t *testing.T, s *Store, id string, _ []string) { writeTrail(t, s, id, nil) },
			"found empty", ""},
		{"trail and note removed", 3, func(t *testing.T, s *Store, id string, _ []string) {
			os.Remove(s.EventsPath(id))
			os.Remove(s.headPath(id))
		}, "found empty, short of the head the session record keeps (seq 3", ""},
		{"last line changed", 3, func(t *testing.T, s *Store, id string, l []string) {
			l[7] = strings.Replace(l[7], `"h8"`, `"hX"`, 1)
			writeTrail(t, s, id, l)
		}, "last line (seq 8) was found changed", ""},
		{"a chained line added", 3, func(t *testing.T, s *Store, id string, l []string) {
			forged := fmt.Sprintf(`{"seq":9,"prev":"%s","event":"PreToolUse","name":"forged","status":"ok"}`, lineHash([]byte(l[7])))
			writeTrail(t, s, id, append(l, forged))
		}, "run 1 line(s) past the last head agent-hooks noted (seq 8), to seq 9", ""},
		{"an unchained line added", 3, func(t *testing.T, s *Store, id string, l []string) {
			writeTrail(t, s, id, append(l, `{"event":"PreToolUse","name":"forged","status":"ok"}`))
		}, "carries no chain", "inserted"},
		{"chain stripped, note removed", 3, func(t *testing.T, s *Store, id string, l []string) {
			for i := range l {
				l[i] = strip.ReplaceAllString(l[i], "")
			}
			writeTrail(t, s, id, l)
			os.Remove(s.headPath(id))
		}, "carries no chain", ""},
	}
	for _, mode := range appendModes {
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				s, id, appendNext := mode.session(t, 8, tc.recorded)
				if v := verifyStored(t, s, id); !v.OK() {
					t.Fatalf("before: %+v", v)
				}
				tc.attack(t, s, id, trailLines(t, s, id))
				if v := verifyStored(t, s, id); v.OK() {
					t.Errorf("verify right after the attack: %+v, want a failure", v)
				}
				known := newerHead(s.recordHead(id, s.Path(id)), s.notedHead(id)) // what is left of the head
				for i := range 2 {
					if err := appendNext(Event{Event: "Stop", Name: fmt.Sprintf("next%d", i), Status: "ok"}); err != nil {
						t.Fatal(err)
					}
					v := verifyStored(t, s, id)
					switch {
					case tc.kind != "" && (v.Break == nil || v.Break.Kind != tc.kind):
						t.Errorf("verify after %d more event(s): %+v, break %+v; want %s", i+1, v, v.Break, tc.kind)
					case tc.kind == "" && (v.Break == nil || v.Break.Kind != "found" || !strings.Contains(v.Break.Msg, tc.found)):
						t.Errorf("verify after %d more event(s): %+v, break %+v; want one found, saying %q", i+1, v, v.Break, tc.found)
					}
				}
				sess, err := s.Get(id)
				if err != nil {
					t.Fatal(err)
				}
				if known != nil && sess.AuditHead.Seq <= known.Seq {
					t.Errorf("the head went back: seq %d, was %d", sess.AuditHead.Seq, known.Seq)
				}
				lines := trailLines(t, s, id)
				var breaks []Event
				for _, l := range lines {
					var e Event
					if json.Unmarshal([]byte(l), &e) == nil && e.Type == breakType {
						breaks = append(breaks, e)
					}
				}
				if len(breaks) != 1 || breaks[0].Event != "Stop" || breaks[0].Source != "agent-hooks" || breaks[0].Status != "broken" || !strings.Contains(breaks[0].Reason, tc.found) {
					t.Errorf("break lines = %+v, want one, of the Stop that found it, saying %q", breaks, tc.found)
				}
			})
		}
	}
}

// TestVerifyDoesNotVouchPastTheHead: with the note removed, the lines past the record's head are
// anchored by nothing: verify says so (no break, not OK), and the next append makes it a break.
func TestVerifyDoesNotVouchPastTheHead(t *testing.T) {
	t.Parallel()
	s, id := anchoredSession(t, 8, 3)
	if err := os.Remove(s.headPath(id)); err != nil {
		t.Fatal(err)
	}
	v := verifyStored(t, s, id)
	if v.OK() || v.Break != nil || v.AfterHead != 5 || v.Head == nil || v.Head.Seq != 3 {
		t.Errorf("verify = %+v, want 5 lines after the head at seq 3, no break, not OK", v)
	}
}

// TestRecordNeverTakesTheTrailAsItIs: a write of the record takes the head the last append noted,
// never the trail's last line as it is: a trail cut (and its note removed) is not made whole by
// the next update of the record.
func TestRecordNeverTakesTheTrailAsItIs(t *testing.T) {
	t.Parallel()
	s, id := anchoredSession(t, 8, 3)
	writeTrail(t, s, id, trailLines(t, s, id)[:5])
	if err := os.Remove(s.headPath(id)); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Update(id, func(*Session) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if sess.AuditHead == nil || sess.AuditHead.Seq != 3 {
		t.Errorf("the record's head = %+v, want the seq 3 it kept", sess.AuditHead)
	}
	if v := verifyStored(t, s, id); v.OK() {
		t.Errorf("verify = %+v, want a failure", v)
	}
}

// TestFirstLinesAreAnchoredInTheRecord: the first append of a trail that nothing anchors yet has
// the record take the head, so that a trail removed with its note still falls short of a head.
func TestFirstLinesAreAnchoredInTheRecord(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(sess.ID, Event{Event: "Stop"}, Event{Event: "Stop"}); err != nil {
		t.Fatal(err)
	}
	want := headOf(trailLines(t, s, sess.ID))
	if got := s.recordHead(sess.ID, s.Path(sess.ID)); !reflect.DeepEqual(got, want) {
		t.Errorf("the record's head = %+v, want %+v", got, want)
	}
	before, _ := os.ReadFile(s.Path(sess.ID))
	if err := s.Append(sess.ID, Event{Event: "Stop"}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(s.Path(sess.ID)); !bytes.Equal(after, before) {
		t.Error("a later append rewrote the record")
	}
	os.Remove(s.EventsPath(sess.ID))
	os.Remove(s.headPath(sess.ID))
	if v := verifyStored(t, s, sess.ID); v.OK() || v.Break == nil || v.Break.Kind != "removed" {
		t.Errorf("verify of a trail removed with its note = %+v, want it removed", v)
	}
}

// TestNotedHead: every append notes the head it leaves, which Get takes when it is past the
// record's; a note that cannot be used (damaged, cut short, behind the record) leaves the
// record's head standing; a note over a longer content is whole; importing a session drops the
// note of the trail it replaces.
func TestNotedHead(t *testing.T) {
	t.Parallel()
	s, id := anchoredSession(t, 3, 2)
	lines := trailLines(t, s, id)
	got, err := s.Get(id)
	if err != nil || !reflect.DeepEqual(got.AuditHead, headOf(lines)) {
		t.Fatalf("Get's head = %+v (%v), want the noted %+v", got.AuditHead, err, headOf(lines))
	}
	recorded := headOf(lines[:2])
	for _, note := range []string{"", `{"seq":3,"hash":"ab`, `{"seq":3}`, "garbage", `{"seq":1,"hash":"` + strings.Repeat("0", 64) + `"}`, `{"seq":2,"hash":"` + strings.Repeat("0", 64) + `"}`} {
		writeNote(t, s, id, note)
		got, err := s.Get(id)
		if err != nil || !reflect.DeepEqual(got.AuditHead, recorded) {
			t.Errorf("note %q: head = %+v (%v), want the record's %+v", note, got.AuditHead, err, recorded)
		}
	}
	// A note is overwritten in place: what a longer content leaves after it is cut.
	writeNote(t, s, id, strings.Repeat("x", 300))
	if err := s.Append(id, Event{Event: "Stop"}); err != nil {
		t.Fatal(err)
	}
	lines = trailLines(t, s, id)
	if b, _ := os.ReadFile(s.headPath(id)); !bytes.HasSuffix(b, []byte("\n")) || bytes.Count(b, []byte("\n")) != 1 {
		t.Errorf("note = %q, want one line", b)
	}
	if got, err := s.Get(id); err != nil || !reflect.DeepEqual(got.AuditHead, headOf(lines)) {
		t.Errorf("over a longer note: head = %+v (%v), want %+v", got.AuditHead, err, headOf(lines))
	}
	record, _ := os.ReadFile(s.Path(id))
	if err := s.Import(id, record, strings.NewReader(lines[0]+"\n"), true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.headPath(id)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the note of the replaced trail is still there: %v", err)
	}
}

// TestSnapshotEndsAtTheHead: the size Snapshot reads is the trail's at the head it reads, and
// lines appended after are not in it.
func TestSnapshotEndsAtTheHead(t *testing.T) {
	t.Parallel()
	s, id := anchoredSession(t, 4, 2)
	sess, size, err := s.Snapshot(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(id, Event{Event: "Stop"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.EventsPath(id))
	lines := strings.Split(strings.TrimSuffix(string(b[:size]), "\n"), "\n")
	if len(lines) != 4 || !reflect.DeepEqual(sess.AuditHead, headOf(lines)) {
		t.Errorf("snapshot: %d lines, head %+v; want 4 lines ending at it", len(lines), sess.AuditHead)
	}
	if _, size, err := s.Snapshot("session-1704067200000-nonexistent0"); err == nil || size != 0 {
		t.Errorf("snapshot of no session: %d, %v", size, err)
	}
}

// plantLink puts a symbolic link to a file outside the sessions folder at path (skipping where
// links cannot be made) and returns the file, which holds content.
func plantLink(t *testing.T, path, content string) string {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, path); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	return outside
}

// plantHardLink makes path a second name of a file outside the sessions folder.
func plantHardLink(t *testing.T, path, content string) string {
	t.Helper()
	outside := filepath.Join(filepath.Dir(filepath.Dir(path)), "outside.txt")
	if err := os.WriteFile(outside, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if err := os.Link(outside, path); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	return outside
}

// TestSessionFilesAreNeverWrittenThroughLinks: a link planted in place of a session's files (the
// head note, the trail, the folder's lock, a state's lock) never makes agent-hooks write, cut or
// create the file it points at. A note that is a link is replaced by a note of agent-hooks' own,
// and the append says it found the trail unanchored; a trail or a lock that is a link is refused.
func TestSessionFilesAreNeverWrittenThroughLinks(t *testing.T) {
	t.Parallel()
	const content = "the user's own file\nwith two lines\n"
	var appendOne func(s *Store, id string) error // nil: the append of the mode
	tests := []struct {
		name   string
		plant  func(t *testing.T, s *Store, id string) string
		do     func(s *Store, id string) error // nil: an append
		refuse bool                            // the operation fails (else it goes on, without the link)
	}{
		{"note symlinked", func(t *testing.T, s *Store, id string) string {
			os.Remove(s.headPath(id))
			return plantLink(t, s.headPath(id), content)
		}, appendOne, false},
		{"note hard-linked", func(t *testing.T, s *Store, id string) string {
			return plantHardLink(t, s.headPath(id), content)
		}, appendOne, false},
		{"trail symlinked", func(t *testing.T, s *Store, id string) string {
			os.Remove(s.EventsPath(id))
			return plantLink(t, s.EventsPath(id), content)
		}, appendOne, true},
		{"trail hard-linked", func(t *testing.T, s *Store, id string) string {
			return plantHardLink(t, s.EventsPath(id), content)
		}, appendOne, true},
		{"lock symlinked", func(t *testing.T, s *Store, _ string) string {
			os.Remove(filepath.Join(s.Dir(), lockName))
			return plantLink(t, filepath.Join(s.Dir(), lockName), content)
		}, func(s *Store, id string) error {
			_, err := s.Update(id, func(*Session) error { return nil })
			return err
		}, true},
		{"state lock symlinked", func(t *testing.T, s *Store, id string) string {
			return plantLink(t, s.State(id, "loop").Path()+".lock", content)
		}, func(s *Store, id string) error {
			var v map[string]int
			return s.State(id, "loop").Update(&v, func() (bool, error) { v = map[string]int{"n": 1}; return true, nil })
		}, true},
	}
	for _, mode := range appendModes {
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				s, id, appendNext := mode.session(t, 3, 1)
				outside := tc.plant(t, s, id)
				var err error
				if tc.do == nil { // the append, as the mode makes it
					err = appendNext(Event{Event: "Stop", Name: "next"})
				} else {
					err = tc.do(s, id)
				}
				if tc.refuse != (err != nil) {
					t.Errorf("error = %v, want one: %v", err, tc.refuse)
				}
				if b, rerr := os.ReadFile(outside); rerr != nil || string(b) != content {
					t.Errorf("the file outside is %q (%v), was %q", b, rerr, content)
				}
				if tc.refuse {
					return
				}
				if st, err := os.Lstat(s.headPath(id)); err != nil || !st.Mode().IsRegular() {
					t.Errorf("the note is not a file of its own: %v %v", st, err)
				}
				if v := verifyStored(t, s, id); v.Break == nil || v.Break.Kind != "found" {
					t.Errorf("verify = %+v, break %+v; want the append to have found the note gone", v, v.Break)
				}
			})
		}
	}
}

// TestDanglingLinksCreateNothing: a link to a file that does not exist yet, planted as the note
// or a lock, does not make agent-hooks create that file.
func TestDanglingLinksCreateNothing(t *testing.T) {
	t.Parallel()
	s, id := anchoredSession(t, 2, 1)
	target := filepath.Join(t.TempDir(), "created-by-agent-hooks")
	for _, path := range []string{s.headPath(id), filepath.Join(s.Dir(), lockName)} {
		os.Remove(path)
		if err := os.Symlink(target, path); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	_ = s.Append(id, Event{Event: "Stop"})
	_, _ = s.Update(id, func(*Session) error { return nil })
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was created at the links' target: %v", err)
	}
}

// TestBreakLineIsAppendsOwn: only the line an append writes reads as a break: a hook's name,
// reason or details that hold the same words do not.
func TestBreakLineIsAppendsOwn(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID
	err = s.Append(id,
		Event{Event: "Stop", Name: `"type":"trail-break"`, Type: "command", Source: "project", Reason: `,"type":"trail-break"`},
		Event{Event: "Stop", Name: "x", Type: "command", Source: "agent-hooks", Details: map[string]any{"type": breakType, "source": "agent-hooks"}},
		Event{Event: "Stop", Name: "agent-hooks", Type: breakType, Source: "project"})
	if err != nil {
		t.Fatal(err)
	}
	if v := verifyStored(t, s, id); v.Break != nil {
		t.Errorf("verify = %+v, break %+v; want no break", v, v.Break)
	}
	for _, l := range trailLines(t, s, id) {
		if _, ok := breakLine([]byte(l)); ok {
			t.Errorf("read as a break: %s", l)
		}
	}
}

// BenchmarkTrailAppenderOneHook is what one hook's line costs an event's hooks, which append
// through one TrailAppender (the trail and its note held open from one line to the next).
func BenchmarkTrailAppenderOneHook(b *testing.B) {
	s := New(filepath.Join(b.TempDir(), "sessions"))
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		b.Fatal(err)
	}
	a, err := s.Appender(sess.ID)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	e := Event{Event: "PreExecutionEnd", Name: "true", Type: "command", Source: "project", Format: "autoagent",
		File: "/w/.autoagent/config.json", Status: "ok", DurationMs: 12}
	b.ReportAllocs()
	for b.Loop() {
		if err := a.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendOneHook is what one hook's line costs an event of a session with a record: the
// append, its check of the trail's end against the head (the note, and the record's head), and
// the note of the head it leaves (which an event whose hooks appended once wrote on its own, once
// an event, reading the trail's end again).
func BenchmarkAppendOneHook(b *testing.B) {
	s := New(filepath.Join(b.TempDir(), "sessions"))
	sess, err := s.Create(Params{Workspace: "/w"})
	if err != nil {
		b.Fatal(err)
	}
	e := Event{Event: "PreExecutionEnd", Name: "lint", Type: "command", Source: "project", Status: "ok", DurationMs: 12}
	for b.Loop() {
		if err := s.Append(sess.ID, e); err != nil {
			b.Fatal(err)
		}
	}
}
