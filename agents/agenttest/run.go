package agenttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultPrompt is the user prompt of a run unless it sets one; the fake model does not read it.
const DefaultPrompt = "do it"

// DefaultCodexModel is the model a Codex run asks for unless it sets one: the model for which
// Codex 0.169.0 offers both exec_command and apply_patch (which Write steps call).
const DefaultCodexModel = "gpt-5.5"

// DefaultTimeout bounds a run that sets no Timeout: a hung CLI is killed then.
const DefaultTimeout = 3 * time.Minute

// fakeKey is the API key the agents send to the fake; the fake never checks it.
const fakeKey = "sk-agenttest-not-a-real-key"

// codexKeyVar is the variable Codex's fake provider reads its key from.
const codexKeyVar = "AGENTTEST_OPENAI_KEY"

// Run is one run of an agent CLI on one prompt, offline: the agent talks to Server only, with
// nothing inherited from the caller's environment but what Run says.
type Run struct {
	Agent  Agent
	Bin    string  // the CLI binary (Locate)
	Server *Server // the fake model API
	Dir    string  // the project: the agent's working directory
	// Home is the agent's HOME (Codex's CODEX_HOME is Home/.codex), created when missing. A test
	// puts the user-level settings there (~/.claude/settings.json, ~/.codex/hooks.json).
	Home string
	// Path is the agent's PATH, which its hooks inherit: agent-hooks must be on it.
	Path   string
	Prompt string   // DefaultPrompt when empty
	Env    []string // more variables (KEY=value), after the harness's own
	Args   []string // more CLI arguments, before the prompt
	// Timeout kills the CLI (DefaultTimeout when zero).
	Timeout time.Duration

	// Model is the model asked for: DefaultCodexModel, DefaultCopilotModel or DefaultClineModel
	// when empty; Claude's is its own.
	Model string

	// PermissionPrompt (Claude only), when set, runs Claude as the Agent SDK does, in a streaming
	// session whose permission prompt the harness answers as this person, instead of -p with
	// every permission skipped: a call that needs permission then fires PermissionRequest.
	PermissionPrompt PermissionPrompt

	// Codex only.
	// TrustProject marks Dir trusted for this run (-c projects...), without which Codex does not
	// load Dir/.codex/hooks.json; leave it false to test the trust written in Home/.codex/config.toml.
	TrustProject bool
	// BypassHookTrust runs hooks not trusted in config.toml (--dangerously-bypass-hook-trust).
	BypassHookTrust bool

	hubPort int // Cline's hub daemon's port
}

// Result is what a run produced.
type Result struct {
	Stdout, Stderr []byte
	ExitCode       int
	// SessionID is the agent's id for the session, as its hooks see it in session_id (Claude's
	// session_id, Codex's thread id); empty when the output did not say.
	SessionID string
	// DebugLog is Claude's hook debug log (--debug hooks): every hook's command, output and how
	// Claude read it. Empty for Codex.
	DebugLog string
	// Prompts are Claude's permission prompts and how each ended (a run with a PermissionPrompt).
	Prompts []PromptAnswer
}

// IsRoot reports whether the process runs as root, where Claude refuses
// --dangerously-skip-permissions unless IS_SANDBOX=1.
func IsRoot() bool { return os.Geteuid() == 0 }

// Command is the agent's process for the run, its environment only what Argv says.
func (r *Run) Command(ctx context.Context) (*exec.Cmd, error) {
	args, env, err := r.Argv()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, r.Bin, args...)
	cmd.Dir = r.Dir
	cmd.Env = env
	cmd.WaitDelay = 10 * time.Second
	return cmd, nil
}

