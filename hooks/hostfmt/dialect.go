package hostfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// Dialect runs a host's command hook the way the host does.
type Dialect struct {
	Host      string   // "claude" or "codex"
	HostEvent string   // the event's name in the host's settings
	Args      []string // Claude's exec form: the command is the program, run with these arguments
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
	in := hostStdin(inv, d.HostEvent, "session_id")
	if _, ok := in["transcript_path"]; !ok {
		in["transcript_path"] = ""
	}
	return seedfmt.PayloadJSON(in)
}

// Prepare implements hooks.Dialect: `sh -c` on the command as written (no template: the host
// does not expand any), or Claude's exec form; the host's JSON on stdin; CLAUDE_PROJECT_DIR.
func (d Dialect) Prepare(inv *hooks.Invocation) (hooks.Process, error) {
	stdin, err := d.Stdin(inv)
	if err != nil {
		return hooks.Process{}, err
	}
	argv := []string{"sh", "-c", inv.Hook.Command}
	if len(d.Args) > 0 {
		argv = append([]string{inv.Hook.Command}, d.Args...)
	}
	var env []string
	if d.Host == "claude" {
		env = append(env, "CLAUDE_PROJECT_DIR="+inv.Workspace)
	}
	return hooks.Process{Argv: argv, Stdin: stdin, Env: env}, nil
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
func (d Dialect) Interpret(inv *hooks.Invocation, p *hooks.ProcessResult) hooks.Outcome {
	o, done := finish(inv, p)
	if done {
		return o
	}
	out, isJSON := parseOutput(p.Stdout)
	if isJSON && (d.Host == "claude" || p.ExitCode == 0) {
		o.Feedback = strings.TrimSpace(strings.Join(nonEmpty(out.Specific.AdditionalContext, out.SystemMessage), "\n"))
		s := out.Specific
		switch {
		case s.PermissionDecision == "deny" || out.Decision == "block" || s.Decision.Behavior == "deny":
			return block(o, firstOf(s.PermissionDecisionReason, out.Reason, s.Decision.Message, "blocked by hook "+inv.Hook.Command))
		case s.PermissionDecision == "ask":
			return block(o, "the hook asks for permission, and there is no one to ask: "+firstOf(s.PermissionDecisionReason, out.Reason, inv.Hook.Command))
		case out.Continue != nil && !*out.Continue:
			return block(o, firstOf(out.StopReason, out.Reason, "hook "+inv.Hook.Command+" stopped the agent"))
		case s.PermissionDecision == "allow" || out.Decision == "approve" || s.Decision.Behavior == "allow":
			o.Decision = hooks.DecisionApprove
		}
	}
	o, _ = exitCode(o, inv, p)
	return o
}

// exitCode reads a hook's exit code as Claude Code does: 0 passes, 2 blocks with stderr as the
// reason, any other code is an error. done reports that o is decided by it.
func exitCode(o hooks.Outcome, inv *hooks.Invocation, p *hooks.ProcessResult) (_ hooks.Outcome, done bool) {
	switch p.ExitCode {
	case 0:
		return o, false
	case 2:
		return block(o, firstOf(strings.TrimSpace(p.Stderr), fmt.Sprintf("hook %q exited 2 without a reason", inv.Hook.Command))), true
	}
	o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %q failed with exit code %d: %s", inv.Hook.Command, p.ExitCode, seedfmt.Reason(p))
	return o, true
}

// finish is seedfmt.Finish with a timeout's reason naming the hook and its timeout.
func finish(inv *hooks.Invocation, p *hooks.ProcessResult) (hooks.Outcome, bool) {
	o, done := seedfmt.Finish(p)
	if done && o.Status == hooks.StatusTimeout {
		o.Reason = fmt.Sprintf("hook %q timed out after %s", inv.Hook.Command, inv.Hook.Timeout)
	}
	return o, done
}

func block(o hooks.Outcome, reason string) hooks.Outcome {
	o.Status, o.Decision, o.Reason = hooks.StatusBlocked, hooks.DecisionBlock, reason
	return o
}

func parseOutput(stdout string) (output, bool) {
	var out output
	b := bytes.TrimSpace([]byte(stdout))
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &out) != nil {
		return out, false
	}
	return out, true
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
