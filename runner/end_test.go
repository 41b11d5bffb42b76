package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/sessions"
)

func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// endConfig records every Stop and SessionEnd payload (stop.jsonl, end.jsonl); Stop blocks while
// the workspace has a file named block.
const endConfig = `{"hooks": {"Stop": [` + stopGate + `], "SessionEnd": [{"command": "cat >> end.jsonl; echo >> end.jsonl"}]}}`

func (h *harness) start() *sessions.Session {
	h.t.Helper()
	s, err := h.r.Start(StartRequest{Command: "agent", Args: []string{"--all"}, Provider: "claude"})
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func (h *harness) end(req EndRequest) *Fired {
	h.t.Helper()
	out, err := h.r.EndSession(context.Background(), req)
	if err != nil {
		h.t.Fatalf("end session: %v", err)
	}
	return out
}

// TestEndSession: Stop fires with the session's figures; a block keeps the session active and
// SessionEnd unfired; otherwise SessionEnd fires and the record gets its status and end.
func TestEndSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, endConfig)
	s := h.start()
	if s.Command != "agent" || !slices.Equal(s.Args, []string{"--all"}) || s.Provider != "claude" || h.current() != s.ID {
		t.Fatalf("started %+v", s)
	}
	h.fire(Request{Event: hooks.PreExecutionStart, Data: hooks.Payload{"issueNumber": 9}})

	write(t, filepath.Join(h.ws, "block"), "")
	out := h.end(EndRequest{Status: sessions.StatusCompleted})
	if !out.Blocked() || out.Stop == nil || out.SessionEnd != nil || out.Result.Reason != "not yet" || out.Session.ID != s.ID {
		t.Fatalf("blocked end: %+v", out)
	}
	if got := h.session(s.ID); !got.Active() || got.StopBlockCount != 1 || exists(filepath.Join(h.ws, "end.jsonl")) {
		t.Fatalf("after a blocked Stop: status %s, stopBlockCount %d, SessionEnd fired %v", got.Status, got.StopBlockCount, exists(filepath.Join(h.ws, "end.jsonl")))
	}

	if err := removeFile(filepath.Join(h.ws, "block")); err != nil {
		t.Fatal(err)
	}
	out = h.end(EndRequest{Status: sessions.StatusInterrupted, CaptureStdout: true})
	if out.Blocked() || out.Stop.Event != hooks.Stop || out.SessionEnd.Event != hooks.SessionEnd || out.Streamed {
		t.Fatalf("end: %+v", out)
	}
	final := h.session(s.ID)
	if final.Status != sessions.StatusInterrupted || final.EndTime.IsZero() || final.StopBlockCount != 0 ||
		final.Metadata.TotalDuration != final.EndTime.Sub(final.StartTime).Milliseconds() {
		t.Errorf("ended record: %+v", final)
	}
	if out.Session.Status != sessions.StatusInterrupted {
		t.Errorf("the outcome's session is %s", out.Session.Status)
	}
	stops := payloads(t, filepath.Join(h.ws, "stop.jsonl"))
	ends := payloads(t, filepath.Join(h.ws, "end.jsonl"))
	if len(stops) != 2 || len(ends) != 1 {
		t.Fatalf("%d Stop and %d SessionEnd payloads, want 2 and 1", len(stops), len(ends))
	}
	for _, p := range []map[string]any{stops[1], ends[0]} {
		for k, want := range map[string]any{"reason": "interrupted", "status": "interrupted", "issuesCompleted": 0.0, "issuesFailed": 0.0, "issuesTotal": 1.0} {
			if p[k] != want {
				t.Errorf("%s payload: %s = %v, want %v", p["eventName"], k, p[k], want)
			}
		}
		if d, ok := p["duration"].(float64); !ok || d <= 0 {
			t.Errorf("%s payload: duration %v", p["eventName"], p["duration"])
		}
	}
	if stops[1]["stopHookActive"] != true || stops[1]["stopBlockCount"] != 1.0 {
		t.Errorf("the second Stop was not told of the first block: %v", stops[1])
	}

	// An ended session cannot end again.
	_, err := h.r.EndSession(context.Background(), EndRequest{SessionID: s.ID, Status: sessions.StatusCompleted})
	if err == nil || !strings.Contains(err.Error(), "is already interrupted") {
		t.Errorf("ending again: %v", err)
	}
	// Without an id there is now no active session in the workspace.
	if _, err := h.r.EndSession(context.Background(), EndRequest{Status: sessions.StatusCompleted}); err == nil || !strings.Contains(err.Error(), "no active session in "+h.ws) {
		t.Errorf("ending without a session: %v", err)
	}
	if _, err := h.r.EndSession(context.Background(), EndRequest{Status: sessions.StatusActive}); err == nil || !strings.Contains(err.Error(), "cannot end as active") {
		t.Errorf("ending as active: %v", err)
	}
}

