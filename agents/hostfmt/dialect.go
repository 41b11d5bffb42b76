package hostfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// Dialect runs a host's command hook the way the host does.
type Dialect struct {
	// ProjectDirEnv is the variable that names the project to the hook (CLAUDE_PROJECT_DIR),
	// "" for none.
	ProjectDirEnv string
	// AnyExitJSON: the agent reads the hook's JSON whatever its exit code (Claude Code), not on
	// exit 0 only (Codex).
	AnyExitJSON bool
	HostEvent   string   // the event's name in the host's settings
	Args        []string // Claude's exec form: the command is the program, run with these arguments
}

// aliases fill the host's stdin fields from agent-hooks' camelCase payload when the caller gave
// only those (agent-hooks hook passes the host's own fields through unchanged).
var aliases = [][2]string{
	{"tool_name", "toolName"}, {"tool_input", "toolInput"}, {"tool_use_id", "toolUseId"},
	{"transcript_path", "transcriptPath"}, {"tool_response", "toolResponse"},
}

// Stdin is the host's JSON for the hook: the payload (agent-hooks' fields and whatever the host
// or the caller put in it), with the fields every host hook reads filled in when absent —
// session_id (the agent's session id, else agent-hooks'), cwd, hook_event_name, transcript_path
// and the tool fields.
func (d Dialect) Stdin(inv *hooks.Invocation) ([]byte, error) {
	in := HostStdin(inv, d.HostEvent, "session_id")
	if _, ok := in["transcript_path"]; !ok {
		in["transcript_path"] = ""
	}
	return seedfmt.PayloadJSON(in)
}

// Prepare implements hooks.Dialect: `sh -c` on the command as written (no template: the agent
// does not expand any), or Claude Code's exec form; the agent's JSON on stdin; its project
// variable.
func (d Dialect) Prepare(inv *hooks.Invocation) (process.Process, error) {
	stdin, err := d.Stdin(inv)
	if err != nil {
		return process.Process{}, err
	}
	argv := []string{"sh", "-c", inv.Hook.Command}
	if len(d.Args) > 0 {
		argv = append([]string{inv.Hook.Command}, d.Args...)
	}
	var env []string
	if d.ProjectDirEnv != "" {
		env = append(env, d.ProjectDirEnv+"="+inv.Workspace)
	}
	return process.Process{Argv: argv, Stdin: stdin, Env: env}, nil
}

// output is the JSON a host hook may print.
type output struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	SystemMessage string `json:"systemMessage"`
	Specific      struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
		Decision                 struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// Interpret implements hooks.Dialect with the host's conventions: a JSON object on stdout
// (Claude reads it whatever the exit code, Codex on exit 0 only) blocks with decision "block",
// permissionDecision "deny" (or "ask": there is no one to ask, so it blocks), a PermissionRequest
// decision "deny", or continue false; exit 2 blocks with stderr; another non-zero exit is an
// error. additionalContext and systemMessage become the hook's feedback.
func (d Dialect) Interpret(inv *hooks.Invocation, p *process.Result) hooks.Outcome {
	o, done := Finish(inv, p)
	if done {
		return o
	}
	out, isJSON := ParseOutput(p.Stdout)
	if isJSON && (d.AnyExitJSON || p.ExitCode == 0) {
		o.Feedback = strings.TrimSpace(strings.Join(NonEmpty(out.Specific.AdditionalContext, out.SystemMessage), "\n"))
		s := out.Specific
		switch {
		case s.PermissionDecision == "deny" || out.Decision == "block" || s.Decision.Behavior == "deny":
			return Block(o, FirstOf(s.PermissionDecisionReason, out.Reason, s.Decision.Message, "blocked by hook "+inv.Hook.Command))
		case s.PermissionDecision == "ask":
			return Block(o, "the hook asks for permission, and there is no one to ask: "+FirstOf(s.PermissionDecisionReason, out.Reason, inv.Hook.Command))
		case out.Continue != nil && !*out.Continue:
			return Block(o, FirstOf(out.StopReason, out.Reason, "hook "+inv.Hook.Command+" stopped the agent"))
		case s.PermissionDecision == "allow" || out.Decision == "approve" || s.Decision.Behavior == "allow":
			o.Decision = hooks.DecisionApprove
		}
	}
	o, _ = ExitCode(o, inv, p)
	return o
}

// ExitCode reads a hook's exit code as Claude Code does: 0 passes, 2 blocks with stderr as the
// reason, any other code is an error. done reports that o is decided by it.
func ExitCode(o hooks.Outcome, inv *hooks.Invocation, p *process.Result) (_ hooks.Outcome, done bool) {
	switch p.ExitCode {
	case 0:
		return o, false
	case 2:
		return Block(o, FirstOf(strings.TrimSpace(p.Stderr), fmt.Sprintf("hook %q exited 2 without a reason", inv.Hook.Command))), true
	}
	o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %q failed with exit code %d: %s", inv.Hook.Command, p.ExitCode, seedfmt.Reason(p))
	return o, true
}

// Finish is seedfmt.Finish with a timeout's reason naming the hook and its timeout.
func Finish(inv *hooks.Invocation, p *process.Result) (hooks.Outcome, bool) {
	o, done := seedfmt.Finish(p)
	if done && o.Status == hooks.StatusTimeout {
		o.Reason = fmt.Sprintf("hook %q timed out after %s", inv.Hook.Command, inv.Hook.Timeout)
	}
	return o, done
}

func Block(o hooks.Outcome, reason string) hooks.Outcome {
	o.Status, o.Decision, o.Reason = hooks.StatusBlocked, hooks.DecisionBlock, reason
	return o
}

func ParseOutput(stdout string) (output, bool) {
	var out output
	b := bytes.TrimSpace([]byte(stdout))
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &out) != nil {
		return out, false
	}
	return out, true
}

func FirstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func NonEmpty(s ...string) []string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// HostStdin is the payload with the fields every host hook reads filled in when absent: the
// session id under idKey (the agent's session id, else agent-hooks'), cwd, hook_event_name and
// the tool fields from agent-hooks' camelCase ones.
func HostStdin(inv *hooks.Invocation, hostEvent, idKey string) hooks.Payload {
	in := make(hooks.Payload, len(inv.Payload)+6)
	for k, v := range inv.Payload {
		in[k] = v
	}
	setDefault := func(k string, v any) {
		if _, ok := in[k]; !ok {
			in[k] = v
		}
	}
	if id, ok := inv.Payload["agentSessionId"]; ok {
		setDefault(idKey, id)
	}
	setDefault(idKey, inv.SessionID)
	setDefault("cwd", inv.Workspace)
	setDefault("hook_event_name", hostEvent)
	for _, a := range aliases {
		if v, ok := inv.Payload[a[1]]; ok {
			setDefault(a[0], v)
		}
	}
	return in
}
