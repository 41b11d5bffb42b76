package agenttest

import (
	"context"
	"errors"
	"os"
	"testing"
)

// Find locates the agent's binary for a test process: Locate with the process's environment and
// the repository around the working directory. It returns a *NotFoundError when the agent is
// not installed.
func Find(a Agent) (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	bin, err := Locate(a, os.Getenv, ModuleRoot(cwd))
	if err != nil {
		return "", err
	}
	if _, err := Version(bin, os.Getenv("PATH")); err != nil {
		return "", err
	}
	return bin, nil
}

// Required reports whether a missing agent fails the tests instead of skipping them
// ($AGENT_HOOKS_REQUIRE_AGENTS=1, set by .ci/run).
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Require returns the agent's binary for t, logging its version so that protocol drift after an
// upgrade shows. When the agent is not installed it skips t, or fails it when Required. It also
// skips under -short: a run takes seconds.
func Require(t testing.TB, a Agent) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s end-to-end test skipped with -short", a)
	}
	bin, err := Find(a)
	var nf *NotFoundError
	switch {
	case errors.As(err, &nf) && !Required():
		t.Skip(err)
	case err != nil:
		t.Fatal(err)
	}
	v, _ := Version(bin, os.Getenv("PATH"))
	t.Logf("%s: %s", bin, v)
	return bin
}

// StartServer starts a fake model API answering steps, for t's lifetime, for an agent working
// in dir. It fails t when the server could not answer a request the agent made.
func StartServer(t testing.TB, dir string, steps ...Step) *Server {
	t.Helper()
	srv, err := NewServer(dir, steps...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		if err := srv.Err(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

// MustExec runs r for t: it fails t when the run could not start or timed out, or when the
// agent exited non-zero, with everything the run left in the log.
func MustExec(t testing.TB, r *Run) *Result {
	t.Helper()
	res, err := r.Exec(context.Background())
	if err != nil {
		if res != nil {
			t.Log(res.Describe(r.Server))
		}
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("%s exited %d\n%s", r.Agent, res.ExitCode, res.Describe(r.Server))
	}
	return res
}
