package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/sessions"
)

// TestAttachRules: a run attaches to Request.SessionID, else $AUTOAGENT_SESSION_ID, else the
// active session of its workspace, else starts one (SPEC.md section 7).
func TestAttachRules(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {}}`)
	other := filepath.Join(filepath.Dir(h.ws), "other")
	h.writeConfig(other, `{"hooks": {}}`)

	// No session yet: the run starts one and makes it current.
	first := h.fire(Request{Event: "PostExecutionStart"}).Result.SessionID
	if !sessions.ValidID(first) || h.current() != first {
		t.Fatalf("first run: session %q, current %q", first, h.current())
	}
	if s := h.session(first); s.Command != "agent-hooks" || !slices.Equal(s.Args, []string{"run"}) || s.Workspace != h.ws || !s.Active() {
		t.Errorf("new session: command %q %v, workspace %q, status %s", s.Command, s.Args, s.Workspace, s.Status)
	}
	// The next run in the same workspace attaches to it.
	if got := h.fire(Request{Event: "PostExecutionStart"}).Result.SessionID; got != first {
		t.Errorf("second run attached to %s, want %s", got, first)
	}
	// Another workspace gets a session of its own, which becomes current ...
	second := h.fire(Request{Event: "PostExecutionStart", Workspace: "../other"}).Result.SessionID
	if second == first || h.current() != second || h.session(second).Workspace != other {
		t.Fatalf("other workspace: session %s (first %s), current %s", second, first, h.current())
	}
	// ... and this workspace still finds its own active session.
	if got := h.fire(Request{Event: "PostExecutionStart"}).Result.SessionID; got != first {
		t.Errorf("back in the workspace: attached to %s, want %s", got, first)
	}
	// An ended session is not attached to: the next run starts a new one.
	if _, err := h.r.Store().Update(first, func(s *sessions.Session) error { s.End(sessions.StatusCompleted, h.clock.Now()); return nil }); err != nil {
		t.Fatal(err)
	}
	third := h.fire(Request{Event: "PostExecutionStart"}).Result.SessionID
	if third == first || third == second {
		t.Errorf("after the end: attached to %s", third)
	}
	statuses := map[sessions.Status]int{}
	for _, id := range h.sessionIDs() {
		statuses[h.session(id).Status]++
	}
	if statuses[sessions.StatusActive] != 2 || statuses[sessions.StatusCompleted] != 1 || len(statuses) != 2 {
		t.Errorf("sessions by status: %v, want 2 active and 1 completed", statuses)
	}

	// A named session without a record is created under that id, then attached to.
	named := "session-1700000000000-abcdef"
	for range 2 {
		if got := h.fire(Request{Event: "PostExecutionStart", SessionID: named}).Result.SessionID; got != named {
			t.Errorf("--session: attached to %s", got)
		}
	}
	if s := h.session(named); s.Workspace != h.ws || s.Command != "agent-hooks" {
		t.Errorf("named session: %+v", s)
	}
	// $AUTOAGENT_SESSION_ID when there is no SessionID; SessionID wins over it.
	// (third, not the current named one: created sessions become current)
	h.env["AUTOAGENT_SESSION_ID"] = third
	if got := h.fire(Request{Event: "PostExecutionStart"}).Result.SessionID; got != third {
		t.Errorf("$AUTOAGENT_SESSION_ID: attached to %s, want %s", got, third)
	}
	if got := h.fire(Request{Event: "PostExecutionStart", SessionID: "session-1700000000001-zzzzzz"}).Result.SessionID; got != "session-1700000000001-zzzzzz" {
		t.Errorf("SessionID over $AUTOAGENT_SESSION_ID: attached to %s", got)
	}
}

// TestAttachRefusesAnInvalidIDBeforeAnyHookRuns: an id that is not a session id could name a path
// outside the sessions folder.
func TestAttachRefusesAnInvalidIDBeforeAnyHookRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {"PostExecutionStart": [{"command": "touch ran"}]}}`)
	for _, id := range []string{"../../etc/passwd", "session-1-ABC"} {
		for _, viaEnv := range []bool{false, true} {
			req := Request{Event: "PostExecutionStart", SessionID: id}
			if viaEnv {
				req.SessionID, h.env["AUTOAGENT_SESSION_ID"] = "", id
			}
			out, err := h.r.Fire(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), `invalid id "`+id+`"`) || out != nil {
				t.Errorf("id %q (env %v): %v, %v", id, viaEnv, out, err)
			}
		}
	}
	if exists(filepath.Join(h.ws, "ran")) {
		t.Error("a hook ran")
	}
	if ids := h.sessionIDs(); len(ids) != 0 {
		t.Errorf("sessions were created: %v", ids)
	}
}

