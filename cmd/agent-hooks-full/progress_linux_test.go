//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyScreen is a pseudo-terminal for a process's standard error, and what was written on it.
type ptyScreen struct {
	tty  *os.File
	mu   sync.Mutex
	b    bytes.Buffer
	done chan struct{}
}

func openScreen(t *testing.T) *ptyScreen {
	t.Helper()
	m, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	s := &ptyScreen{tty: tty, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			s.mu.Lock()
			s.b.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { tty.Close(); m.Close(); <-s.done })
	return s
}

func (s *ptyScreen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the screen shows re, and returns the first match's submatches.
func (s *ptyScreen) waitFor(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second) // a hang, not a timing: what the test waits for never came
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(s.String()); m != nil {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the terminal never showed %s; it shows %q", re, s.String())
	return nil
}

// progressWorkspace is a workspace whose Stop and PreToolUse ask a local approval.
func progressWorkspace(t *testing.T) (ws string, env []string) {
	t.Helper()
	ws = t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(`{"hooks": {
  "Stop": [{"type": "approval", "timeout": 20000}],
  "PreToolUse": [{"type": "approval", "tools": "Bash", "timeout": 60000}]}}`), 0o644))
	env = append(os.Environ(), "AUTOAGENT_HOME="+t.TempDir(), "TERM=xterm", "CI=", "GITHUB_ACTIONS=", "AUTOAGENT_SESSION_ID=")
	return ws, env
}

// TestProgressOnATerminal: with standard error on a terminal, a local approval's wait is one
// status line redrawn in place (where to approve, the time waited) and erased when it is decided.
func TestProgressOnATerminal(t *testing.T) {
	bin := agentHooksBinary(t)
	ws, env := progressWorkspace(t)
	scr := openScreen(t)
	cmd := exec.Command(bin, "run", "Stop", "--workspace", ws)
	cmd.Env, cmd.Stderr = env, scr.tty // standard input is not a terminal: nobody is asked there
	must(t, cmd.Start())
	m := scr.waitFor(t, regexp.MustCompile(`\ragent-hooks: approval (apr-[a-z0-9]{8}) pending · \d+s · until [0-9:]{8} · agent-hooks approvals approve (apr-[a-z0-9]{8})\x1b\[K`))
	if m[1] != m[2] {
		t.Errorf("the status names %s and tells to approve %s", m[1], m[2])
	}
	approve := exec.Command(bin, "approvals", "approve", m[1])
	approve.Env = env
	if out, err := approve.CombinedOutput(); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	if err := waitExit(t, cmd); err != nil {
		t.Fatalf("run: %v; the terminal shows %q", err, scr.String())
	}
	screen := scr.String()
	status := regexp.MustCompile(`\ragent-hooks: approval apr-[a-z0-9]{8} pending[^\r]*\x1b\[K`).FindAllStringIndex(screen, -1)
	last := status[len(status)-1][1]
	if erased := bytes.Index([]byte(screen[last:]), []byte("\r\x1b[K")); erased != 0 {
		t.Errorf("the status line is not erased when the wait ends: %q", screen[last:])
	}
}

// TestNoProgressUnderAnAgent: agent-hooks hook <agent> never draws a status on its standard
// error, even on a terminal: the agent reads it.
func TestNoProgressUnderAnAgent(t *testing.T) {
	bin := agentHooksBinary(t)
	ws, env := progressWorkspace(t)
	scr := openScreen(t)
	input, err := json.Marshal(map[string]any{
		"session_id": "90d82a6c-7a0a-4af5-8c86-1cd1a2d41641", "cwd": ws, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "make deploy"}, "tool_use_id": "toolu_1",
	})
	must(t, err)
	cmd := exec.Command(bin, "hook", "claude", "--timeout", "3")
	cmd.Env, cmd.Dir, cmd.Stderr = env, ws, scr.tty
	cmd.Stdin = bytes.NewReader(input)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	must(t, cmd.Start())
	if err := waitExit(t, cmd); err != nil {
		t.Fatalf("hook: %v", err)
	}
	if !bytes.Contains(stdout.Bytes(), []byte(`"permissionDecision":"deny"`)) {
		t.Fatalf("the call was not refused as pending: %s", stdout.String())
	}
	scr.tty.Close() // the reader sees the end of what was written
	if screen := scr.String(); regexp.MustCompile(`\x1b|\r[^\n]`).MatchString(screen) {
		t.Errorf("a status was drawn on the agent's stderr: %q", screen)
	}
}
