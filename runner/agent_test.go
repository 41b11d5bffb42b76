package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

const claudeSession = "90d82a6c-7a0a-4af5-8c86-1cd1a2d41641"

// agentReq is a request as `agent-hooks hook claude` makes it.
func agentReq(event string) Request {
	return Request{Event: event, Agent: "claude", AgentSessionID: claudeSession, CaptureStdout: true}
}

// TestAgentSessionAttach: the events of one agent session fire in one agent-hooks session, created
// on first sight with the agent and its session id; another agent session gets another.
// $AUTOAGENT_SESSION_ID (an agent run inside an agent-hooks session) wins, and records the agent.
func TestAgentSessionAttach(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {}}`)
	first := h.fire(agentReq(hooks.SessionStart)).Result.SessionID
	if s := h.session(first); s.Agent != "claude" || s.AgentSessionID != claudeSession || s.Command != "claude" || s.Provider != "claude" || s.Workspace != h.ws {
		t.Errorf("new agent session: %+v", s)
	}
	if got := h.fire(agentReq(hooks.PreToolUse)).Result.SessionID; got != first {
		t.Errorf("the second event attached to %s, want %s", got, first)
	}
	other := agentReq(hooks.PreToolUse)
	other.AgentSessionID = "another"
	if got := h.fire(other).Result.SessionID; got == first {
		t.Error("another agent session attached to the first one's")
	}
	// A plain run in the workspace attaches to the workspace's active session, as before.
	if got := h.fire(Request{Event: hooks.PostIteration}).Result.SessionID; got == "" {
		t.Error("no session")
	}

	named := "session-1700000000000-loop01"
	h.env["AUTOAGENT_SESSION_ID"] = named
	if got := h.fire(agentReq(hooks.PreToolUse)).Result.SessionID; got != named {
		t.Errorf("$AUTOAGENT_SESSION_ID: attached to %s", got)
	}
	if s := h.session(named); s.Agent != "claude" || s.AgentSessionID != claudeSession {
		t.Errorf("the named session does not record the agent: %+v", s)
	}
}

// TestAgentFilesModified: files the agent's tools changed accumulate in the session, relative to
// the workspace (once each, never one outside it, never from a blocked event), and the agent's
// Stop and SessionEnd carry them as filesModified; other events and sessions of no agent do not.
func TestAgentFilesModified(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {
		"PreToolUse": [{"command": "[ ! -e deny ] || { echo no >&2; exit 2; }"}],
		"Stop": [{"command": "cat >> stop.jsonl; echo >> stop.jsonl"}],
		"SessionEnd": [{"command": "cat >> end.jsonl; echo >> end.jsonl"}],
		"PostToolUse": [{"command": "cat >> post.jsonl; echo >> post.jsonl"}]}}`)
	// Nothing changed yet: the Stop of an agent session still says so, with an empty list.
	h.fire(agentReq(hooks.Stop))
	edit := func(event string, files ...string) *Fired {
		req := agentReq(event)
		req.FilesModified = files
		return h.fire(req)
	}
	edit(hooks.PostToolUse, filepath.Join(h.ws, "src", "a.go"), "b.txt")
	edit(hooks.PostToolUse, filepath.Join(h.ws, "src", "a.go"), "/etc/passwd", filepath.Join(h.ws, "..", "outside"))
	write(t, filepath.Join(h.ws, "deny"), "")
	if out := edit(hooks.PreToolUse, "denied.txt"); !out.Blocked() {
		t.Fatal("the gate did not block")
	}
	h.fire(agentReq(hooks.Stop))
	req := agentReq(hooks.SessionEnd)
	req.EndStatus = sessions.StatusCompleted
	id := h.fire(req).Result.SessionID

	stops := payloads(t, filepath.Join(h.ws, "stop.jsonl"))
	if got := fmt.Sprint(stops[0]["filesModified"], stops[1]["filesModified"]); got != "[] [src/a.go b.txt]" {
		t.Errorf("Stop payloads carry filesModified %s", got)
	}
	if got := fmt.Sprint(payloads(t, filepath.Join(h.ws, "end.jsonl"))[0]["filesModified"]); got != "[src/a.go b.txt]" {
		t.Errorf("SessionEnd payload carries %s", got)
	}
	if _, has := payloads(t, filepath.Join(h.ws, "post.jsonl"))[0]["filesModified"]; has {
		t.Error("PostToolUse carries filesModified")
	}
	s := h.session(id)
	if !slices.Equal(s.FilesModified, []string{"src/a.go", "b.txt"}) || s.Status != sessions.StatusCompleted || s.EndTime.IsZero() {
		t.Errorf("session: files %q, status %s, end %v", s.FilesModified, s.Status, s.EndTime)
	}
	// A session of no agent: Stop carries no filesModified (git-commit commits every change).
	h2 := newHarness(t, `{"hooks": {"Stop": [{"command": "cat >> stop.jsonl; echo >> stop.jsonl"}]}}`)
	h2.fire(Request{Event: hooks.Stop})
	if _, has := payloads(t, filepath.Join(h2.ws, "stop.jsonl"))[0]["filesModified"]; has {
		t.Error("a plain Stop carries filesModified")
	}
}

