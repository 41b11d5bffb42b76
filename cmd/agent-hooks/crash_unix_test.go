//go:build !windows

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestQuitStopsHookGroupAndExits1: SIGQUIT (Ctrl-\) stops the running hook's process group and
// exits 1 with the goroutine dump on stderr, instead of Go's default (exit 2, hooks left running).
func TestQuitStopsHookGroupAndExits1(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	ws := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o755))
	config := `{"hooks": {"PreExecutionEnd": [{"command": "sleep 60 & echo $! > child.pid; wait"}]}}`
	must(t, os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(config), 0o644))
	cmd := exec.Command(bin, "run", "PreExecutionEnd", "--workspace", ws)
	cmd.Env = append(os.Environ(), "AUTOAGENT_HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	child := waitPIDFile(t, filepath.Join(ws, "child.pid"))
	must(t, cmd.Process.Signal(syscall.SIGQUIT))
	err := waitExit(t, cmd)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
		t.Fatalf("exit: %v, want %d; stderr %s", err, exitFailure, stderr.String())
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
		installCrashHandling()
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

func waitPIDFile(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(b)) > 0 {
			return atoi(t, strings.TrimSpace(string(b)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

// waitExit waits for cmd, killing it if it has not exited 20 s on (a hang, not a speed check).
func waitExit(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("agent-hooks did not exit")
		return nil
	}
}

// gone waits (up to 5 s) for pid to be gone or a zombie.
func gone(pid int) bool {
	deadline := time.Now().Add(5 * time.Second)
	for {
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
