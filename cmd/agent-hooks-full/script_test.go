package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/autoagent/agent-hooks/agents/agenttest"
	"github.com/autoagent/agent-hooks/github"
	"github.com/autoagent/agent-hooks/github/githubtest"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/cli"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		// agent-hooks is the lean program, which hands what it does not run to agent-hooks-full
		// beside it (testscript installs every command in one folder); under TestScriptsFull it
		// is the full program itself.
		"agent-hooks": func() {
			if os.Getenv(programVar) == "full" {
				os.Exit(Main())
			}
			os.Exit(cli.RunLean(cli.Stamp{Version: version, Commit: commit, Date: date}))
		},
		"agent-hooks-full": func() { os.Exit(Main()) },
		// agent-hooks with a bug: every event's first extension panics, as a broken built-in
		// would, outside the hooks the engine recovers.
		// a webhook endpoint that calls back (webhooksink_test.go)
		"webhook-sink": func() { os.Exit(webhookSink()) },
		"agent-hooks-panicky": func() {
			cli.SetTestRegistry(func(reg *hooks.Registry) { reg.RegisterFormat(panickingExtension{}) })
			os.Exit(Main())
		},
	})
}

// programVar names the program the scripts' agent-hooks is: "full" for agent-hooks-full, else
// the lean one.
const programVar = "AGENT_HOOKS_TEST_PROGRAM"

// TestScripts runs the end-to-end scripts in testdata/script: real sh hooks, real files, the
// real binaries (testscript re-executes this test binary as agent-hooks, the lean program, and
// as agent-hooks-full, to which it hands what it does not run itself).
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, scriptParams(""))
}

// TestScriptsFull runs the same scripts with agent-hooks-full as agent-hooks: results never
// differ between the two programs.
func TestScriptsFull(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: the whole end-to-end suite a second time; runs without -short")
	}
	t.Parallel()
	testscript.Run(t, scriptParams("full"))
}

// scriptParams are the scripts' parameters with agent-hooks being program.
func scriptParams(program string) testscript.Params {
	return testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("AUTOAGENT_HOME", filepath.Join(home, ".autoagent"))
			env.Setenv("NO_COLOR", "1")
			for _, k := range []string{"PATH", "TMPDIR"} {
				if v := os.Getenv(k); v != "" {
					env.Setenv(k, v)
				}
			}
			for _, k := range []string{"GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_TOKEN", "GH_TOKEN", "AUTOAGENT_SESSION_ID", "AGENT_HOOKS_DISABLE", "AGENT_HOOKS_SKIP"} {
				env.Setenv(k, "")
			}
			// Real webhook payloads, for GITHUB_EVENT_PATH.
			events, err := filepath.Abs(filepath.Join("..", "..", "github", "testdata", "events"))
			if err != nil {
				return err
			}
			env.Setenv("EVENTS", events)
			for _, k := range []string{"GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REF", "GITHUB_SHA", "GITHUB_HEAD_REF"} {
				env.Setenv(k, "")
			}
			env.Setenv("GORACE", noRaceExitSleep())
			env.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv(programVar, program)
			return os.MkdirAll(home, 0o755)
		},
		Cmds:      scriptCmds(),
		Condition: scriptCondition,
	}
}

// scriptCondition evaluates the scripts' own conditions: [claude] and [codex], whether the
// agent's CLI is installed (agenttest.ScriptCondition).
func scriptCondition(cond string) (bool, error) {
	if handled, ok, err := agenttest.ScriptCondition(cond); handled {
		return ok, err
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// noRaceExitSleep is $GORACE for the agent-hooks processes of the tests. Built with -race, a
// process sleeps a second before it exits so that racing goroutines can still report
// (atexit_sleep_ms, default 1000): that was most of the scripts' time under -race. Races are
// still reported when they happen, and fail the process.
func noRaceExitSleep() string {
	return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
}

// scriptCmds are the custom script commands: expect-exit, envfile, the fake GitHub's commands,
// and the real agents' (model-fake, agent-run).
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){"expect-exit": expectExit, "envfile": envFile, "agent-input": agentInput, "silent-server": silentServer}
	for name, cmd := range githubtest.ScriptCmds() {
		cmds[name] = cmd
	}
	for name, cmd := range agenttest.ScriptCmds() {
		cmds[name] = cmd
	}
	return cmds
}