// TestFireFailsBeforeAttaching: a configuration that cannot be used, or an unknown event, fails
// the run before any session is created or hook runs; every problem is reported.
func TestFireFailsBeforeAttaching(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {"Stop": [{"command": 1}, {"type": "nope"}]}}`)
	_, err := h.r.Fire(context.Background(), Request{Event: "Stop"})
	if err == nil || !strings.Contains(err.Error(), "config.json:") {
		t.Fatalf("bad config: %v", err)
	}
	if !strings.Contains(h.stderr.String(), "agent-hooks: ") || !strings.Contains(err.Error(), "(and 1 more)") {
		t.Errorf("the second problem is not reported: err %v, stderr %q", err, h.stderr.String())
	}

	h.writeConfig(h.ws, `{"hooks": {}}`)
	if _, err := h.r.Fire(context.Background(), Request{Event: "NoSuchEvent"}); err == nil || !strings.Contains(err.Error(), "NoSuchEvent") {
		t.Errorf("unknown event: %v", err)
	}
	if ids := h.sessionIDs(); len(ids) != 0 {
		t.Errorf("sessions were created: %v", ids)
	}
}

func TestFindWorkspace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo := mk("repo")
	mk("repo/.git")
	deep := mk("repo/src/pkg")
	proj := mk("repo/sub")
	mk("repo/sub/.autoagent")
	subdeep := mk("repo/sub/x")
	bare := mk("bare/dir")
	write(t, filepath.Join(root, "file"), "")
	ghws := map[string]string{"GITHUB_WORKSPACE": proj}
	tests := []struct {
		name, flag, cwd string
		env             map[string]string
		want, err       string
	}{
		{name: "nearest .git", cwd: deep, want: repo},
		{name: "nearest .autoagent wins over an outer .git", cwd: subdeep, want: proj},
		{name: "no marker: the working directory", cwd: bare, want: bare},
		{name: "relative flag", flag: "../..", cwd: deep, want: repo},
		{name: "absolute flag", flag: bare, cwd: deep, want: bare},
		{name: "GITHUB_WORKSPACE", cwd: bare, env: ghws, want: proj},
		{name: "the flag wins over GITHUB_WORKSPACE", flag: repo, cwd: bare, env: ghws, want: repo},
		{name: "missing", flag: "nope", cwd: root, err: "workspace: "},
		{name: "not a directory", flag: "file", cwd: root, err: "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FindWorkspace(tt.flag, tt.cwd, func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("got %q, %v; want an error with %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestFireStreamsOrCapturesStdout: the hooks' stdout goes to Stdout live unless the request
// captures it (for --json); it is in the result either way.
func TestFireStreamsOrCapturesStdout(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `{"hooks": {"PostIteration": [{"command": "echo out; echo err >&2"}]}}`)
	out := h.fire(Request{Event: "PostIteration"})
	if !out.Streamed || h.stdout.String() != "out\n" || h.stderr.String() != "err\n" {
		t.Errorf("streamed: %v, stdout %q, stderr %q", out.Streamed, h.stdout.String(), h.stderr.String())
	}
	out = h.fire(Request{Event: "PostIteration", CaptureStdout: true})
	if out.Streamed || h.stdout.String() != "out\n" || out.Result.Hooks[0].Stdout != "out\n" {
		t.Errorf("captured: %v, stdout %q, result %q", out.Streamed, h.stdout.String(), out.Result.Hooks[0].Stdout)
	}
}
