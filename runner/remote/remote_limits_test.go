package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/sessions"
)

// hangGuard turns a hang into a failure. It is no timing: the limits under test are a few
// hundred milliseconds, and what they bound returns long before it.
const hangGuard = 60 * time.Second

// returns runs f and fails the test if f is still running at the hang guard.
func returns[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("%s: still waiting on the remote after %s", what, hangGuard)
		panic("unreachable")
	}
}

// silentRemote listens on 127.0.0.1 and holds every connection it accepts without a byte, until
// the test ends: a remote that takes the connection and never answers.
func silentRemote(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		l.Close()
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				<-done
				c.Close()
			}()
		}
	}()
	return l.Addr().String()
}

// addRemote adds a remote to the workspace's repository.
func (rh *remoteHarness) addRemote(name, url string) { rh.gitRemote("add", name, url) }

// setRemoteURL points a remote of the workspace's repository elsewhere.
func (rh *remoteHarness) setRemoteURL(name, url string) { rh.gitRemote("set-url", name, url) }

func (rh *remoteHarness) gitRemote(args ...string) {
	rh.t.Helper()
	cmd := exec.Command("git", append([]string{"remote"}, args...)...)
	cmd.Dir, cmd.Env = rh.ws, []string{"HOME=" + rh.t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
	if b, err := cmd.CombinedOutput(); err != nil {
		rh.t.Fatalf("git remote %v: %v\n%s", args, err, b)
	}
}

// TestPushAtEndGivesUpAndIsPushedLater: "sessions.push" to a remote that accepts the connection
// and never answers ends the session anyway, at a limit (the idle limit, or sessions.pushTimeout
// for the whole push), with a warning naming it; the session is marked to push, and the next
// session end in the workspace, once the remote answers, pushes it with its own.
func TestPushAtEndGivesUpAndIsPushedLater(t *testing.T) {
	t.Parallel()
	rh := newRemoteHarness(t)
	rh.addRemote("silent", "git://"+silentRemote(t)+"/sessions.git")
	store := rh.r.Store()
	var left []string
	for _, tc := range []struct{ config, limit string }{
		{`{"sessions": {"push": true, "remote": "silent", "connectTimeout": "200ms", "idleTimeout": "200ms"}}`, "sessions.idleTimeout"},
		{`{"sessions": {"push": true, "remote": "silent", "pushTimeout": "200ms"}}`, "sessions.pushTimeout"},
	} {
		rh.writeConfig(rh.ws, tc.config)
		s := rh.start()
		before := len(rh.stderr.String())
		out := returns(t, tc.limit, func() *runner.Fired {
			return rh.end(runner.EndRequest{SessionID: s.ID, Status: sessions.StatusCompleted})
		})
		if out.Session.Status != sessions.StatusCompleted {
			t.Errorf("%s: the session is %s, want completed: it ended", tc.limit, out.Session.Status)
		}
		warning := rh.stderr.String()[before:]
		if !strings.Contains(warning, "session "+s.ID+" was not pushed") || !strings.Contains(warning, tc.limit) || !strings.Contains(warning, "session push --pending") {
			t.Errorf("%s: the warning is %q", tc.limit, warning)
		}
		p, err := store.PushPending(s.ID)
		if err != nil || p == nil || p.Remote != "silent" || p.Workspace != rh.ws || !strings.Contains(p.Error, tc.limit) {
			t.Fatalf("%s: pending push = %+v, %v", tc.limit, p, err)
		}
		left = append(left, s.ID)
	}

	// The remote answers again: the next session end pushes its session and those left.
	rh.setRemoteURL("silent", rh.bare)
	rh.writeConfig(rh.ws, `{"sessions": {"push": true, "remote": "silent"}}`)
	s := rh.start()
	rh.end(runner.EndRequest{SessionID: s.ID, Status: sessions.StatusCompleted})
	for _, id := range append(left, s.ID) {
		if p, err := store.PushPending(id); p != nil || err != nil {
			t.Errorf("%s is still pending: %+v, %v", id, p, err)
		}
		rs, err := Lookup(context.Background(), rh.r, id, Request{Remote: "local"})
		if err != nil {
			t.Errorf("%s was not pushed: %v", id, err)
			continue
		}
		if rs.Status != sessions.StatusCompleted {
			t.Errorf("%s was pushed %s, want completed", id, rs.Status)
		}
	}
	if !strings.Contains(rh.stderr.String(), "pushed session "+left[0]+", left to push earlier") {
		t.Errorf("the push of the sessions left is not reported: %q", rh.stderr.String())
	}
}

// TestPushPending: `session push --pending` pushes the sessions left to push, each to the remote
// it was for, and clears their marks; a push that fails again keeps its mark with the new error.
func TestPushPending(t *testing.T) {
	t.Parallel()
	rh := newRemoteHarness(t)
	rh.addRemote("silent", "git://"+silentRemote(t)+"/sessions.git")
	rh.writeConfig(rh.ws, `{"sessions": {"push": true, "remote": "silent", "connectTimeout": "200ms", "idleTimeout": "200ms"}}`)
	s := rh.start()
	returns(t, "end", func() *runner.Fired {
		return rh.end(runner.EndRequest{SessionID: s.ID, Status: sessions.StatusFailed})
	})

	// Still silent: the mark stays.
	res := returns(t, "push --pending", func() []PendingResult {
		res, _, _ := PushPending(context.Background(), rh.r, Request{})
		return res
	})
	if len(res) != 1 || res[0].ID != s.ID || res[0].Err == nil || res[0].Result != nil {
		t.Fatalf("push --pending to a silent remote: %+v", res)
	}
	if p, _ := rh.r.Store().PushPending(s.ID); p == nil {
		t.Fatal("the mark of a push that failed again is gone")
	}

	rh.setRemoteURL("silent", rh.bare)
	res, problems, err := PushPending(context.Background(), rh.r, Request{})
	if err != nil || len(problems) != 0 || len(res) != 1 || res[0].Err != nil || res[0].Result == nil {
		t.Fatalf("push --pending: %+v, %v, %v", res, problems, err)
	}
	if p, _ := rh.r.Store().PushPending(s.ID); p != nil {
		t.Errorf("pushed, and still marked: %+v", p)
	}
	rs, err := Lookup(context.Background(), rh.r, s.ID, Request{Remote: "local"})
	if err != nil || rs.Status != sessions.StatusFailed {
		t.Fatalf("read back: %+v, %v", rs, err)
	}
	// Nothing is left to push.
	if res, _, _ := PushPending(context.Background(), rh.r, Request{}); len(res) != 0 {
		t.Errorf("push --pending again pushed %+v", res)
	}
}

// TestSessionsConfigLimits: the limits of "sessions" are durations (milliseconds or a duration
// string), positive, the project's over the user's; an error names the file, the key and why.
func TestSessionsConfigLimits(t *testing.T) {
	t.Parallel()
	cfg := func(sections ...string) *hooks.Config {
		c := &hooks.Config{Sections: map[string][]hooks.Section{}}
		for i, v := range sections {
			c.Sections["sessions"] = append(c.Sections["sessions"], hooks.Section{Key: "sessions", Value: json.RawMessage(v), File: fmt.Sprintf("f%d.json", i), Line: 1, Col: 14})
		}
		return c
	}
	for _, tc := range []struct {
		sections []string
		want     gitops.Limits
		push     time.Duration
		err      string
	}{
		{sections: nil, push: hooks.DefaultSessionPushTimeout},
		{sections: []string{`{"connectTimeout": 1500, "idleTimeout": "2s", "pushTimeout": "1m"}`},
			want: gitops.Limits{Connect: 1500 * time.Millisecond, Idle: 2 * time.Second}, push: time.Minute},
		// project (first) over user
		{sections: []string{`{"idleTimeout": "5s"}`, `{"idleTimeout": "9s", "connectTimeout": "3s"}`},
			want: gitops.Limits{Connect: 3 * time.Second, Idle: 5 * time.Second}, push: hooks.DefaultSessionPushTimeout},
		{sections: []string{`{"pushTimeout": 0}`}, err: "sessions.pushTimeout: must be positive"},
		{sections: []string{`{"idleTimeout": "soon"}`}, err: `f0.json:1:14: sessions: idleTimeout: want milliseconds or a duration such as "30s", got "soon"`},
		{sections: []string{`{"connectTimout": "1s"}`}, err: "connectTimout"},
	} {
		sc, err := runner.ReadSessionsConfig(cfg(tc.sections...))
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: err = %v, want %q", tc.sections, err, tc.err)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.sections, err)
		case limits(sc) != tc.want || pushTimeout(sc) != tc.push:
			t.Errorf("%v: limits %+v push %v, want %+v and %v", tc.sections, limits(sc), pushTimeout(sc), tc.want, tc.push)
		}
	}
}
