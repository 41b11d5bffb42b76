package cursor

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents/hostfmt"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// Dialect runs a Cursor command hook the way Cursor does: `sh -c` on the command (from the
// project, or ~/.cursor for a user's hook), Cursor's JSON on stdin, CURSOR_PROJECT_DIR, and
// Cursor's reading of the output.
type Dialect struct {
	HostEvent string // the event's name in hooks.json (beforeShellExecution)
	Dir       string // where the hook runs ("" for the workspace)
}

// Stdin is Cursor's JSON for the hook: the payload, with what Cursor's hooks read filled in
// when absent — conversation_id, hook_event_name, workspace_roots, the tool fields, and the
// command, file_path or tool_input of the events that carry them apart (beforeShellExecution,
// beforeReadFile, afterFileEdit, beforeMCPExecution).
func (d Dialect) Stdin(inv *hooks.Invocation) ([]byte, error) {
	in := hostfmt.HostStdin(inv, d.HostEvent, "conversation_id")
	setDefault := func(k string, v any) {
		if _, ok := in[k]; !ok && v != nil {
			in[k] = v
		}
	}
	setDefault("workspace_roots", []any{inv.Workspace})
	toolInput, _ := inv.Payload["toolInput"].(map[string]any)
	switch d.HostEvent {
	case "beforeShellExecution", "afterShellExecution":
		setDefault("command", toolInput["command"])
	case "beforeReadFile", "afterFileEdit":
		setDefault("file_path", toolInput["file_path"])
	case "beforeMCPExecution", "afterMCPExecution":
		if s, ok := in["tool_input"].(map[string]any); ok {
			b, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			in["tool_input"] = string(b) // Cursor gives these as JSON text
		}
	}
	return seedfmt.PayloadJSON(in)
}

// Prepare implements hooks.Dialect.
func (d Dialect) Prepare(inv *hooks.Invocation) (process.Process, error) {
	stdin, err := d.Stdin(inv)
	if err != nil {
		return process.Process{}, err
	}
	env := []string{"CURSOR_PROJECT_DIR=" + inv.Workspace, "CLAUDE_PROJECT_DIR=" + inv.Workspace}
	return process.Process{Argv: []string{"sh", "-c", inv.Hook.Command}, Stdin: stdin, Env: env, Dir: d.Dir}, nil
}

// hookOutput is the JSON a Cursor hook may print: Cursor's own fields, and the Claude Code
// ones Cursor also accepts.
type hookOutput struct {
	Permission        string `json:"permission"`
	Continue          *bool  `json:"continue"`
	UserMessage       string `json:"user_message"`
	AgentMessage      string `json:"agent_message"`
	FollowupMessage   string `json:"followup_message"`
	AdditionalContext string `json:"additional_context"`
	Decision          string `json:"decision"`
	Reason            string `json:"reason"`
	Specific          struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Interpret implements hooks.Dialect as Cursor reads a hook: on exit 0 its JSON — permission
// "deny" (or "ask": there is no one to ask) blocks, continue false blocks a prompt, a
// followup_message keeps a stop from ending the turn, permission "allow" grants,
// additional_context is feedback — and hookOutput that is not JSON is a failure; exit 2 blocks with
// stderr; another code is a failure. A failure blocks when the entry fails closed (the hook is
// blocking), as in Cursor.
func (d Dialect) Interpret(inv *hooks.Invocation, p *process.Result) hooks.Outcome {
	o, done := hostfmt.Finish(inv, p)
	if done {
		return o
	}
	if o, done = hostfmt.ExitCode(o, inv, p); done {
		return o
	}
	text := strings.TrimSpace(p.Stdout)
	if text == "" {
		return o
	}
	var out hookOutput
	if json.Unmarshal([]byte(text), &out) != nil {
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %q printed hookOutput that is not JSON", inv.Hook.Command)
		return o
	}
	o.Feedback = strings.TrimSpace(strings.Join(hostfmt.NonEmpty(out.AdditionalContext, out.Specific.AdditionalContext), "\n"))
	reason := hostfmt.FirstOf(out.AgentMessage, out.UserMessage, out.Specific.PermissionDecisionReason, out.Reason)
	switch {
	case out.Permission == "deny" || out.Specific.PermissionDecision == "deny" || out.Decision == "block":
		return hostfmt.Block(o, hostfmt.FirstOf(reason, out.FollowupMessage, "blocked by hook "+inv.Hook.Command))
	case out.Permission == "ask" || out.Specific.PermissionDecision == "ask":
		return hostfmt.Block(o, "the hook asks for permission, and there is no one to ask: "+hostfmt.FirstOf(reason, inv.Hook.Command))
	case out.Continue != nil && !*out.Continue:
		return hostfmt.Block(o, hostfmt.FirstOf(reason, "hook "+inv.Hook.Command+" stopped the prompt"))
	case out.FollowupMessage != "":
		return hostfmt.Block(o, out.FollowupMessage) // on stop: keep working on it
	case out.Permission == "allow" || out.Specific.PermissionDecision == "allow":
		o.Decision = hooks.DecisionApprove
	}
	return o
}

// entry is one entry of Cursor's hooks.json.
type entry struct {
	Command    string   `json:"command"`
	Type       string   `json:"type"`
	Timeout    *float64 `json:"timeout"`
	Matcher    *string  `json:"matcher"`
	FailClosed bool     `json:"failClosed"`
}

// eventTools are the tools of Cursor's events that are about one kind of tool call, in the
// "tools" syntax (matched against the tool's name and its aliases, whichever agent fired the
// event: Cursor's Shell, Claude's Bash, Gemini's run_shell_command all answer to Bash).
var eventTools = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"beforeShellExecution": "Shell|Bash", "afterShellExecution": "Shell|Bash",
		"beforeMCPExecution": "^(MCP:|mcp_)", "afterMCPExecution": "^(MCP:|mcp_)",
		"beforeReadFile": "Read", "afterFileEdit": "Write|Edit|MultiEdit",
	}
})