// TestEndSessionFailedIsStopReasonError: the seed's Stop reasons are completed, interrupted and
// error.
func TestEndSessionFailedIsStopReasonError(t *testing.T) {
	t.Parallel()
	h := newHarness(t, endConfig)
	s := h.start()
	h.end(EndRequest{SessionID: s.ID, Status: sessions.StatusFailed})
	p := payloads(t, filepath.Join(h.ws, "stop.jsonl"))[0]
	if p["reason"] != "error" || p["status"] != "failed" {
		t.Errorf("Stop payload: reason %v status %v", p["reason"], p["status"])
	}
	if got := h.session(s.ID).Status; got != sessions.StatusFailed {
		t.Errorf("status %s", got)
	}
}

// TestEndSessionOfThisWorkspace: without an id, the active session of this workspace ends, even
// when the current one is another workspace's; $AUTOAGENT_SESSION_ID names one.
func TestEndSessionOfThisWorkspace(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {}}`)
	mine := h.start()
	other := filepath.Join(filepath.Dir(h.ws), "other")
	h.writeConfig(other, `{"hooks": {}}`)
	theirs, err := h.r.Start(StartRequest{Workspace: other, Command: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	h.end(EndRequest{Status: sessions.StatusCompleted})
	if h.session(mine.ID).Status != sessions.StatusCompleted || !h.session(theirs.ID).Active() || h.current() != theirs.ID {
		t.Errorf("ended the wrong session: mine %s, theirs %s, current %s (theirs %s)", h.session(mine.ID).Status, h.session(theirs.ID).Status, h.current(), theirs.ID)
	}
	h.env["AUTOAGENT_SESSION_ID"] = theirs.ID
	h.end(EndRequest{Status: sessions.StatusCompleted})
	if h.session(theirs.ID).Active() {
		t.Error("$AUTOAGENT_SESSION_ID's session is still active")
	}
}

// TestEndSessionWorkspaceGone: the hooks of a session whose workspace was removed are those of
// the working directory's workspace, with a warning.
func TestEndSessionWorkspaceGone(t *testing.T) {
	t.Parallel()
	h := newHarness(t, endConfig)
	gone := filepath.Join(filepath.Dir(h.ws), "gone")
	h.writeConfig(gone, `{"hooks": {}}`)
	s, err := h.r.Start(StartRequest{Workspace: gone, Command: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	h.end(EndRequest{SessionID: s.ID, Status: sessions.StatusCompleted})
	if !strings.Contains(h.stderr.String(), "agent-hooks: warning: session workspace "+gone+" is gone; running the hooks of the current directory's workspace") {
		t.Errorf("no warning: %q", h.stderr.String())
	}
	if !exists(filepath.Join(h.ws, "end.jsonl")) || h.session(s.ID).Active() {
		t.Error("the working directory's hooks did not run, or the session did not end")
	}
}

// TestResume: an interrupted session becomes active and current again and loses its end; a
// completed one, or one that does not exist, cannot be resumed.
func TestResume(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {}}`)
	s := h.start()
	h.end(EndRequest{Status: sessions.StatusInterrupted})
	// An interrupted session is not attached to.
	other := h.fire(Request{Event: hooks.PostExecutionStart}).Result.SessionID
	if other == s.ID || h.current() != other {
		t.Fatalf("a run attached to the interrupted session")
	}
	got, err := h.r.Resume(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec := h.session(s.ID); !rec.Active() || !rec.EndTime.IsZero() || rec.Metadata.TotalDuration != 0 || got.ID != s.ID || h.current() != s.ID {
		t.Errorf("resumed: %+v, current %s", rec, h.current())
	}
	if id := h.fire(Request{Event: hooks.PostExecutionStart}).Result.SessionID; id != s.ID {
		t.Errorf("a run after resume attached to %s", id)
	}
	h.end(EndRequest{Status: sessions.StatusCompleted})
	if _, err := h.r.Resume(s.ID); err == nil || !strings.Contains(err.Error(), "is completed; only an interrupted session can be resumed") {
		t.Errorf("resuming a completed session: %v", err)
	}
	if _, err := h.r.Resume("session-1-nothere"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("resuming a missing session: %v", err)
	}
}

