package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var (
	scriptMu      sync.Mutex
	scriptServers = map[*testscript.TestScript]*Server{}
)

// SessionVar is the script variable agent-run sets to the agent's session id.
const SessionVar = "AGENT_SESSION_ID"

// ScriptCmds returns the testscript commands that drive a real agent:
//
//	model-fake start [STEP...]     start the fake model API for the script; the agent's working
//	                               directory is the script's current one. A STEP is
//	                               shell CMD | write PATH CONTENT | text TEXT | tool NAME JSON;
//	                               past the last step the model answers "done"
//	model-fake requests            print METHOD PATH turn=N per request received
//	model-fake tool-results        print the tool results the model last received, one a line:
//	                               error|ok: "content" (quoted; Codex never says error)
//	model-fake bodies              print the JSON body of every model request, one a line:
//	                               everything the model was told (system prompt, messages, the
//	                               context hooks added)
//	agent-run claude|codex|copilot|cline|gemini|opencode|droid [-prompt TEXT] [-untrusted] [-hook-trust]
//	          [-permission-prompt allow|deny] [-- ARGS...]
//	                               run the agent in the current directory against the fake, with
//	                               the script's environment (HOME, PATH with agent-hooks, …) and
//	                               the harness's; its stdout and stderr are the command's, and
//	                               $AGENT_SESSION_ID is set to its session id. Codex trusts the
//	                               project and its hooks unless -untrusted (only config.toml
//	                               trusts the project) or -hook-trust (only config.toml trusts
//	                               the hooks). Claude with -permission-prompt runs as a streaming
//	                               session whose permission prompt (and so PermissionRequest) is
//	                               live, the person at it allowing or denying what the hooks
//	                               leave undecided (PermissionPrompt); stdout is then Claude's
//	                               stream-json, followed by one "prompt TOOL: hook|allow|deny"
//	                               line per prompt. It fails when the agent exits non-zero.
//	agent-link claude|codex        put the agent's CLI on the script's PATH, by its name, for
//	                               commands that look for it there (install codex --trust)
//
// Guard a script with the conditions [claude], [codex], [copilot], [cline], [gemini], [opencode]
// and [droid] (ScriptCondition).
func ScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"model-fake": modelFakeCmd,
		"agent-run":  agentRunCmd,
		"agent-link": agentLinkCmd,
	}
}

// streamInScript runs the streaming Claude session of run (PermissionPrompt) in the script's
// environment, with env (the harness's) over it, and makes its output the command's: Claude's
// stream-json, then one "prompt TOOL: BY" line per permission prompt.
func streamInScript(ts *testscript.TestScript, run *Run, argv, env []string) (*Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, run.Bin, argv...)
	cmd.Dir = run.Dir
	cmd.Env = append(scriptEnviron(ts), env...)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stderr = &stderr
	prompts, err := stream(cmd, run.prompt(), run.PermissionPrompt, &stdout)
	if ctx.Err() != nil {
		err = fmt.Errorf("claude did not finish within %s: %w", DefaultTimeout, ctx.Err())
	}
	for _, p := range prompts {
		fmt.Fprintf(&stdout, "prompt %s: %s\n", p.Tool, p.By)
	}
	ts.Stdout().Write(stdout.Bytes())
	ts.Stderr().Write(stderr.Bytes())
	return &Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Prompts: prompts}, err
}

// scriptEnviron is the environment the script gives the programs it runs (testscript has no
// accessor for it): written by env(1) into a file, which is removed.
func scriptEnviron(ts *testscript.TestScript) []string {
	f := filepath.Join(ts.Getenv("WORK"), ".agenttest-environ")
	ts.Check(ts.Exec("sh", "-c", `exec env -0 >"$0"`, f))
	b, err := os.ReadFile(f)
	ts.Check(err)
	ts.Check(os.Remove(f))
	var env []string
	for _, kv := range strings.Split(string(b), "\x00") {
		if kv != "" {
			env = append(env, kv)
		}
	}
	return env
}

func agentLinkCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: agent-link claude|codex")
	}
	a := Agent(args[0])
	bin, err := Find(a)
	if err != nil {
		ts.Fatalf("agent-link: %v (guard the script with [%s])", err, a)
	}
	dir := filepath.Join(ts.Getenv("WORK"), ".agentbin")
	ts.Check(os.MkdirAll(dir, 0o755))
	link := filepath.Join(dir, string(a))
	if _, err := os.Lstat(link); err != nil {
		ts.Check(os.Symlink(bin, link))
	}
	ts.Setenv("PATH", dir+string(os.PathListSeparator)+ts.Getenv("PATH"))
}

// ScriptCondition evaluates the conditions [claude], [codex], [copilot], [cline] and [gemini]:
// whether the agent's CLI is installed (and the test not -short). handled is false for any other
// condition. An agent that is missing while AGENT_HOOKS_REQUIRE_AGENTS=1 is an error, which fails
// the script.
func ScriptCondition(cond string) (handled, ok bool, err error) {
	a := Agent(cond)
	if !known(a) {
		return false, false, nil
	}
	if testing.Short() {
		return true, false, nil
	}
	_, err = Find(a)
	var nf *NotFoundError
	switch {
	case err == nil:
		return true, true, nil
	case errors.As(err, &nf) && !Required():
		return true, false, nil
	}
	return true, false, err
}

func scriptServer(ts *testscript.TestScript) *Server {
	scriptMu.Lock()
	defer scriptMu.Unlock()
	s := scriptServers[ts]
	if s == nil {
		ts.Fatalf("model-fake start first")
	}
	return s
}

