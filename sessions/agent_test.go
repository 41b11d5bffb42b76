package sessions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func agentParams() Params { return Params{Workspace: "/w", Command: "claude", Provider: "claude"} }

// TestOpenAgentMapsOneAgentSessionToOne: the first hook of an agent session creates our session,
// recording the agent and its id, and every later hook of it finds the same one; another agent
// session gets its own.
func TestOpenAgentMapsOneAgentSessionToOne(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	const claudeID = "90d82a6c-7a0a-4af5-8c86-1cd1a2d41641"
	first, created, err := s.OpenAgent("claude", claudeID, agentParams)
	if err != nil || !created {
		t.Fatalf("first sight: %v, created %v", err, created)
	}
	if first.Agent != "claude" || first.AgentSessionID != claudeID || first.Workspace != "/w" || !first.Active() {
		t.Errorf("record: %+v", first)
	}
	again, created, err := s.OpenAgent("claude", claudeID, agentParams)
	if err != nil || created || again.ID != first.ID {
		t.Fatalf("second sight: %v, created %v, id %s want %s", err, created, again.ID, first.ID)
	}
	other, created, err := s.OpenAgent("codex", claudeID, agentParams)
	if err != nil || !created || other.ID == first.ID {
		t.Errorf("the same id of another agent: %v, created %v, id %s", err, created, other.ID)
	}
	b, err := os.ReadFile(s.Path(first.ID))
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil || rec["agent"] != "claude" || rec["agentSessionId"] != claudeID {
		t.Errorf("stored record: %s (%v)", b, err)
	}
	list, problems, err := s.List(0)
	if err != nil || len(problems) > 0 || len(list) != 2 {
		t.Errorf("session list: %d sessions, problems %v, %v (the index must not show up)", len(list), problems, err)
	}
}

// TestOpenAgentConcurrentFirstSight: hooks of one agent session starting together (Claude runs
// the hooks of parallel tool calls at once) agree on one session.
func TestOpenAgentConcurrentFirstSight(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	const n = 16
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			sess, _, err := New(s.Dir()).OpenAgent("claude", "0f0e-concurrent", agentParams)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = sess.ID
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("concurrent first calls made several sessions: %v", ids)
		}
	}
	if list, _, _ := s.List(0); len(list) != 1 {
		t.Errorf("%d sessions, want 1", len(list))
	}
}

// TestOpenAgentReopensAnEndedSession: the agent resumes a session it ended (claude --resume):
// the same record becomes active and current again.
func TestOpenAgentReopensAnEndedSession(t *testing.T) {
	t.Parallel()
	s, c := newTestStore(t)
	sess, _, err := s.OpenAgent("claude", "resumed", agentParams)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(sess.ID, func(x *Session) error { x.End(StatusCompleted, c.now()); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(Params{Workspace: "/elsewhere"}); err != nil { // another session becomes current
		t.Fatal(err)
	}
	again, created, err := s.OpenAgent("claude", "resumed", agentParams)
	if err != nil || created || again.ID != sess.ID || !again.Active() || !again.EndTime.IsZero() || again.Metadata.TotalDuration != 0 {
		t.Fatalf("reopened: %+v, created %v, %v", again, created, err)
	}
	if cur, _ := s.CurrentID(); cur != sess.ID {
		t.Errorf("current is %s, want the reopened %s", cur, sess.ID)
	}
}

// TestOpenAgentIDsNeverNameAPath: an agent session id is a file name in the index only when it
// is a plain name; anything else is hashed. A bad agent name or an empty id is refused.
func TestOpenAgentIDsNeverNameAPath(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	for _, id := range []string{"../../escape", "a/b", ".hidden", strings.Repeat("x", 200)} {
		if _, _, err := s.OpenAgent("claude", id, agentParams); err != nil {
			t.Fatalf("%q: %v", id, err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(s.Dir(), agentIndexDir, "claude"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "sha256-") {
			t.Errorf("index entry %q", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.Dir()), "escape")); err == nil {
		t.Error("an id escaped the index")
	}
	for _, bad := range [][2]string{{"../x", "id"}, {"claude", ""}, {"", "id"}} {
		if _, _, err := s.OpenAgent(bad[0], bad[1], agentParams); err == nil {
			t.Errorf("agent %q id %q: no error", bad[0], bad[1])
		}
	}
}

// TestOpenAgentReplacesALostRecord: an index naming a record that was removed starts a new
// session instead of failing every hook.
func TestOpenAgentReplacesALostRecord(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	sess, _, err := s.OpenAgent("codex", "lost", agentParams)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.Path(sess.ID)); err != nil {
		t.Fatal(err)
	}
	again, created, err := s.OpenAgent("codex", "lost", agentParams)
	if err != nil || !created || again.ID == sess.ID {
		t.Fatalf("after the record was removed: %v, created %v", err, created)
	}
	third, created, err := s.OpenAgent("codex", "lost", agentParams)
	if err != nil || created || third.ID != again.ID {
		t.Errorf("the index was not updated: %v, created %v, %s want %s", err, created, third.ID, again.ID)
	}
}

func TestAddFiles(t *testing.T) {
	t.Parallel()
	var s Session
	if !s.AddFiles("a.go", "b.go", "a.go") || s.AddFiles("b.go", "") || !s.AddFiles("c.go") {
		t.Error("AddFiles reported the wrong change")
	}
	if got := strings.Join(s.FilesModified, " "); got != "a.go b.go c.go" {
		t.Errorf("FilesModified %q", got)
	}
}
