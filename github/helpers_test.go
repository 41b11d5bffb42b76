package github

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/github/githubtest"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/httpx"
)

const (
	testToken = "ghs_test_token_do_not_print"
	headSHA   = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
	prNumber  = 12
)

// newServer starts a fake GitHub for octo/hello with pull request 12. login is the token's user
// ("" answers GET /user with 403, like GITHUB_TOKEN in Actions).
func newServer(t *testing.T, login string) *githubtest.Server {
	t.Helper()
	s := githubtest.New("octo", "hello", testToken, login)
	t.Cleanup(s.Close)
	s.AddPR(prNumber, headSHA)
	s.SetPermission("alice", "write")
	s.SetPermission("bob", "admin")
	s.SetPermission("carol", "maintain")
	s.SetPermission("mallory", "read")
	return s
}

// sleeper records every wait and sleeps for real only for short ones, so that rate-limit
// back-offs of seconds are checked without waiting them out.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
	after func(n int) // called after each wait with its 1-based number
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	n := len(s.waits)
	s.mu.Unlock()
	if d <= 1100*time.Millisecond {
		if err := httpx.Sleep(ctx, d); err != nil {
			return err
		}
	}
	if s.after != nil {
		s.after(n)
	}
	return ctx.Err()
}

func (s *sleeper) recorded() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

type env map[string]string

func (e env) get(k string) string { return e[k] }

// serverEnv is the environment of a workflow run against s.
func serverEnv(s *githubtest.Server) env {
	return env{"GITHUB_TOKEN": testToken, "GITHUB_API_URL": s.URL, "GITHUB_REPOSITORY": "octo/hello"}
}

// invocation builds what the engine hands a built-in hook.
func invocation(e env, event string, timeout time.Duration, payload hooks.Payload) (*hooks.Invocation, *bytes.Buffer) {
	var stderr bytes.Buffer
	if payload == nil {
		payload = hooks.Payload{"prNumber": prNumber}
	}
	h := &hooks.Hook{Name: "plan approval", Type: "approval", Event: event, Timeout: timeout, Enabled: true}
	return &hooks.Invocation{
		Hook: h, Event: event, Payload: payload, Workspace: "/nonexistent", SessionID: "session-1-abcdef",
		Getenv: e.get, Stdout: &bytes.Buffer{}, Stderr: &stderr,
	}, &stderr
}

func configureApproval(t *testing.T, o Options, options string) hooks.Task {
	t.Helper()
	r, err := ApprovalProvider{Options: o}.Configure(&hooks.Hook{Name: "plan approval"}, json.RawMessage(options))
	if err != nil {
		t.Fatalf("configure %s: %v", options, err)
	}
	return r
}
