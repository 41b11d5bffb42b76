package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
)

// Codex runs a project's .codex/hooks.json only when the project is trusted in
// $CODEX_HOME/config.toml ([projects."<dir>"] trust_level = "trusted"), and any hook (user's
// too) only when it is trusted: [hooks.state."<hooks.json>:<event>:<group>:<handler>"]
// trusted_hash = the hash Codex computes of the hook, which only Codex knows how to compute
// (and may change). So agent-hooks asks Codex itself: `codex app-server` answers hooks/list
// (every hook with its key, current hash and trust status) and config/batchWrite (Codex
// editing its own config.toml, comments and all).

// ConfigFile is Codex's config.toml.
func ConfigFile(env hostsettings.Env) string { return filepath.Join(userDir(env), "config.toml") }

// ProjectTrust is the trust_level config.toml gives dir ("trusted", "untrusted", or "" when
// it says nothing).
func ProjectTrust(env hostsettings.Env, dir string) (string, error) {
	path := ConfigFile(env)
	var cfg struct {
		Projects map[string]struct {
			TrustLevel string `toml:"trust_level"`
		} `toml:"projects"`
	}
	_, err := toml.DecodeFile(path, &cfg)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return cfg.Projects[dir].TrustLevel, nil
}

// CodexHook is a hook as `codex app-server` lists it.
type CodexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	HandlerType string `json:"handlerType"`
	Command     string `json:"command"`
	TimeoutSec  int    `json:"timeoutSec"`
	SourcePath  string `json:"sourcePath"`
	Source      string `json:"source"` // user, project, …
	Enabled     bool   `json:"enabled"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"` // untrusted, trusted, modified, managed
}

// CodexHooks is Codex's view of the hooks of one working directory.
type CodexHooks struct {
	Hooks    []CodexHook `json:"hooks"`
	Warnings []string    `json:"warnings"`
	Errors   []string    `json:"errors"`
}

// CodexApp is a running `codex app-server`, spoken to in JSON-RPC over its stdin and stdout.
type CodexApp struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // closed when the server's stdout ends
	stderr *strings.Builder
	mu     sync.Mutex
	nextID int
}

// codexCallTimeout bounds one request to the app server.
const codexCallTimeout = 60 * time.Second

// StartCodexApp starts `bin app-server` in dir with env (HOME and CODEX_HOME say whose
// config) and initializes it.
func StartCodexApp(ctx context.Context, bin, dir string, env []string) (*CodexApp, error) {
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	a := &CodexApp{cmd: cmd, stdin: stdin, lines: make(chan []byte, 64), stderr: &strings.Builder{}}
	cmd.Stderr = &limitedWriter{b: a.stderr, max: 64 << 10}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s app-server: %w", bin, err)
	}
	go func() {
		defer close(a.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			a.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	var init json.RawMessage
	if err := a.Call("initialize", map[string]any{"clientInfo": map[string]string{"name": "agent-hooks", "version": "1"}}, &init); err != nil {
		a.Close()
		return nil, err
	}
	if err := a.send(map[string]any{"method": "initialized"}); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

type limitedWriter struct {
	b   *strings.Builder
	max int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if room := w.max - w.b.Len(); room > 0 {
		w.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (a *CodexApp) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = a.stdin.Write(append(b, '\n'))
	return err
}

// Call sends a request and waits for its answer, skipping notifications.
func (a *CodexApp) Call(method string, params, result any) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextID++
	id := a.nextID
	if err := a.send(map[string]any{"method": method, "id": id, "params": params}); err != nil {
		return fmt.Errorf("codex app-server %s: %w", method, err)
	}
	timer := time.NewTimer(codexCallTimeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				return fmt.Errorf("codex app-server %s: it exited: %s", method, strings.TrimSpace(a.stderr.String()))
			}
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != id {
				continue
			}
			if msg.Error != nil {
				return fmt.Errorf("codex app-server %s: %s", method, msg.Error.Message)
			}
			return json.Unmarshal(msg.Result, result)
		case <-timer.C:
			return fmt.Errorf("codex app-server %s: no answer within %s", method, codexCallTimeout)
		}
	}
}

// Close ends the app server: its stdin closed, it exits (or is killed after a while).
func (a *CodexApp) Close() {
	a.stdin.Close()
	kill := time.AfterFunc(5*time.Second, func() { a.cmd.Process.Kill() })
	defer kill.Stop()
	for range a.lines {
	}
	a.cmd.Wait()
}

// Hooks lists the hooks Codex would run in dir.
func (a *CodexApp) Hooks(dir string) (*CodexHooks, error) {
	var res struct {
		Data []struct {
			Cwd string `json:"cwd"`
			CodexHooks
		} `json:"data"`
	}
	if err := a.Call("hooks/list", map[string]any{"cwds": []string{dir}}, &res); err != nil {
		return nil, err
	}
	if len(res.Data) != 1 {
		return nil, fmt.Errorf("codex app-server hooks/list: %d answers for one directory", len(res.Data))
	}
	return &res.Data[0].CodexHooks, nil
}

// TrustProject marks dir trusted in Codex's user config.
func (a *CodexApp) TrustProject(dir string) error {
	return a.write(map[string]any{"keyPath": "projects", "mergeStrategy": "upsert",
		"value": map[string]any{dir: map[string]string{"trust_level": "trusted"}}})
}

// TrustHooks records the hooks' current hashes as trusted in Codex's user config.
func (a *CodexApp) TrustHooks(hooks []CodexHook) error {
	if len(hooks) == 0 {
		return nil
	}
	state := map[string]any{}
	for _, h := range hooks {
		state[h.Key] = map[string]string{"trusted_hash": h.CurrentHash}
	}
	return a.write(map[string]any{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state})
}

func (a *CodexApp) write(edit map[string]any) error {
	var res struct {
		Status string `json:"status"`
	}
	if err := a.Call("config/batchWrite", map[string]any{"edits": []any{edit}}, &res); err != nil {
		return err
	}
	if res.Status != "ok" {
		return fmt.Errorf("codex app-server config/batchWrite: status %q", res.Status)
	}
	return nil
}
