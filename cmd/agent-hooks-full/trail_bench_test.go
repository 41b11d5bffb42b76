package main

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/autoagent/agent-hooks/sessions"
)

// benchTrail is the trail of $AGENT_HOOKS_BENCH_TRAIL (bench/trail.sh makes one of a million
// lines), else of 20,000 lines written here.
func benchTrail(b *testing.B) (trailSource, *sessions.Session) {
	b.Helper()
	path := os.Getenv("AGENT_HOOKS_BENCH_TRAIL")
	var data []byte
	if path == "" {
		s := sessions.New(b.TempDir())
		sess, err := s.Create(sessions.Params{Workspace: "/w"})
		if err != nil {
			b.Fatal(err)
		}
		batch := make([]sessions.Event, 1000)
		for i := range batch {
			batch[i] = sessions.Event{Event: "PreToolUse", Name: "lint", Type: "command", Source: "project", Status: "blocked", ExitCode: 2, Decision: "block", Reason: "2 lint errors"}
		}
		for range 20 {
			if err := s.Append(sess.ID, batch...); err != nil {
				b.Fatal(err)
			}
		}
		path = s.EventsPath(sess.ID)
		if sess, err = s.Update(sess.ID, func(*sessions.Session) error { return nil }); err != nil {
			b.Fatal(err)
		}
		data, _ = os.ReadFile(path)
		return trailSource{name: path, open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}, sess
	}
	return trailSource{name: path, open: func() (io.ReadCloser, error) { return os.Open(path) }}, &sessions.Session{ID: "session-1735689600000-bench1"}
}

func BenchmarkPrintTrail(b *testing.B) {
	src, _ := benchTrail(b)
	for b.Loop() {
		if err := printTrail(io.Discard, src, false, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTrailJSON(b *testing.B) {
	src, sess := benchTrail(b)
	for b.Loop() {
		if err := writeSessionJSON(io.Discard, sess, nil, src, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyTrail(b *testing.B) {
	src, sess := benchTrail(b)
	for b.Loop() {
		if _, err := verifySession(sess, src); err != nil {
			b.Fatal(err)
		}
	}
}
