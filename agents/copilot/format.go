package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
	"github.com/autoagent/agent-hooks/internal/configfile"
)

// format is GitHub Copilot CLI's hooks files as a format (format "copilot"): every *.json
// of the repository's .github/hooks/ and of ~/.copilot/hooks/ ($COPILOT_HOME/hooks), version 1.
// Their command hooks run as Copilot runs them: `bash -c` on "bash" (else "command"), in the
// entry's cwd, with its env and COPILOT_PROJECT_DIR, Copilot's camelCase JSON on stdin, timeoutSec
// in seconds (30 by default), and Copilot's answers (permissionDecision, behavior, decision
// "block", additionalContext; a preToolUse hook that exits non-zero denies).
type format struct{}

// Format implements agents.Agent: Copilot CLI's hooks files as a format.
func (Agent) Format() hooks.Format { return format{} }

// Name implements hooks.Format.
func (format) Name() string { return settings().Name }

// Load implements hooks.Format.
func (f format) Load(env hooks.LoadEnv) (hooks.Loaded, error) {
	if env.Agent == f.Name() {
		return hooks.Loaded{}, nil // Copilot runs these itself
	}
	var out hooks.Loaded
	ds := dirs(hostsettings.Env{Workspace: env.Workspace, Home: env.UserHome, Getenv: env.Getenv})
	for _, d := range []hostsettings.File{ds[1], ds[0]} { // the project's hooks run first
		if d.Scope == hostsettings.User && (env.UserHome == "" || env.DisableUserHooks) {
			continue
		}
		paths, err := filepath.Glob(filepath.Join(d.Path, "*.json"))
		if err != nil {
			return hooks.Loaded{}, err
		}
		sort.Strings(paths)
		for _, p := range paths {
			src, err := configfile.Read(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return hooks.Loaded{}, err
			}
			hs, ds := f.parse(hostfmt.File{Path: p, Scope: string(d.Scope)}, src)
			out.Hooks = append(out.Hooks, hs...)
			out.Diagnostics = append(out.Diagnostics, ds...)
		}
	}
	return out, nil
}

// copilotHook is one entry of a Copilot hooks file.
type copilotHook struct {
	Type       string            `json:"type"`
	Bash       string            `json:"bash"`
	Command    string            `json:"command"`
	Cwd        string            `json:"cwd"`
	Env        map[string]string `json:"env"`
	TimeoutSec *float64          `json:"timeoutSec"`
	Timeout    *float64          `json:"timeout"`
	Matcher    string            `json:"matcher"`
}

// copilotMatched are the payload fields Copilot matches an event's matcher against (as an
// anchored regular expression).
var copilotMatched = sync.OnceValue(func() map[string]string {
	return map[string]string{
		hooks.PreToolUse: "toolName", hooks.PostToolUse: "toolName", hooks.PostToolUseFailure: "toolName",
		hooks.PermissionRequest: "toolName", hooks.PreCompact: "trigger", hooks.Notification: "notification_type",
		hooks.SubagentStart: "agentName",
	}
})

// parse reads one hooks file: one Copilot ignores is an error (a gate there must not silently
// not run), a hook it drops a warning.
func (f format) parse(fl hostfmt.File, src []byte) ([]*hooks.Hook, []hooks.Diagnostic) {
	diags, ignored := hostfmt.Findings(settings(), fl.Path, src)
	if ignored || len(bytes.TrimSpace(src)) == 0 {
		return nil, diags
	}
	var s struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(src, &s); err != nil {
		return nil, append(diags, hooks.Diagnostic{Severity: hooks.SeverityError, File: fl.Path, Message: err.Error()})
	}
	events := make([]string, 0, len(s.Hooks))
	for ev := range s.Hooks {
		events = append(events, ev)
	}
	sort.Strings(events)
	var out []*hooks.Hook
	for _, ev := range events {
		canonical, ok := Agent{}.Event(ev)
		if !ok {
			continue // an event of Copilot's that agent-hooks never fires
		}
		for i, raw := range s.Hooks[ev] {
			var ch copilotHook
			if json.Unmarshal(raw, &ch) != nil {
				continue // reported by the check above
			}
			command := hostfmt.FirstOf(ch.Bash, ch.Command)
			if ch.Type != "" && ch.Type != "command" || command == "" || hostsettings.AgentHooksCommand(command) {
				if ch.Type != "" && ch.Type != "command" {
					diags = append(diags, seedfmt.Warning(fl.Path, 0, 0, "hooks.%s[%d]: agent-hooks runs command hooks only, not %q", ev, i, ch.Type))
				}
				continue
			}
			h := &hooks.Hook{
				Name: command, Type: hooks.TypeCommand, Event: canonical, Command: command,
				Timeout: DefaultTimeout, Enabled: true, Env: ch.Env,
				Source:  hooks.Source{Format: f.Name(), Scope: fl.Scope, File: fl.Path},
				Options: json.RawMessage(fmt.Sprintf(`{"hostEvent":%q}`, ev)),
				Dialect: CopilotDialect{HostEvent: ev, Cwd: ch.Cwd, HookDir: filepath.Dir(fl.Path)},
			}
			for _, t := range []*float64{ch.TimeoutSec, ch.Timeout} {
				if t != nil && *t > 0 {
					h.Timeout = time.Duration(*t * float64(time.Second))
					break
				}
			}
			if field, ok := copilotMatched()[canonical]; ok && ch.Matcher != "" {
				h.Matcher = &hooks.Matcher{Field: field, Regex: "^(?:" + ch.Matcher + ")$"}
			}
			out = append(out, h)
		}
	}
	return out, diags
}

