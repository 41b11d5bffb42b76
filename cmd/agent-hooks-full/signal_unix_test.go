//go:build !windows

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
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

// startHook starts the binary on event with a project config of one command hook, and returns
// it with its workspace and stderr.
func startHook(t *testing.T, bin, event, command string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	ws := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o755))
	config, err := json.Marshal(map[string]any{"hooks": map[string]any{event: []any{map[string]string{"command": command}}}})
	must(t, err)
	must(t, os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), config, 0o644))
	cmd := exec.Command(bin, "run", event, "--workspace", ws)
	cmd.Env = append(os.Environ(), "AUTOAGENT_HOME="+t.TempDir(), "GORACE="+noRaceExitSleep())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	return cmd, ws, &stderr
}

// exitStatus waits for cmd (see waitExit) and returns its exit status.
func exitStatus(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := waitExit(t, cmd)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// TestInterruptStopsHookGroupAndExits130: SIGINT, SIGTERM or SIGHUP to agent-hooks stops the running
// hook's whole process group and exits 130.
func TestInterruptStopsHookGroupAndExits130(t *testing.T) {
	bin := agentHooksBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, ws, stderr := startHook(t, bin, "Stop", "sleep 60 & echo $! > child.pid; wait")
			child := waitPIDFile(t, filepath.Join(ws, "child.pid"))
			must(t, cmd.Process.Signal(sig))
			if code := exitStatus(t, cmd); code != 130 {
				t.Fatalf("exit %d, want 130; stderr %s", code, stderr)
			}
			if !gone(child) {
				t.Errorf("hook child %d survived", child)
			}
		})
	}
}

// TestSetsidGrandchildDoesNotOutliveAgentHooks: a hook's grandchild that left the hook's process
// group (setsid) is ended on Ctrl-C with the hook; and one that also dropped the environment that
// tags it (env -i) is ended when agent-hooks exits. Linux only: elsewhere no process can adopt
// its descendants' orphans.
func TestSetsidGrandchildDoesNotOutliveAgentHooks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux lets agent-hooks adopt orphans")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	bin := agentHooksBinary(t)
	for _, tc := range []struct {
		name, command string
		interrupt     bool
	}{
		{"SIGINT", `setsid sh -c 'echo $$ > gc.pid; exec sleep 1000' </dev/null >/dev/null 2>&1 & wait`, true},
		{"untagged at exit", `env -i /bin/sh -c 'setsid sh -c "echo \$\$ > gc.pid; exec sleep 1000" </dev/null >/dev/null 2>&1 &'; while ! test -s gc.pid; do sleep 0.01; done`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, ws, stderr := startHook(t, bin, "Stop", tc.command)
			gc := waitPIDFile(t, filepath.Join(ws, "gc.pid"))
			defer syscall.Kill(gc, syscall.SIGKILL)
			want := 0
			if tc.interrupt {
				must(t, cmd.Process.Signal(syscall.SIGINT))
				want = 130
			}
			if code := exitStatus(t, cmd); code != want {
				t.Fatalf("exit %d, want %d; stderr %s", code, want, stderr)
			}
			if !gone(gc) {
				t.Errorf("setsid grandchild %d outlived agent-hooks", gc)
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

func zombie(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
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
