package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/spf13/cobra"
)

type runFlags struct {
	payload   string
	data      []string
	session   string
	workspace string
	loop      string
	config    string
	json      bool
}

func (a *app) newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run <event>",
		Short: "Run the hooks configured for an event",
		Long: `Run the hooks configured for one lifecycle event, in order, and decide.

Each command hook gets the event as one JSON object on stdin (eventName, sessionId, workspace,
timestamp and the caller's data) and in AUTOAGENT_PAYLOAD. A hook blocks a blockable event by
exiting 2 (stderr is the reason) or by printing {"decision":"block","reason":"…"}.

Exit codes: 0 proceed, 2 blocked (the reason on stderr), 3 skip (PreIteration only),
1 agent-hooks failed (bad config, bad payload), 130 interrupted.`,
		Example: `  agent-hooks run PreExecutionEnd --payload issue.json
  echo '{"issueNumber":42}' | agent-hooks run PreExecutionStart --payload -
  agent-hooks run PostExecutionEnd --data issueNumber=42 --data issueTitle="Fix login" --json
  agent-hooks run next_iteration --data iteration=3 --workspace ./repo`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := a.readPayload(f.payload, f.data)
			if err != nil {
				return err
			}
			_, err = a.fire(cmd.Context(), fireRequest{
				Event: args[0], Data: data, SessionID: f.session, Workspace: f.workspace,
				LoopFile: f.loop, ConfigFile: a.absPath(f.config), JSON: f.json,
			})
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.payload, "payload", "", "JSON object file with the event data (- for stdin)")
	fl.StringArrayVar(&f.data, "data", nil, "event data key=value (numbers, true/false and JSON stay typed); repeatable")
	fl.StringVar(&f.session, "session", "", "session id (default $AUTOAGENT_SESSION_ID, else the workspace's active session)")
	fl.StringVar(&f.workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	fl.StringVar(&f.loop, "loop", "", "agent-pipelines loop.yaml to read hooks from (default <workspace>/loop.yaml)")
	fl.StringVar(&f.config, "config", "", "one more hook config file, loaded after the project's and before the user's (the Action's config input)")
	fl.BoolVar(&f.json, "json", false, "print one JSON result object on stdout")
	return cmd
}

// fireRequest is one event to run, as `run` and the commands built on it (session end, action) ask.
type fireRequest struct {
	Event     string
	Data      hooks.Payload
	SessionID string
	Workspace string // the --workspace flag; "" finds it
	LoopFile  string
	// ConfigFile is one more native config, loaded after the project's (the Action's config input).
	ConfigFile string
	JSON       bool      // print the JSON result on stdout instead of streaming hook output there
	Output     io.Writer // where the JSON result goes (default a.stdout)
}

// fire runs an event exactly like `agent-hooks run`: it loads the configuration, attaches the
// session, runs the hooks, prints and records the result. A block returns *blockedError and a skip
// *skipError, with the result.
func (a *app) fire(ctx context.Context, req fireRequest) (*hooks.Result, error) {
	env, err := a.loadEnv(req.Workspace, req.LoopFile)
	if err != nil {
		return nil, err
	}
	env.ExtraConfig = req.ConfigFile
	reg := a.newRegistry()
	cfg, err := a.loadConfig(reg, env)
	if err != nil {
		return nil, err
	}
	event, err := hooks.ResolveEvent(req.Event, cfg.CustomEvents)
	if err != nil {
		return nil, err
	}
	sess, err := a.openSession(ctx, req.SessionID, env.Workspace)
	if err != nil {
		return nil, err
	}
	data := req.Data
	if data == nil {
		data = hooks.Payload{}
	}
	if err := sess.BeforeEvent(event, data); err != nil {
		return nil, err
	}
	eng := &hooks.Engine{
		Config: cfg, Registry: reg, Workspace: env.Workspace, SessionID: sess.ID(),
		Getenv: a.getenv, Environ: a.environ, Stderr: a.stderr, Messages: a.stderr,
		Observer: sess.Observer(), StateDir: filepath.Join(env.AutoagentHome, "sessions"),
	}
	if !req.JSON {
		eng.Stdout = a.stdout
	}
	res, err := eng.Fire(ctx, event, data)
	if err != nil {
		return res, err
	}
	if err := sess.AfterEvent(event, data, res); err != nil {
		return res, err
	}
	if req.JSON {
		out := req.Output
		if out == nil {
			out = a.stdout
		}
		if err := writeJSON(out, res); err != nil {
			return res, err
		}
	}
	switch {
	case res.Blocked && !req.JSON && reasonWasStreamed(res):
		return res, &silentError{code: exitBlocked}
	case res.Blocked:
		return res, &blockedError{reason: blockMessage(res)}
	case res.Decision == hooks.DecisionSkip:
		return res, &skipError{reason: blockMessage(res)}
	}
	return res, nil
}