// Argv returns the agent's arguments (after the binary) and its environment: HOME, PATH, the
// fake's address and key, and what keeps the agent offline, then Env. It creates Home.
func (r *Run) Argv() (args, env []string, err error) {
	if r.Bin == "" || r.Server == nil || r.Dir == "" || r.Home == "" {
		return nil, nil, errors.New("agenttest.Run needs Bin, Server, Dir and Home")
	}
	if r.PermissionPrompt != "" && r.Agent != Claude {
		return nil, nil, fmt.Errorf("agenttest: a permission prompt is Claude's only, not %s's", r.Agent)
	}
	if err := os.MkdirAll(r.Home, 0o755); err != nil {
		return nil, nil, err
	}
	prompt := r.prompt()
	env = []string{"HOME=" + r.Home, "PATH=" + r.Path}
	switch r.Agent {
	case Claude:
		env = append(env,
			"ANTHROPIC_BASE_URL="+r.Server.URL,
			"ANTHROPIC_API_KEY="+fakeKey,
			"DISABLE_TELEMETRY=1",
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_ERROR_REPORTING=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		)
		if r.PermissionPrompt != "" {
			if !r.PermissionPrompt.valid() {
				return nil, nil, fmt.Errorf("agenttest: unknown permission prompt %q (want allow or deny)", r.PermissionPrompt)
			}
			// The prompt goes to the session's input (stream), not on the command line.
			return append(r.claudeStreamArgs(), r.Args...), append(env, r.Env...), nil
		}
		if IsRoot() {
			env = append(env, "IS_SANDBOX=1")
		}
		args = append(args, "-p", "--output-format", "json", "--dangerously-skip-permissions",
			"--debug", "hooks", "--debug-file", r.claudeDebugLog())
	case Codex:
		model := r.Model
		if model == "" {
			model = DefaultCodexModel
		}
		env = append(env, "CODEX_HOME="+filepath.Join(r.Home, ".codex"), codexKeyVar+"="+fakeKey)
		if err := os.MkdirAll(filepath.Join(r.Home, ".codex"), 0o755); err != nil {
			return nil, nil, err
		}
		args = append(args, "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
			"-m", model,
			"-c", `model_provider="agenttest"`,
			"-c", `model_providers.agenttest={name="agenttest",base_url=`+strconv.Quote(r.Server.URL+"/v1")+`,wire_api="responses",env_key="`+codexKeyVar+`"}`,
			// Plugins and analytics reach out to the internet.
			"-c", "features.plugins=false",
			"-c", "analytics.enabled=false",
		)
		if r.TrustProject {
			args = append(args, "-c", `projects={`+strconv.Quote(r.Dir)+`={trust_level="trusted"}}`)
		}
		if r.BypassHookTrust {
			args = append(args, "--dangerously-bypass-hook-trust")
		}
	case Copilot:
		// BYOK against the fake's Messages API; COPILOT_OFFLINE keeps it from GitHub. Repo hooks
		// load in -p mode only in a trusted folder: COPILOT_ALLOW_ALL=true trusts it.
		env = append(env, "TERM=dumb",
			"COPILOT_OFFLINE=true",
			"COPILOT_PROVIDER_TYPE=anthropic",
			"COPILOT_PROVIDER_BASE_URL="+r.Server.URL,
			"COPILOT_PROVIDER_API_KEY="+fakeKey,
			"COPILOT_MODEL="+defaultString(r.Model, DefaultCopilotModel),
			"COPILOT_AUTO_UPDATE=false",
			"COPILOT_ALLOW_ALL=true",
		)
		args = append(args, "--allow-all-tools", "--output-format", "json")
		args = append(args, r.Args...)
		return append(args, "-p", prompt), append(env, r.Env...), nil
	case Cline:
		env = append(env, r.clineEnv()...)
		args = append(args, "--json", "-c", r.Dir)
	case Gemini:
		genv, err := r.geminiEnv()
		if err != nil {
			return nil, nil, err
		}
		env = append(env, genv...)
		// --yolo approves every tool call, as the other agents' flags do.
		args = append(append(args, "--output-format", "json", "--yolo"), r.Args...)
		return append(args, "-p", prompt), append(env, r.Env...), nil
	case OpenCode:
		env = append(env, r.openCodeEnv()...)
		args = append(append(args, "run", "--format", "json"), r.Args...)
		return append(args, prompt), append(env, r.Env...), nil
	case Droid:
		// The fake as a custom model (BYOK) of a settings file for this run only; autonomy high
		// runs every command, as the other agents' flags do.
		env = append(env, "TERM=dumb", "HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost",
			"FACTORY_DROID_AUTO_UPDATE_ENABLED=false")
		args = append(args, "exec", "--settings", r.droidSettings(), "--auto", "high", "-m", DroidModel, "-o", "json")
	default:
		return nil, nil, fmt.Errorf("agenttest: unknown agent %q", r.Agent)
	}
	args = append(args, r.Args...)
	return append(args, prompt), append(env, r.Env...), nil
}

// DefaultCopilotModel is the model a Copilot run asks for unless it sets one.
const DefaultCopilotModel = "claude-sonnet-4.5"

