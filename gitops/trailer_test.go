package gitops

import (
	"context"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
)

func TestWithTrailer(t *testing.T) {
	t.Parallel()
	const id = "session-1700000000000-abc123"
	tests := []struct{ msg, want string }{
		{"Fix login", "Fix login\n\nAgent-Hooks-Session: " + id + "\n"},
		{"Fix login\n", "Fix login\n\nAgent-Hooks-Session: " + id + "\n"},
		{"Fix login\n\nBody text.\n", "Fix login\n\nBody text.\n\nAgent-Hooks-Session: " + id + "\n"},
		{"Fix login\n\nSigned-off-by: A <a@example.com>\n", "Fix login\n\nSigned-off-by: A <a@example.com>\nAgent-Hooks-Session: " + id + "\n"},
		{"Fix login\n\nAgent-Hooks-Session: " + id + "\n", "Fix login\n\nAgent-Hooks-Session: " + id + "\n"},
		// a subject that looks like a trailer is still the subject
		{"docs: readme", "docs: readme\n\nAgent-Hooks-Session: " + id + "\n"},
	}
	for _, tc := range tests {
		if got := withTrailer(tc.msg, SessionTrailer, id); got != tc.want {
			t.Errorf("withTrailer(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	if got := withTrailer("x", SessionTrailer, ""); got != "x" {
		t.Errorf("no session: %q", got)
	}
}

// TestCommitHookAddsTheSessionTrailer: a commit made by a git-commit hook names its session in
// a trailer that git itself reads.
func TestCommitHookAddsTheSessionTrailer(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	writeFiles(t, dir, map[string]string{"b.txt": "b\n"})
	run, err := CommitType{}.Configure(&hooks.Hook{Name: "commit"}, []byte(`{"message": "Complete issue #{{issueNumber}}"}`))
	if err != nil {
		t.Fatal(err)
	}
	inv := &hooks.Invocation{Workspace: dir, SessionID: "session-1700000000000-abc123", Payload: hooks.Payload{"issueNumber": 7},
		Getenv: e.getenv, Environ: e.environ(), Stdout: &strings.Builder{}, Stderr: &strings.Builder{}}
	if o := run.Run(context.Background(), inv); o.Status != hooks.StatusOK {
		t.Fatalf("commit: %+v", o)
	}
	if got := e.git(t, dir, "log", "-1", "--format=%(trailers:key=Agent-Hooks-Session,valueonly)"); got != "session-1700000000000-abc123" {
		t.Errorf("trailer read by git = %q", got)
	}
	if got := e.git(t, dir, "log", "-1", "--format=%s"); got != "Complete issue #7" {
		t.Errorf("subject = %q", got)
	}
	e.fsck(t, dir)
}