// expectExit runs `expect-exit N prog args...` and fails unless prog exits with exactly N; its
// stdout and stderr are then what the script's stdout/stderr assertions see.
func expectExit(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! expect-exit")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: expect-exit N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("expect-exit: bad exit code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("expect-exit: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// silentServer runs `silent-server NAME`: a listener on 127.0.0.1 that accepts every connection
// and holds it without sending a byte until the script ends (a remote that takes the connection
// and never answers); $NAME is its host:port.
func silentServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: silent-server NAME")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	done := make(chan struct{})
	ts.Defer(func() {
		close(done)
		l.Close()
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				<-done
				c.Close()
			}()
		}
	}()
	ts.Setenv(args[0], l.Addr().String())
}

// envFile runs `envfile FILE`: it reads an environment file (GITHUB_OUTPUT, GITHUB_ENV,
// GITHUB_STATE) by the runner's rules, prints each entry as NAME=value with the value quoted, one
// a line, and fails when the runner would refuse any part of the file (and so fail the step).
func envFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: envfile FILE")
	}
	entries, problems := github.ParseEnvFile(ts.ReadFile(args[0]), false)
	for _, e := range entries {
		fmt.Fprintf(ts.Stdout(), "%s=%s\n", e.Name, strconv.Quote(e.Value))
	}
	for _, p := range problems {
		ts.Logf("%s line %d: %s", args[0], p.Line, p.Msg)
	}
	if len(problems) > 0 {
		ts.Fatalf("the runner would fail the step on %s", args[0])
	}
}

// panickingExtension is a format whose extension panics on every event.
type panickingExtension struct{}

func (panickingExtension) Name() string { return "panicking" }

func (p panickingExtension) Load(hooks.LoadEnv) (hooks.Loaded, error) {
	return hooks.Loaded{Extension: p}, nil
}

func (panickingExtension) BeforeEvent(context.Context, *hooks.EventInfo) error {
	panic("extension broke")
}

func (panickingExtension) AfterEvent(context.Context, *hooks.EventInfo, *hooks.Result) error {
	return nil
}

// agentInput runs `agent-input AGENT NAME[+NAME...] FILE [KEY=JSON]...`: it writes FILE with the
// input an agent really sent (testdata/agents/AGENT/NAME.json, several merged in order), its project directory (cwd) replaced by the
// script's working directory everywhere, and each KEY set to the JSON value (KEY= removes it).
func agentInput(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: agent-input AGENT NAME[+NAME...] FILE [KEY=JSON]...")
	}
	// NAME+NAME… merges the files in order (Cursor's documentation shows the common fields
	// apart from each event's; Cursor sends them in one object).
	fields := map[string]any{}
	for _, name := range strings.Split(args[1], "+") {
		part, err := os.ReadFile(filepath.Join("..", "..", "testdata", "agents", args[0], name+".json"))
		ts.Check(err)
		ts.Check(json.Unmarshal(part, &fields))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	ts.Check(enc.Encode(fields))
	raw := buf.Bytes()
	if cwd, ok := fields["cwd"].(string); ok && cwd != "" {
		raw = bytes.ReplaceAll(raw, []byte(cwd), []byte(ts.MkAbs(".")))
		fields = nil
		ts.Check(json.Unmarshal(raw, &fields))
	}
	for _, kv := range args[3:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("agent-input: %q: want KEY=JSON", kv)
		}
		if v == "" {
			delete(fields, k)
			continue
		}
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			ts.Fatalf("agent-input: %s: %v", k, err)
		}
		fields[k] = x
	}
	out, err := json.Marshal(fields)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o644))
}