// TestLookup: an id, else $AUTOAGENT_SESSION_ID, else the current session.
func TestLookup(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {}}`)
	if _, err := h.r.Lookup(""); err == nil || !strings.Contains(err.Error(), "no current session") {
		t.Errorf("no session: %v", err)
	}
	a := h.start()
	b := h.start()
	for _, tt := range []struct{ id, env, want string }{{"", "", b.ID}, {a.ID, "", a.ID}, {"", a.ID, a.ID}, {b.ID, a.ID, b.ID}} {
		h.env["AUTOAGENT_SESSION_ID"] = tt.env
		if s, err := h.r.Lookup(tt.id); err != nil || s.ID != tt.want {
			t.Errorf("Lookup(%q) with env %q: %v, %v; want %s", tt.id, tt.env, s, err, tt.want)
		}
	}
}

// TestStartRecordsGit: a new session records the branch and commit checked out in its workspace.
func TestStartRecordsGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	h := newHarness(t, `{"hooks": {}}`)
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = h.ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
		return strings.TrimSpace(string(b))
	}
	git("init", "-q", "-b", "work")
	git("add", "-A")
	git("commit", "-q", "-m", "initial")
	s := h.start()
	if s.Metadata.GitBranch != "work" || s.Metadata.GitCommit != git("rev-parse", "HEAD") {
		t.Errorf("git: %q %q", s.Metadata.GitBranch, s.Metadata.GitCommit)
	}
}

// TestOutcome: what a caller prints for a block or a skip.
func TestOutcome(t *testing.T) {
	t.Parallel()
	blocked := &hooks.Result{Event: "Stop", Decision: hooks.DecisionBlock, Blocked: true, Reason: "not yet",
		Hooks: []hooks.HookResult{{Status: hooks.StatusBlocked, Stderr: "not yet\n"}}}
	tests := []struct {
		name     string
		res      *hooks.Result
		blocked  bool
		skipped  bool
		message  string
		streamed bool
	}{
		{"reason is the hook's stderr", blocked, true, false, "not yet", true},
		{"reason is not the stderr", &hooks.Result{Event: "Stop", Blocked: true, Decision: hooks.DecisionBlock, Reason: "json",
			Hooks: []hooks.HookResult{{Status: hooks.StatusBlocked, Stderr: "other"}}}, true, false, "json", false},
		{"feedback", &hooks.Result{Event: "Stop", Blocked: true, Decision: hooks.DecisionBlock, Reason: "not yet", Feedback: "run the tests",
			Hooks: blocked.Hooks}, true, false, "not yet\nrun the tests", false},
		{"no reason", &hooks.Result{Event: "PreIteration", Decision: hooks.DecisionSkip}, false, true, "PreIteration skip", false},
	}
	for _, tt := range tests {
		o := &Fired{Result: tt.res}
		if o.Blocked() != tt.blocked || o.Skipped() != tt.skipped || o.Message() != tt.message || o.ReasonStreamed() != tt.streamed {
			t.Errorf("%s: blocked %v skipped %v message %q streamed %v", tt.name, o.Blocked(), o.Skipped(), o.Message(), o.ReasonStreamed())
		}
	}
	if (&Fired{}).Blocked() || (&Fired{}).Skipped() || (&Fired{}).ReasonStreamed() {
		t.Error("an outcome without a result blocks or skips")
	}
}