// CopilotDialect runs a Copilot command hook the way Copilot does.
type CopilotDialect struct {
	HostEvent string // the event's key in the hooks file
	Cwd       string // the entry's cwd, relative to the repository
	HookDir   string // the folder of the hooks file (COPILOT_HOOK_DIR)
}

// Stdin is Copilot's camelCase JSON: the payload, with sessionId (the agent's session id, else
// agent-hooks'), timestamp (milliseconds), cwd, toolName and toolArgs filled in when absent.
func (d CopilotDialect) Stdin(inv *hooks.Invocation) ([]byte, error) {
	in := make(hooks.Payload, len(inv.Payload)+5)
	for k, v := range inv.Payload {
		in[k] = v
	}
	setDefault := func(k string, v any) {
		if _, ok := in[k]; !ok && v != nil {
			in[k] = v
		}
	}
	setDefault("sessionId", inv.Payload["agentSessionId"])
	setDefault("sessionId", inv.SessionID)
	setDefault("cwd", inv.Workspace)
	setDefault("toolName", inv.Payload["tool_name"])
	setDefault("toolArgs", inv.Payload["toolInput"])
	setDefault("toolArgs", inv.Payload["tool_input"])
	if _, ok := in["timestamp"].(float64); !ok {
		in["timestamp"] = time.Now().UnixMilli()
	}
	return seedfmt.PayloadJSON(in)
}

// Prepare implements hooks.Dialect.
func (d CopilotDialect) Prepare(inv *hooks.Invocation) (process.Process, error) {
	stdin, err := d.Stdin(inv)
	if err != nil {
		return process.Process{}, err
	}
	dir := ""
	if d.Cwd != "" {
		dir = d.Cwd
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(inv.Workspace, dir)
		}
	}
	env := []string{"COPILOT_PROJECT_DIR=" + inv.Workspace, "CLAUDE_PROJECT_DIR=" + inv.Workspace, "COPILOT_HOOK_DIR=" + d.HookDir}
	return process.Process{Argv: []string{"bash", "-c", inv.Hook.Command}, Stdin: stdin, Env: env, Dir: dir}, nil
}

// copilotOutput is the JSON a Copilot hook may print.
type copilotOutput struct {
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
	Behavior                 string `json:"behavior"`
	Message                  string `json:"message"`
	Decision                 string `json:"decision"`
	Reason                   string `json:"reason"`
	AdditionalContext        string `json:"additionalContext"`
}

// Interpret implements hooks.Dialect with Copilot's conventions: one JSON object on stdout (exit
// 0) denies with permissionDecision "deny" (or "ask": there is no one to ask), behavior "deny"
// or decision "block"; additionalContext is feedback. Exit 2 denies a preToolUse or a
// permissionRequest; any other non-zero exit denies a preToolUse ("hook errored") and is an
// error elsewhere.
func (d CopilotDialect) Interpret(inv *hooks.Invocation, p *process.Result) hooks.Outcome {
	o, done := seedfmt.Finish(p)
	if done {
		if o.Status == hooks.StatusTimeout {
			o.Reason = fmt.Sprintf("hook %q timed out after %s", inv.Hook.Command, inv.Hook.Timeout)
		}
		return o
	}
	gate := inv.Event == hooks.PreToolUse || inv.Event == hooks.PermissionRequest
	var out copilotOutput
	b := bytes.TrimSpace([]byte(p.Stdout))
	if p.ExitCode == 0 && len(b) > 0 && b[0] == '{' && json.Unmarshal(b, &out) == nil {
		o.Feedback = strings.TrimSpace(out.AdditionalContext)
		switch {
		case out.PermissionDecision == "deny" || out.Behavior == "deny" || out.Decision == "block":
			return hostfmt.Block(o, hostfmt.FirstOf(out.PermissionDecisionReason, out.Message, out.Reason, "blocked by hook "+inv.Hook.Command))
		case out.PermissionDecision == "ask":
			return hostfmt.Block(o, "the hook asks for permission, and there is no one to ask: "+hostfmt.FirstOf(out.PermissionDecisionReason, inv.Hook.Command))
		case out.PermissionDecision == "allow" || out.Behavior == "allow":
			o.Decision = hooks.DecisionApprove
		}
	}
	switch {
	case p.ExitCode == 0:
	case gate && (p.ExitCode == 2 || inv.Event == hooks.PreToolUse):
		return hostfmt.Block(o, hostfmt.FirstOf(strings.TrimSpace(p.Stderr), fmt.Sprintf("hook %q exited %d", inv.Hook.Command, p.ExitCode)))
	default:
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %q failed with exit code %d: %s", inv.Hook.Command, p.ExitCode, seedfmt.Reason(p))
	}
	return o
}