// parseSteps reads model-fake start's STEP arguments.
func parseSteps(args []string) ([]Step, error) {
	var steps []Step
	for len(args) > 0 {
		need := map[string]int{"shell": 1, "write": 2, "text": 1, "tool": 2}[args[0]]
		if need == 0 {
			return nil, fmt.Errorf("unknown step %q (want shell, write, text or tool)", args[0])
		}
		if len(args) < need+1 {
			return nil, fmt.Errorf("step %s wants %d arguments", args[0], need)
		}
		var st Step
		switch a := args[1 : need+1]; args[0] {
		case "shell":
			st = Shell(a[0])
		case "write":
			st = Write(a[0], a[1])
		case "text":
			st = Text(a[0])
		case "tool":
			st = Step{Tool: a[0], Input: []byte(a[1])}
		}
		if err := st.validate(); err != nil {
			return nil, err
		}
		steps = append(steps, st)
		args = args[need+1:]
	}
	return steps, nil
}

func modelFakeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! model-fake")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: model-fake start|requests|bodies|tool-results ...")
	}
	switch args[0] {
	case "start":
		steps, err := parseSteps(args[1:])
		if err != nil {
			ts.Fatalf("model-fake start: %v", err)
		}
		s, err := NewServer(ts.MkAbs("."), steps...)
		ts.Check(err)
		scriptMu.Lock()
		if old := scriptServers[ts]; old != nil {
			old.Close()
		}
		scriptServers[ts] = s
		scriptMu.Unlock()
		ts.Defer(func() {
			s.Close()
			scriptMu.Lock()
			if scriptServers[ts] == s {
				delete(scriptServers, ts)
			}
			scriptMu.Unlock()
		})
	case "requests":
		out := ts.Stdout() // even when there is nothing to print: stdout is this command's
		for _, r := range scriptServer(ts).Requests() {
			fmt.Fprintf(out, "%s %s turn=%d\n", r.Method, r.Path, r.Turn)
		}
	case "tool-results":
		out := ts.Stdout()
		for _, r := range scriptServer(ts).ToolResults() {
			kind := "ok"
			if r.IsError {
				kind = "error"
			}
			fmt.Fprintf(out, "%s: %s\n", kind, strconv.Quote(r.Content))
		}
	case "bodies":
		out := ts.Stdout()
		for _, r := range scriptServer(ts).ModelRequests() {
			var b bytes.Buffer
			ts.Check(json.Compact(&b, r.Body))
			b.WriteByte('\n')
			out.Write(b.Bytes())
		}
	default:
		ts.Fatalf("model-fake: unknown subcommand %q", args[0])
	}
}

func agentRunCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: agent-run claude|codex|copilot|cline|gemini [-prompt TEXT] [-untrusted] [-hook-trust] [-permission-prompt allow|deny] [-- ARGS...]")
	}
	a := Agent(args[0])
	if !known(a) {
		ts.Fatalf("agent-run: unknown agent %q (want claude, codex, copilot, cline, gemini, opencode or droid)", args[0])
	}
	fs := flag.NewFlagSet("agent-run", flag.ContinueOnError)
	prompt := fs.String("prompt", "", "the user prompt")
	untrusted := fs.Bool("untrusted", false, "Codex: do not trust the project on the command line")
	hookTrust := fs.Bool("hook-trust", false, "Codex: do not bypass hook trust")
	person := fs.String("permission-prompt", "", "Claude: a streaming session whose permission prompt this person answers (allow or deny)")
	if err := fs.Parse(args[1:]); err != nil {
		ts.Fatalf("agent-run: %v", err)
	}
	bin, err := Find(a)
	if err != nil {
		ts.Fatalf("agent-run: %v (guard the script with [%s])", err, a)
	}
	srv := scriptServer(ts)
	run := &Run{
		Agent: a, Bin: bin, Server: srv, Dir: ts.MkAbs("."),
		Home: ts.Getenv("HOME"), Path: ts.Getenv("PATH"), Prompt: *prompt, Args: fs.Args(),
		TrustProject: !*untrusted, BypassHookTrust: !*hookTrust, PermissionPrompt: PermissionPrompt(*person),
	}
	argv, env, err := run.Argv()
	ts.Check(err)
	ts.Check(run.Setup(context.Background()))
	defer run.Cleanup()
	var res *Result
	if run.PermissionPrompt != "" {
		res, err = streamInScript(ts, run, argv, env)
	} else {
		// Through env(1), so that the agent (and its hooks) get the script's environment too.
		err = ts.Exec("env", append(append(env, bin), argv...)...)
		res = &Result{Stdout: []byte(ts.ReadFile("stdout")), Stderr: []byte(ts.ReadFile("stderr"))}
	}
	ts.Setenv(SessionVar, SessionID(a, res.Stdout))
	if a == Claude {
		res.DebugLog = run.claudeDebugLog()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.ExitCode = ee.ExitCode()
	}
	// Shown when the script fails (or with -v): what the model got and, for Claude, how it read
	// every hook's output.
	ts.Logf("agent-run %s\n%s", strings.Join(args, " "), res.Describe(srv))
	if err := srv.Err(); err != nil {
		ts.Fatalf("%v", err)
	}
	switch {
	case err != nil && !neg:
		ts.Fatalf("agent-run %s: %v", a, err)
	case err == nil && neg:
		ts.Fatalf("agent-run %s: unexpected success", a)
	}
}
