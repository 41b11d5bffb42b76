package seedfmt_test

import (
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
	"github.com/autoagent/agent-hooks/sessions"
)

func TestMapping(t *testing.T) {
	t.Parallel()
	// --data values arrive as strings or JSON numbers; both read the same.
	p := hooks.Payload{"iteration": 2.0, "maxIterations": "5", "mode": "building", "taskId": "T-1", "error": "boom", "duration": 1500}
	fresher := seedfmt.FresherEnv(p, "/ws")
	for _, want := range []string{"FRESHER_PROJECT_DIR=/ws", "FRESHER_ITERATION=2", "FRESHER_MAX_ITERATIONS=5", "FRESHER_MODE=building",
		"FRESHER_DURATION=1", "FRESHER_TOTAL_ITERATIONS=2", "FRESHER_TOTAL_COMMITS=0", "FRESHER_LAST_EXIT_CODE=0", "FRESHER_LOG_DIR=" + filepath.Join("/ws", ".fresher", "logs")} {
		if !slices.Contains(fresher, want) {
			t.Errorf("fresher env lacks %s: %v", want, fresher)
		}
	}
	loop := seedfmt.LoopEnv(p, "s-1")
	for _, want := range []string{"LOOP_SESSION=s-1", "SESSION=s-1", "LOOP_ITERATION=2", "ITERATION=2", "LOOP_MAX_ITERATIONS=5", "LOOP_ERROR=boom", "ERROR=boom", "LOOP_DURATION=1.5"} {
		if !slices.Contains(loop, want) {
			t.Errorf("loop env lacks %s: %v", want, loop)
		}
	}
	for _, absent := range []string{"LOOP_STATUS", "LOOP_TYPE", "FRESHER_FINISH_TYPE"} {
		for _, kv := range append(loop, fresher...) {
			if len(kv) > len(absent) && kv[:len(absent)+1] == absent+"=" {
				t.Errorf("%s set without a payload value: %s", absent, kv)
			}
		}
	}
	got := seedfmt.IteratrVars(p, "s-1")
	want := hooks.Payload{"session": "s-1", "iteration": "2", "error": "boom", "task_id": "T-1", "task_content": ""}
	if len(got) != len(want) {
		t.Errorf("iteratr vars %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("{{%s}} = %v, want %v", k, got[k], v)
		}
	}
}

func TestFallbackKeys(t *testing.T) {
	t.Parallel()
	env := seedfmt.FresherEnv(hooks.Payload{"totalIterations": 9, "iteration": 4, "commitsMade": 2, "logDir": "/logs"}, "/ws")
	for _, want := range []string{"FRESHER_TOTAL_ITERATIONS=9", "FRESHER_TOTAL_COMMITS=2", "FRESHER_LOG_DIR=/logs"} {
		if !slices.Contains(env, want) {
			t.Errorf("env lacks %s: %v", want, env)
		}
	}
	if slices.Contains(env, "FRESHER_LOG_DIR="+filepath.Join("/ws", ".fresher", "logs")) {
		t.Error("the default log dir overrides the payload's")
	}
}

// The typed helper over the sessions store: what the seed formats' extensions use.
func TestUpdateStateConcurrent(t *testing.T) {
	t.Parallel()
	state := sessions.New(t.TempDir()).SessionState("session-1-abc123")
	type counter struct{ N int }
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := seedfmt.UpdateState(state, "count", func(c *counter) (bool, error) {
				c.N++
				return true, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var got int
	if err := seedfmt.UpdateState(state, "count", func(c *counter) (bool, error) { got = c.N; return false, nil }); err != nil {
		t.Fatal(err)
	}
	if got != 40 {
		t.Errorf("40 concurrent increments left %d", got)
	}
}

func TestUpdateStateErrors(t *testing.T) {
	t.Parallel()
	store := sessions.New(t.TempDir())
	for _, id := range []string{"", "../escape", "a/b", ".hidden"} {
		if err := seedfmt.UpdateState(store.SessionState(id), "x", func(*struct{}) (bool, error) { return true, nil }); err == nil {
			t.Errorf("session id %q accepted", id)
		}
	}
	if err := seedfmt.UpdateState(nil, "x", func(*struct{}) (bool, error) { return true, nil }); err == nil {
		t.Error("a nil state accepted")
	}
	boom := errors.New("boom")
	err := seedfmt.UpdateState(store.SessionState("session-1-abc123"), "x", func(*struct{}) (bool, error) { return true, boom })
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want fn's error", err)
	}
}

func TestYAMLError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		line int
	}{
		{"a: b: c\n", 1},
		{"hooks:\n  x: \"abc\n", 2}, // where the unterminated string begins
		{"hooks:\n  on_error: [unclosed\n", 2},
		{"a:\n  b: 1\n c: 2\n", 3},
	}
	for _, tt := range tests {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(tt.src), &n)
		if err == nil {
			t.Fatalf("%q parsed", tt.src)
		}
		d := seedfmt.YAMLError("f.yml", err)
		if d.Line != tt.line || d.Severity != hooks.SeverityError {
			t.Errorf("%q: %s, want line %d", tt.src, d, tt.line)
		}
	}
}

// duration is milliseconds in the native protocol (session end sends it so) and seconds in the
// seeds' variables; durationSeconds, for callers that count in seconds, wins.
func TestDurationIsMillisecondsUnlessGivenInSeconds(t *testing.T) {
	for _, tc := range []struct {
		p    hooks.Payload
		want string
	}{
		{hooks.Payload{"duration": 90000}, "LOOP_DURATION=90"},
		{hooks.Payload{"duration": 1500}, "LOOP_DURATION=1.5"},
		{hooks.Payload{"duration": 90000, "durationSeconds": 7}, "LOOP_DURATION=7"},
		{hooks.Payload{"duration": "soon"}, "LOOP_DURATION=soon"},
	} {
		env := seedfmt.LoopEnv(tc.p, "s-1")
		found := false
		for _, kv := range env {
			found = found || kv == tc.want
		}
		if !found {
			t.Errorf("%v: env %v lacks %s", tc.p, env, tc.want)
		}
	}
}

// The loop's session name is the payload's sessionName; an empty or absent one is the id.
func TestSessionName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    hooks.Payload
		want string
	}{
		{hooks.Payload{"sessionName": "auth"}, "auth"},
		{hooks.Payload{"sessionName": ""}, "s-1"},
		{hooks.Payload{"sessionName": nil}, "s-1"},
		{hooks.Payload{}, "s-1"},
	} {
		if got := seedfmt.SessionName(tc.p, "s-1"); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