// reasonWasStreamed reports whether the block reason is exactly the stderr the blocking hook
// already printed live, so that it is not printed twice.
func reasonWasStreamed(res *hooks.Result) bool {
	if len(res.Hooks) == 0 || res.Feedback != "" {
		return false
	}
	last := res.Hooks[len(res.Hooks)-1]
	return last.Status == hooks.StatusBlocked && strings.TrimSpace(last.Stderr) == res.Reason
}

func blockMessage(res *hooks.Result) string {
	msg := res.Reason
	if msg == "" {
		msg = res.Event + " " + res.Decision
	}
	if res.Feedback != "" {
		msg += "\n" + res.Feedback
	}
	return msg
}

// loadEnv finds the workspace and the configuration directories.
func (a *app) loadEnv(workspaceFlag, loopFile string) (hooks.LoadEnv, error) {
	ws, err := a.workspace(workspaceFlag)
	if err != nil {
		return hooks.LoadEnv{}, err
	}
	home, err := a.autoagentHome()
	if err != nil {
		return hooks.LoadEnv{}, err
	}
	userHome, _ := a.userHome()
	if loopFile != "" && !filepath.IsAbs(loopFile) {
		loopFile = filepath.Join(a.cwd, loopFile)
	}
	return hooks.LoadEnv{Workspace: ws, UserHome: userHome, AutoagentHome: home, Getenv: a.getenv, LoopFile: loopFile}, nil
}

// loadConfig loads and validates; on invalid configuration it prints every problem and fails.
func (a *app) loadConfig(reg *hooks.Registry, env hooks.LoadEnv) (*hooks.Config, error) {
	cfg, err := hooks.Load(reg, env)
	var cerr *hooks.ConfigError
	if errors.As(err, &cerr) && len(cerr.Diagnostics) > 1 {
		for _, d := range cerr.Diagnostics[1:] {
			fmt.Fprintf(a.stderr, "agent-hooks: %s\n", d)
		}
	}
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(a.stderr, "agent-hooks: %s\n", w)
	}
	return cfg, nil
}

// workspace is --workspace, else $GITHUB_WORKSPACE, else the nearest ancestor of the current
// directory holding .autoagent/ or .git, else the current directory (SPEC.md section 3).
func (a *app) workspace(flag string) (string, error) {
	dir := flag
	if dir == "" {
		dir = a.getenv("GITHUB_WORKSPACE")
	}
	if dir != "" {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(a.cwd, dir)
		}
		st, err := os.Stat(dir)
		if err != nil {
			return "", fmt.Errorf("workspace: %w", err)
		}
		if !st.IsDir() {
			return "", fmt.Errorf("workspace %s is not a directory", dir)
		}
		return filepath.Clean(dir), nil
	}
	for d := a.cwd; ; {
		for _, marker := range []string{".autoagent", ".git"} {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return d, nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return a.cwd, nil
		}
		d = parent
	}
}

// readPayload reads --payload (a file or - for stdin) and applies --data pairs over it.
func (a *app) readPayload(file string, pairs []string) (hooks.Payload, error) {
	data := hooks.Payload{}
	if file != "" {
		var src []byte
		var err error
		name := file
		if file == "-" {
			name = "<stdin>"
			src, err = io.ReadAll(a.stdin)
		} else {
			if !filepath.IsAbs(file) {
				file = filepath.Join(a.cwd, file)
			}
			src, err = os.ReadFile(file)
		}
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		if err := decodePayload(name, src, &data); err != nil {
			return nil, err
		}
	}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--data %q: want key=value", p)
		}
		data[k] = dataValue(v)
	}
	return data, nil
}

func decodePayload(name string, src []byte, into *hooks.Payload) error {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(src)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			line, col := hooks.LineCol(src, syn.Offset-1)
			return fmt.Errorf("payload %s:%d:%d: invalid JSON: %v", name, line, col, syn)
		}
		return fmt.Errorf("payload %s: invalid JSON: %v", name, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("payload %s: must be a JSON object", name)
	}
	if dec.More() {
		line, col := hooks.LineCol(src, dec.InputOffset())
		return fmt.Errorf("payload %s:%d:%d: unexpected data after the JSON object", name, line, col)
	}
	*into = obj
	return nil
}

// dataValue types a --data value: JSON numbers, true, false, null, arrays and objects stay
// typed; anything else is a string.
func dataValue(v string) any {
	t := strings.TrimSpace(v)
	if t == "" {
		return v
	}
	switch t[0] {
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 't', 'f', 'n', '[', '{':
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) == nil && !dec.More() {
			return x
		}
	}
	return v
}
