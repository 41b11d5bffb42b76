package cline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents/hostfmt"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// format is Cline's hook files as a format (format "cline"): every file named after a Cline
// event (PreToolUse, TaskStart, …, with an extension Cline runs or none) in .clinerules/hooks/,
// .cline/hooks/, ~/.cline/hooks/ ($CLINE_DIR/hooks) and ~/Documents/Cline/Hooks/. They run as
// Cline runs them: the file itself (by its shebang), else by its extension's interpreter, else
// with bash; Cline's JSON on stdin (hookName, taskId, workspaceRoots, tool_call …); exit codes
// ignored, and {"cancel": true, "errorMessage": …} on stdout (or its last HOOK_CONTROL line)
// blocks, contextModification is feedback.
type format struct{}

// Format implements agents.Agent: Cline's hook files as a format.
func (Agent) Format() hooks.Format { return format{} }

// Name implements hooks.Format.
func (format) Name() string { return settings().Name }

// clineEvents are the canonical events of a Cline hook file, with the SDK's hookName Cline
// gives it; a PostToolUse file runs for both outcomes of a tool, TaskResume only on a resumed
// session.
var clineEvents = sync.OnceValue(func() map[string][]struct {
	event    string
	hookName string
} {
	return map[string][]struct{ event, hookName string }{
		"TaskStart":        {{hooks.SessionStart, "agent_start"}},
		"TaskResume":       {{hooks.SessionStart, "agent_resume"}},
		"UserPromptSubmit": {{hooks.UserPromptSubmit, "prompt_submit"}},
		"PreToolUse":       {{hooks.PreToolUse, "tool_call"}},
		"PostToolUse":      {{hooks.PostToolUse, "tool_result"}, {hooks.PostToolUseFailure, "tool_result"}},
		"TaskComplete":     {{hooks.Stop, "agent_end"}},
		"TaskError":        {{hooks.Error, "agent_error"}},
		"TaskCancel":       {{hooks.SessionEnd, "agent_abort"}},
		"SessionShutdown":  {{hooks.SessionEnd, "session_shutdown"}},
		"PreCompact":       {{hooks.PreCompact, "PreCompact"}},
	}
})

// clineInterpreters run a hook file without a shebang, by its extension.
var clineInterpreters = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"": {"bash"}, ".sh": {"bash"}, ".bash": {"bash"}, ".zsh": {"zsh"}, ".js": {"node"}, ".mjs": {"node"},
		".cjs": {"node"}, ".ts": {"bun", "run"}, ".mts": {"bun", "run"}, ".cts": {"bun", "run"},
		".py": {"python3"}, ".ps1": {"pwsh", "-File"},
	}
})

// Load implements hooks.Format.
func (f format) Load(env hooks.LoadEnv) (hooks.Loaded, error) {
	if env.Agent == f.Name() {
		return hooks.Loaded{}, nil // Cline runs these itself
	}
	var out hooks.Loaded
	for _, d := range hostfmt.RunOrder(settings(), env) {
		if d.Scope == string(hostsettings.User) && (env.UserHome == "" || env.DisableUserHooks) {
			continue
		}
		entries, err := os.ReadDir(d.Path)
		if err != nil {
			continue // no such folder
		}
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			if !e.IsDir() {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, name := range names {
			path := filepath.Join(d.Path, name)
			ext := strings.ToLower(filepath.Ext(name))
			interp, known := clineInterpreters()[ext]
			base := strings.TrimSuffix(name, filepath.Ext(name))
			if !known {
				interp, base = clineInterpreters()[""], name
			}
			hookFile := ""
			for k := range clineEvents() {
				if strings.EqualFold(k, base) {
					hookFile = k
				}
			}
			if hookFile == "" || strings.HasPrefix(name, ".") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return hooks.Loaded{}, fmt.Errorf("read %s: %w", path, err)
			}
			if settings().OwnsScript(src) {
				continue // agent-hooks as Cline's hook runner: these are agent-hooks' own hooks
			}
			argv := append(append([]string(nil), interp...), path)
			if strings.HasPrefix(string(src), "#!") {
				if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o111 != 0 {
					argv = []string{path}
				}
			}
			for _, ev := range clineEvents()[hookFile] {
				h := &hooks.Hook{
					Name: name, Type: hooks.TypeCommand, Event: ev.event, Command: path,
					Timeout: ToolTimeout, Enabled: true,
					Source:  hooks.Source{Format: f.Name(), Scope: d.Scope, File: path},
					Options: json.RawMessage(fmt.Sprintf(`{"hostEvent":%q}`, hookFile)),
					Dialect: ClineDialect{HookName: ev.hookName, Argv: argv},
				}
				if hookFile == "TaskResume" {
					h.Matcher = &hooks.Matcher{Field: "source", Regex: "^resume$"}
				}
				out.Hooks = append(out.Hooks, h)
			}
		}
	}
	return out, nil
}