// DefaultClineModel is the model a Cline run asks for unless it sets one: the model for which
// Cline 3.0.65 offers run_commands and apply_patch.
const DefaultClineModel = "gpt-4o"

// prompt is the run's user prompt.
func (r *Run) prompt() string { return defaultString(r.Prompt, DefaultPrompt) }

func defaultString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (r *Run) claudeDebugLog() string { return filepath.Join(r.Home, "claude-debug.log") }

// Exec runs the agent to its end and returns what it printed. The error is for a run that could
// not start or was killed at its timeout; an agent's own non-zero exit is in Result.ExitCode.
func (r *Run) Exec(ctx context.Context) (*Result, error) {
	timeout := r.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd, err := r.Command(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.Setup(ctx); err != nil {
		return nil, err
	}
	defer r.Cleanup()
	var stdout, stderr bytes.Buffer
	cmd.Stderr = &stderr
	var prompts []PromptAnswer
	if r.PermissionPrompt != "" {
		prompts, err = stream(cmd, r.prompt(), r.PermissionPrompt, &stdout)
	} else {
		cmd.Stdout = &stdout
		err = cmd.Run()
	}
	res := &Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Prompts: prompts}
	if r.Agent == Claude {
		res.DebugLog = r.claudeDebugLog()
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("%s did not finish within %s: %w", r.Agent, timeout, ctx.Err())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case err != nil:
		return res, fmt.Errorf("run %s: %w", r.Bin, err)
	}
	res.SessionID = SessionID(r.Agent, res.Stdout)
	return res, nil
}

// SessionID reads the agent's session id from its JSON output: Claude's result object
// (--output-format json), Codex's thread.started event (exec --json), Copilot's result event
// (--output-format json), the taskId of Cline's first hook event (--json), Gemini's one
// indented object (--output-format json), the sessionID of OpenCode's first event (run --format
// json), Droid's result object (exec -o json).
func SessionID(a Agent, stdout []byte) string {
	if a == Gemini {
		var v struct {
			SessionID string `json:"session_id"`
		}
		if i := bytes.IndexByte(stdout, '{'); i >= 0 && json.NewDecoder(bytes.NewReader(stdout[i:])).Decode(&v) == nil {
			return v.SessionID
		}
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if !bytes.HasPrefix(line, []byte("{")) {
			continue
		}
		var v struct {
			Type      string `json:"type"`
			SessionID string `json:"session_id"`
			ThreadID  string `json:"thread_id"`
			CamelID   string `json:"sessionId"` // Copilot's
			TaskID    string `json:"taskId"`    // Cline's
			OpenCode  string `json:"sessionID"` // OpenCode's
		}
		if json.Unmarshal(line, &v) != nil {
			continue
		}
		switch {
		case a == Claude && v.SessionID != "":
			return v.SessionID
		case a == Codex && v.Type == "thread.started":
			return v.ThreadID
		case a == Copilot && v.Type == "result" && v.CamelID != "":
			return v.CamelID
		case a == Cline && v.TaskID != "":
			return v.TaskID
		case a == OpenCode && v.OpenCode != "":
			return v.OpenCode
		case a == Droid && v.Type == "result" && v.SessionID != "":
			return v.SessionID
		}
	}
	return ""
}

// Describe is a run's outcome for a failing test's log: exit code, output, the requests the
// model received and, for Claude, the hook debug log.
func (res *Result) Describe(srv *Server) string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit code %d\n--- stdout\n%s\n--- stderr\n%s\n", res.ExitCode, res.Stdout, res.Stderr)
	if srv != nil {
		b.WriteString("--- requests\n")
		for _, q := range srv.Requests() {
			fmt.Fprintf(&b, "%s %s turn=%d\n", q.Method, q.Path, q.Turn)
		}
		for _, tr := range srv.ToolResults() {
			fmt.Fprintf(&b, "tool result %s error=%v: %q\n", tr.CallID, tr.IsError, tr.Content)
		}
		if err := srv.Err(); err != nil {
			fmt.Fprintf(&b, "%v\n", err)
		}
	}
	for _, p := range res.Prompts {
		fmt.Fprintf(&b, "permission prompt about %s: answered by %s\n", p.Tool, p.By)
	}
	if res.DebugLog != "" {
		if log, err := os.ReadFile(res.DebugLog); err == nil {
			fmt.Fprintf(&b, "--- %s\n%s\n", res.DebugLog, log)
		}
	}
	return b.String()
}
