//go:build !windows

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// agentHooksBinary is the agent-hooks that testscript.Main (TestMain) put first on PATH: a copy
// of this test binary that runs Main when called agent-hooks, so no separate build is needed.
func agentHooksBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("agent-hooks")
	if err != nil {
		t.Fatalf("agent-hooks is not on PATH (TestMain puts it there): %v", err)
	}
	return bin
}

// TestInterruptStopsHookGroupAndExits130: SIGINT, SIGTERM or SIGHUP to agent-hooks stops the running
// hook's whole process group and exits 130.
func TestInterruptStopsHookGroupAndExits130(t *testing.T) {
	bin := agentHooksBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			ws := t.TempDir()
			must(t, os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o755))
			config := `{"hooks": {"Stop": [{"command": "sleep 60 & echo $! > child.pid; wait"}]}}`
			must(t, os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(config), 0o644))
			cmd := exec.Command(bin, "run", "Stop", "--workspace", ws)
			cmd.Env = append(os.Environ(), "AUTOAGENT_HOME="+t.TempDir(), "GORACE="+noRaceExitSleep())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			must(t, cmd.Start())
			pidFile := filepath.Join(ws, "child.pid")
			var child int
			for i := 0; i < 200 && child == 0; i++ {
				time.Sleep(20 * time.Millisecond)
				if b, err := os.ReadFile(pidFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
					child = atoi(t, strings.TrimSpace(string(b)))
				}
			}
			if child == 0 {
				t.Fatal("hook never started")
			}
			must(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 130 {
					t.Fatalf("exit: %v, want 130; stderr %s", err, stderr.String())
				}
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("agent-hooks did not exit after the signal")
			}
			time.Sleep(100 * time.Millisecond)
			if err := syscall.Kill(child, 0); err == nil && !zombie(child) {
				t.Errorf("hook child %d survived", child)
			}
		})
	}
}

func zombie(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", itoa(pid), "stat"))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