// ClineDialect runs a Cline hook file the way Cline does.
type ClineDialect struct {
	HookName string   // the SDK's name of the event (tool_call, …)
	Argv     []string // how the file runs
}

// Stdin is Cline's JSON: the payload, with hookName, taskId (the agent's session id, else
// agent-hooks'), timestamp, workspaceRoots and, for tool events, tool_call or tool_result filled
// in when absent.
func (d ClineDialect) Stdin(inv *hooks.Invocation) ([]byte, error) {
	in := make(hooks.Payload, len(inv.Payload)+6)
	for k, v := range inv.Payload {
		in[k] = v
	}
	setDefault := func(k string, v any) {
		if _, ok := in[k]; !ok && v != nil {
			in[k] = v
		}
	}
	setDefault("hookName", d.HookName)
	setDefault("clineVersion", "")
	setDefault("taskId", inv.Payload["agentSessionId"])
	setDefault("taskId", inv.SessionID)
	setDefault("timestamp", time.Now().UTC().Format(time.RFC3339Nano))
	setDefault("workspaceRoots", []any{inv.Workspace})
	if tool, ok := inv.Payload["toolName"]; ok {
		call := map[string]any{"name": tool, "input": inv.Payload["toolInput"]}
		if id, ok := inv.Payload["toolUseId"]; ok {
			call["id"] = id
		}
		switch d.HookName {
		case "tool_call":
			setDefault("tool_call", call)
		case "tool_result":
			setDefault("tool_result", call)
		}
	}
	return seedfmt.PayloadJSON(in)
}

// Prepare implements hooks.Dialect.
func (d ClineDialect) Prepare(inv *hooks.Invocation) (process.Process, error) {
	stdin, err := d.Stdin(inv)
	if err != nil {
		return process.Process{}, err
	}
	return process.Process{Argv: d.Argv, Stdin: stdin}, nil
}

// clineControl is the JSON a Cline hook may print.
type clineControl struct {
	Cancel              bool   `json:"cancel"`
	Context             string `json:"context"`
	ContextModification string `json:"contextModification"`
	ErrorMessage        string `json:"errorMessage"`
}

// Interpret implements hooks.Dialect with Cline's conventions: the exit code does not matter
// (a failure is a warning); stdout's last HOOK_CONTROL line, else the whole of it, is JSON whose
// cancel blocks with errorMessage; context, contextModification (and errorMessage when it does
// not cancel) are feedback.
func (d ClineDialect) Interpret(inv *hooks.Invocation, p *process.Result) hooks.Outcome {
	o, done := seedfmt.Finish(p)
	if done {
		if o.Status == hooks.StatusTimeout {
			o.Reason = fmt.Sprintf("hook %q timed out after %s", inv.Hook.Command, inv.Hook.Timeout)
		}
		return o
	}
	text := strings.TrimSpace(p.Stdout)
	for _, line := range strings.Split(text, "\n") {
		if c, ok := strings.CutPrefix(line, "HOOK_CONTROL\t"); ok {
			text = c
		}
	}
	var c clineControl
	if strings.HasPrefix(text, "{") && json.Unmarshal([]byte(text), &c) == nil {
		if c.Cancel {
			return hostfmt.Block(o, hostfmt.FirstOf(c.ErrorMessage, "cancelled by hook "+inv.Hook.Command))
		}
		o.Feedback = strings.TrimSpace(strings.Join(hostfmt.NonEmpty(c.Context, c.ContextModification, c.ErrorMessage), "\n"))
	}
	if p.ExitCode != 0 {
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %q failed with exit code %d: %s", inv.Hook.Command, p.ExitCode, seedfmt.Reason(p))
	}
	return o
}
