//go:build !windows

package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks/process"
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
	e.Starter = &process.Local{Environ: e.Environ, Grace: 200 * time.Millisecond}
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

// A grandchild that leaves the hook's process group (setsid) is ended with its hook, whether the
// hook exits, times out or is cancelled (Ctrl-C): on Linux agent-hooks adopts it
// (PR_SET_CHILD_SUBREAPER) and knows it by the hook's tag. Elsewhere this is not guaranteed.
func TestSetsidGrandchildEndsWithItsHook(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux lets agent-hooks adopt orphans")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	t.Parallel()
	for _, tc := range []struct {
		name, script, extra string
		cancel              bool
	}{
		{"normal exit", "", "", false},
		// The timeout must come after the hook has started its grandchild: 300 ms was not always
		// enough on a loaded machine, and then there was no grandchild to look for.
		{"timeout", "sleep 30", `"timeout": 3000`, false},
		{"cancelled", "sleep 30", "", true},
		{"double fork", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			spawn := `setsid sh -c 'echo $$ > ` + dir + `/gc.pid; exec sleep 1000' </dev/null >/dev/null 2>&1 &`
			if tc.name == "double fork" {
				// a daemon: the setsid'd shell starts sleep and exits, so sleep's group has no leader
				spawn = `(setsid sh -c 'sleep 1000 & echo $! > ` + dir + `/gc.pid' </dev/null >/dev/null 2>&1 &)`
			}
			script := spawn + "\nwhile ! test -s " + dir + "/gc.pid; do sleep 0.01; done; " + tc.script
			e, _ := engineFor(t, hooksJSON("PostIteration", cmdHook("escape", script, tc.extra)), nil, nil)
			e.Starter = &process.Local{Environ: e.Environ, Grace: 200 * time.Millisecond}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				go func() {
					readPID(t, filepath.Join(dir, "gc.pid"))
					cancel()
				}()
			}
			_, err := e.Fire(ctx, "PostIteration", nil)
			if tc.cancel != (err != nil) {
				t.Fatalf("Fire: %v", err)
			}
			pid := readPID(t, filepath.Join(dir, "gc.pid"))
			deadline := time.Now().Add(5 * time.Second)
			for alive(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("setsid grandchild %d outlived its hook", pid)
			}
		})
	}
}