// parse reads Cursor's hooks.json: flat command entries under Cursor's events. An entry that
// fails closed is a blocking hook (its failure blocks, as in Cursor); a user's hook runs from
// ~/.cursor, a project's from the project.
func parse(f hostfmt.Format, fl hostfmt.File, src []byte) ([]*hooks.Hook, []hooks.Diagnostic) {
	warn := func(format string, args ...any) hooks.Diagnostic {
		return hooks.Diagnostic{Severity: hooks.SeverityWarning, File: fl.Path, Message: fmt.Sprintf(format, args...)}
	}
	var s struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(src, &s); err != nil {
		return nil, []hooks.Diagnostic{{Severity: hooks.SeverityError, File: fl.Path, Message: err.Error()}}
	}
	dir := ""
	if fl.Scope == "user" {
		dir = filepath.Dir(fl.Path)
	}
	var out []*hooks.Hook
	var diags []hooks.Diagnostic
	for _, ev := range slices.Sorted(maps.Keys(s.Hooks)) {
		canonical, ok := f.Canonical(ev)
		if !ok {
			continue // an event of Cursor's that agent-hooks never fires
		}
		for i, raw := range s.Hooks[ev] {
			var ch entry
			if err := json.Unmarshal(raw, &ch); err != nil {
				diags = append(diags, warn("hooks.%s[%d]: %v; it does not run", ev, i, err))
				continue
			}
			switch {
			case ch.Type != "" && ch.Type != "command":
				diags = append(diags, warn("hooks.%s[%d]: agent-hooks runs command hooks only, not %q", ev, i, ch.Type))
				continue
			case ch.Command == "" || hostsettings.AgentHooksCommand(ch.Command):
				continue
			}
			h := f.NewHook(fl, canonical, ev, ch.Command, nil, Dialect{HostEvent: ev, Dir: dir})
			h.Timeout = DefaultTimeout
			if ch.Timeout != nil && *ch.Timeout > 0 {
				h.Timeout = time.Duration(*ch.Timeout * float64(time.Second))
			}
			h.Blocking = ch.FailClosed
			if t, ok := eventTools()[ev]; ok {
				h.Tools, _ = hooks.CompileTools(t) // constant patterns: they compile
			}
			m, bad := matcher(ev, canonical, ch.Matcher)
			if bad != "" {
				diags = append(diags, warn("hooks.%s[%d]: %s; it never runs", ev, i, bad))
				continue
			}
			h.Matcher = m
			out = append(out, h)
		}
	}
	return out, diags
}

// matcher turns a Cursor matcher into agent-hooks' matcher: the tool's name on
// preToolUse, postToolUse and postToolUseFailure (as Claude's matchers are read), the command on
// the shell events (an unanchored regular expression: "curl|wget"), the subagent's type on the
// subagent events; other events' matchers name the event itself and select nothing more.
func matcher(ev, canonical string, m *string) (*hooks.Matcher, string) {
	if m == nil || *m == "" || *m == "*" {
		return nil, ""
	}
	field := ""
	switch ev {
	case "preToolUse", "postToolUse", "postToolUseFailure":
		mt, bad := hostfmt.ToolMatcher(canonical, m)
		if mt != nil {
			mt.Field = "toolName" // every agent's events carry it (Cursor's shell events no tool_name)
		}
		return mt, bad
	case "beforeShellExecution", "afterShellExecution":
		field = "toolInput.command"
	case "subagentStart", "subagentStop":
		field = "subagent_type"
	default:
		return nil, ""
	}
	if _, err := regexp.Compile(*m); err != nil {
		return nil, fmt.Sprintf("matcher %q is not a regular expression agent-hooks can read: %v", *m, err)
	}
	return &hooks.Matcher{Field: field, Regex: *m}, ""
}

// Format implements agents.Agent: Cursor's hooks.json files as a format (format "cursor"): flat
// entries under its camelCase events.
func (Agent) Format() hooks.Format {
	return hostfmt.New(hostfmt.Spec{Settings: settings(), ProjectDirEnv: Agent{}.ProjectDirEnv(), Canonical: Agent{}.Event, Parse: parse})
}