// TestAgentAuditLinesCarryToolUseID: every hook line of a tool call's event names the call.
func TestAgentAuditLinesCarryToolUseID(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {"PreToolUse": [{"name": "a", "command": "true"}, {"name": "b", "command": "exit 2"}]}}`)
	req := agentReq(hooks.PreToolUse)
	req.ToolUseID = "toolu_01"
	id := h.fire(req).Result.SessionID
	var got []string
	for _, e := range h.trail(id) {
		got = append(got, e.Name+" "+e.ToolUseID)
	}
	if want := []string{"a toolu_01", "b toolu_01"}; !slices.Equal(got, want) {
		t.Errorf("trail %q, want %q", got, want)
	}
}

// TestSubagentStopIsCapped: SubagentStop loops end like Stop loops, with a count of their own.
func TestSubagentStopIsCapped(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"stopBlockLimit": 2, "hooks": {"SubagentStop": [`+stopGate+`], "Stop": [`+stopGate+`]}}`)
	write(t, filepath.Join(h.ws, "block"), "")
	var blocked []bool
	for range 3 {
		blocked = append(blocked, h.fire(agentReq(hooks.SubagentStop)).Blocked())
	}
	if want := []bool{true, true, false}; !slices.Equal(blocked, want) {
		t.Errorf("SubagentStop blocked %v, want %v", blocked, want)
	}
	out := h.fire(agentReq(hooks.Stop))
	if !out.Blocked() || h.session(out.Result.SessionID).StopBlockCount != 1 {
		t.Error("SubagentStop blocks counted as Stop blocks")
	}
	if !strings.Contains(h.stderr.String(), "SubagentStop was blocked 2 times in a row (stopBlockLimit 2): letting this SubagentStop through") {
		t.Errorf("stderr %q", h.stderr.String())
	}
}

// TestRecordAndRefuse: Record and Refuse attach like Fire without reading the configuration (a
// broken one included) and write one audit line each; a refused Stop counts against the cap.
func TestRecordAndRefuse(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {"Stop": [{"command": 1}]}}`)
	req := agentReq(hooks.PreToolUse)
	req.ToolUseID = "toolu_02"
	id, err := h.r.Record(req, sessions.Event{Event: hooks.PreToolUse, Name: "claude", Type: "agent", Status: "answered", Decision: "deny", Reason: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if capped, err := h.r.Refuse(req, "config broken"); err != nil || capped {
		t.Fatalf("refuse: %v, %v", capped, err)
	}
	var capped []bool
	for range defaultStopBlockLimit + 1 {
		c, err := h.r.Refuse(agentReq(hooks.Stop), "config broken")
		if err != nil {
			t.Fatal(err)
		}
		capped = append(capped, c)
	}
	if slices.Index(capped, true) != defaultStopBlockLimit {
		t.Errorf("refused Stops capped: %v", capped)
	}
	trail := h.trail(id)
	got := []string{}
	for _, e := range trail[:2] {
		got = append(got, fmt.Sprintf("%s %s %s %s %s", e.Event, e.Status, e.Decision, e.Reason, e.ToolUseID))
	}
	want := []string{"PreToolUse answered deny r toolu_02", "PreToolUse refused block config broken toolu_02"}
	if !slices.Equal(got, want) {
		t.Errorf("trail %q, want %q", got, want)
	}
	if last := trail[len(trail)-1]; last.Status != "capped" || last.Event != hooks.Stop {
		t.Errorf("last line %+v", last)
	}
}

// TestOnceRecordsInTheSessionItAttached: a Once runner (an agent's hook call) records its answer in
// the session its event was fired in as it attached it, without reading the record a second time:
// a record that changed since (here: damaged) does not move the line elsewhere, while a runner
// that attaches anew reads it, and says so.
func TestOnceRecordsInTheSessionItAttached(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {}}`)
	once := h.r.Once()
	fired, err := once.Fire(context.Background(), agentReq(hooks.PreToolUse))
	if err != nil {
		t.Fatal(err)
	}
	id := fired.Result.SessionID
	if err := os.WriteFile(h.r.Store().Path(id), []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	req := agentReq(hooks.PreToolUse)
	req.SessionID = id
	answer := sessions.Event{Event: hooks.PreToolUse, Name: "claude", Type: "agent", Status: "answered", Decision: "deny", Reason: "r"}
	if got, err := once.Record(req, answer); err != nil || got != id {
		t.Fatalf("Record after Fire: %q, %v; want %s", got, err, id)
	}
	if _, err := h.r.Record(req, answer); err == nil || !strings.Contains(err.Error(), "corrupt session record") {
		t.Errorf("a runner that did not attach the session read its record: %v", err)
	}
	if trail := h.trail(id); len(trail) != 1 || trail[0].Decision != "deny" {
		t.Errorf("trail %+v", trail)
	}
}
