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
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildBinary builds agent-hooks once for tests that need a real process to signal.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agent-hooks")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestInterruptStopsHookGroupAndExits130: SIGINT, SIGTERM or SIGHUP to agent-hooks stops the running
// hook's whole process group and exits 130.
func TestInterruptStopsHookGroupAndExits130(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			ws := t.TempDir()
			must(t, os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o755))
			config := `{"hooks": {"Stop": [{"command": "sleep 60 & echo $! > child.pid; wait"}]}}`
			must(t, os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(config), 0o644))
			cmd := exec.Command(bin, "run", "Stop", "--workspace", ws)
			cmd.Env = append(os.Environ(), "AUTOAGENT_HOME="+t.TempDir())
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

// TestSetsidGrandchildDoesNotOutliveAgentHooks: a hook's grandchild that left the hook's process
// group (setsid) is ended on Ctrl-C with the hook; and one that also dropped the environment that
// tags it (env -i) is ended when agent-hooks exits. Linux only: elsewhere no process can adopt
// its descendants' orphans.
func TestSetsidGrandchildDoesNotOutliveAgentHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("only Linux lets agent-hooks adopt orphans")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	bin := buildBinary(t)
	for _, tc := range []struct {
		name, command string
		interrupt     bool
	}{
		{"SIGINT", `setsid sh -c 'echo $$ > gc.pid; exec sleep 1000' </dev/null >/dev/null 2>&1 & wait`, true},
		{"untagged at exit", `env -i /bin/sh -c 'setsid sh -c "echo \$\$ > gc.pid; exec sleep 1000" </dev/null >/dev/null 2>&1 &'; while ! test -s gc.pid; do sleep 0.01; done`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			must(t, os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o755))
			config, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{map[string]string{"command": tc.command}}}})
			must(t, os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), config, 0o644))
			cmd := exec.Command(bin, "run", "Stop", "--workspace", ws)
			cmd.Env = append(os.Environ(), "AUTOAGENT_HOME="+t.TempDir())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			must(t, cmd.Start())
			gc := waitPIDFile(t, filepath.Join(ws, "gc.pid"))
			defer syscall.Kill(gc, syscall.SIGKILL)
			want := 0
			if tc.interrupt {
				must(t, cmd.Process.Signal(syscall.SIGINT))
				want = 130
			}
			err := waitExit(t, cmd)
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != want {
				t.Fatalf("exit %d, want %d; stderr %s", code, want, stderr.String())
			}
			if !gone(gc) {
				t.Errorf("setsid grandchild %d outlived agent-hooks", gc)
			}
		})
	}
}
