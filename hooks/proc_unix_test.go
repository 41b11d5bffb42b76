//go:build !windows

package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether a process exists and is not a zombie waiting to be reaped.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no procfs (darwin): existence is all we can tell
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	for i := 0; i < 100; i++ {
		b, err := os.ReadFile(path)
		if err == nil && len(bytes.TrimSpace(b)) > 0 {
			var pid int
			_, err := fmt.Sscan(string(bytes.TrimSpace(b)), &pid)
			must(t, err)
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

func TestTimeoutKillsWholeProcessGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The hook starts a grandchild that ignores SIGTERM, then waits forever.
	script := `sh -c 'trap "" TERM; echo $$ > ` + dir + `/gc.pid; while :; do sleep 1; done' & wait`
	e, _ := engineFor(t, hooksJSON("PreExecutionEnd", cmdHook("slow", script, `"timeout": 300, "blocking": true`)), nil, nil)
	e.procs.Grace = 200 * time.Millisecond
	start := time.Now()
	res, err := e.Fire(context.Background(), "PreExecutionEnd", nil)
	must(t, err)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("run took %v", d)
	}
	if got := res.Hooks[0]; got.Status != StatusTimeout || got.ExitCode != 124 {
		t.Errorf("status %s exit %d, want timeout 124", got.Status, got.ExitCode)
	}
	if !res.Blocked || !strings.Contains(res.Reason, "timed out after 300ms") {
		t.Errorf("blocking hook timeout: blocked=%v reason=%q", res.Blocked, res.Reason)
	}
	pid := readPID(t, filepath.Join(dir, "gc.pid"))
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("grandchild %d survived the timeout", pid)
	}
}

func TestBackgroundedChildCannotHangOrOutlive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `sleep 30 & echo $! > ` + dir + `/bg.pid; echo done`
	e, out := engineFor(t, hooksJSON("PostExecutionEnd", cmdHook("bg", script, "")), nil, nil)
	start := time.Now()
	res, err := e.Fire(context.Background(), "PostExecutionEnd", nil)
	must(t, err)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a backgrounded child held run for %v", d)
	}
	if res.Hooks[0].Status != StatusOK || !strings.Contains(out.String(), "done") {
		t.Errorf("status %s output %q", res.Hooks[0].Status, out.String())
	}
	pid := readPID(t, filepath.Join(dir, "bg.pid"))
	time.Sleep(100 * time.Millisecond)
	if alive(pid) {
		t.Errorf("background child %d outlived its hook", pid)
	}
}
