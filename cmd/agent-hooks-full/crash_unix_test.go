//go:build !windows

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/autoagent/agent-hooks/internal/cli"
)

// TestQuitStopsHookGroupAndExits1: SIGQUIT (Ctrl-\) stops the running hook's process group and
// exits 1 with the goroutine dump on stderr, instead of Go's default (exit 2, hooks left running).
func TestQuitStopsHookGroupAndExits1(t *testing.T) {
	bin := agentHooksBinary(t)
	cmd, ws, stderr := startHook(t, bin, "PreExecutionEnd", "sleep 60 & echo $! > child.pid; wait")
	child := waitPIDFile(t, filepath.Join(ws, "child.pid"))
	must(t, cmd.Process.Signal(syscall.SIGQUIT))
	if code := exitStatus(t, cmd); code != cli.ExitFailure {
		t.Fatalf("exit %d, want %d; stderr %s", code, cli.ExitFailure, stderr)
	}
	if !strings.Contains(stderr.String(), "agent-hooks: quit (SIGQUIT)") || !strings.Contains(stderr.String(), "goroutine ") {
		t.Errorf("stderr %q", stderr.String())
	}
	if !gone(child) {
		t.Errorf("hook child %d survived SIGQUIT", child)
	}
}

// TestRuntimeCrashIsNeverExit2: what no recover can catch (a fatal runtime error, a panic in a
// goroutine nobody recovers) ends the process with SIGABRT once crash handling is installed,
// where Go's default is exit status 2, "blocked" to every caller. The test re-runs its own binary
// as the crashing process.
func TestRuntimeCrashIsNeverExit2(t *testing.T) {
	if mode := os.Getenv("AGENT_HOOKS_TEST_CRASH"); mode != "" {
		cli.InstallCrashHandling()
		switch mode {
		case "stack-overflow":
			debug.SetMaxStack(1 << 20)
			var recurse func(n int) int
			recurse = func(n int) int { return recurse(n+1) + 1 }
			recurse(0)
		case "goroutine-panic":
			done := make(chan struct{})
			go func() { panic("unrecovered in a goroutine") }()
			<-done
		}
		return
	}
	t.Parallel()
	for _, mode := range []string{"stack-overflow", "goroutine-panic"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestRuntimeCrashIsNeverExit2$", "-test.count=1")
			cmd.Env = append(os.Environ(), "AGENT_HOOKS_TEST_CRASH="+mode, "GOTRACEBACK=")
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("crash did not fail: %v\n%s", err, out)
			}
			ws := ee.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != syscall.SIGABRT {
				t.Errorf("%s: exit status %d (signaled %v), want death by SIGABRT\n%.400s", mode, ee.ExitCode(), ws.Signaled(), out)
			}
		})
	}
}
