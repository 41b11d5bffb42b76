package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/agents/hostfmt"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// Dialect runs a Gemini CLI command hook the way Gemini does: `bash -c` on the command,
// Gemini's JSON on stdin, GEMINI_PROJECT_DIR (and its other variables), and Gemini's reading of
// the output.
type Dialect struct {
	HostEvent string            // the event's name in Gemini's settings (BeforeTool)
	Env       map[string]string // the hook's own "env"
}

// Stdin is Gemini's JSON for the hook: the payload, with what Gemini's hooks read filled in when
// absent — session_id, cwd, hook_event_name, transcript_path, tool_name and tool_input — and
// timestamp as Gemini writes it (an ISO 8601 string, where agent-hooks' is milliseconds).
func (d Dialect) Stdin(inv *hooks.Invocation) ([]byte, error) {
	in := hostfmt.HostStdin(inv, d.HostEvent, "session_id")
	switch ts := inv.Payload["timestamp"].(type) {
	case json.Number:
		if ms, err := ts.Int64(); err == nil {
			in["timestamp"] = time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
		}
	case int64:
		in["timestamp"] = time.UnixMilli(ts).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	return seedfmt.PayloadJSON(in)
}

// Prepare implements hooks.Dialect.
func (d Dialect) Prepare(inv *hooks.Invocation) (process.Process, error) {
	stdin, err := d.Stdin(inv)
	if err != nil {
		return process.Process{}, err
	}
	id := inv.SessionID
	if s, ok := inv.Payload["agentSessionId"].(string); ok && s != "" {
		id = s
	}
	env := []string{"GEMINI_PROJECT_DIR=" + inv.Workspace, "GEMINI_CWD=" + inv.Workspace,
		"GEMINI_SESSION_ID=" + id, "CLAUDE_PROJECT_DIR=" + inv.Workspace}
	for _, k := range slices.Sorted(maps.Keys(d.Env)) {
		env = append(env, k+"="+d.Env[k])
	}
	return process.Process{Argv: []string{"bash", "-c", inv.Hook.Command}, Stdin: stdin, Env: env}, nil
}

// geminiOutput is the JSON a Gemini hook may print.
type geminiOutput struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	SystemMessage string `json:"systemMessage"`
	Specific      struct {
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Interpret implements hooks.Dialect as Gemini reads a hook: its stdout, else its stderr, as
// JSON whatever the exit code — decision "deny" or "block" blocks, "ask" blocks (there is no one
// to ask), continue false blocks, "allow" grants; additionalContext and systemMessage are its
// feedback. Text that is not JSON: exit 0 passes, exit 1 is an error, any other code blocks with
// the text. Unlike Gemini, which lets the tool run, exit 2 or more with no word at all blocks too:
// a gate that cannot say why still meant to block.
func (d Dialect) Interpret(inv *hooks.Invocation, p *process.Result) hooks.Outcome {
	o, done := hostfmt.Finish(inv, p)
	if done {
		return o
	}
	text := strings.TrimSpace(p.Stdout)
	if text == "" {
		text = strings.TrimSpace(p.Stderr)
	}
	var out geminiOutput
	if b := []byte(text); len(b) > 0 && b[0] == '{' && json.NewDecoder(bytes.NewReader(b)).Decode(&out) == nil {
		o.Feedback = strings.TrimSpace(strings.Join(hostfmt.NonEmpty(out.Specific.AdditionalContext, out.SystemMessage), "\n"))
		switch {
		case out.Decision == "deny" || out.Decision == "block":
			return hostfmt.Block(o, hostfmt.FirstOf(out.Reason, "blocked by hook "+inv.Hook.Command))
		case out.Decision == "ask":
			return hostfmt.Block(o, "the hook asks for confirmation, and there is no one to ask: "+hostfmt.FirstOf(out.Reason, inv.Hook.Command))
		case out.Continue != nil && !*out.Continue:
			return hostfmt.Block(o, hostfmt.FirstOf(out.StopReason, out.Reason, "hook "+inv.Hook.Command+" stopped the agent"))
		case out.Decision == "allow" || out.Decision == "approve":
			o.Decision = hooks.DecisionApprove
		}
		return o
	}
	switch {
	case p.ExitCode == 0:
	case p.ExitCode == 1:
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook %q failed with exit code 1: %s", inv.Hook.Command, seedfmt.Reason(p))
	default:
		return hostfmt.Block(o, hostfmt.FirstOf(text, fmt.Sprintf("hook %q exited %d without a reason", inv.Hook.Command, p.ExitCode)))
	}
	return o
}

// geminiMatchField is the field a Gemini matcher is compared with, per event: a tool event's is
// a regular expression tested anywhere in the tool's name; the others' are compared whole.
var geminiMatchField = sync.OnceValue(func() map[string]string {
	return map[string]string{
		hooks.PreToolUse: "tool_name", hooks.PostToolUse: "tool_name",
		hooks.SessionStart: "source", hooks.SessionEnd: "reason", hooks.PreCompact: "trigger",
	}
})

// matcher turns a Gemini matcher into agent-hooks' the way Gemini reads it: empty or "*"
// matches everything; on BeforeTool and AfterTool an unanchored regular expression ("shell"
// matches run_shell_command), or the exact name when it does not compile; elsewhere the exact
// value of source, reason or trigger.
func matcher(event string, m *string) (*hooks.Matcher, string) {
	field, ok := geminiMatchField()[event]
	if !ok || m == nil || *m == "" || *m == "*" {
		return nil, ""
	}
	re := "^" + regexp.QuoteMeta(*m) + "$"
	if field == "tool_name" {
		if _, err := regexp.Compile(*m); err == nil {
			re = *m
		}
	}
	return &hooks.Matcher{Field: field, Regex: re}, ""
}

// off is what Gemini's switches turn off: every hook (hooksConfig.enabled false, or the older
// hooks.enabled), or those named in hooksConfig.disabled (by name or command).
type off struct {
	all      bool
	disabled map[string]bool
}

// All implements hostfmt.Off.
func (o *off) All() bool { return o.all }

// Disables implements hostfmt.Off.
func (o *off) Disables(e hostfmt.Entry) bool {
	return o.disabled[e.Command] || e.Name != "" && o.disabled[e.Name]
}

// switches reads Gemini's switches, and returns the settings with the ones inside "hooks"
// (enabled, disabled, notifications: not events) taken out. src is returned as it is when it
// cannot be read (the caller reports it).
func switches(src []byte) ([]byte, hostfmt.Off) {
	o := &off{disabled: map[string]bool{}}
	var root map[string]json.RawMessage
	if json.Unmarshal(src, &root) != nil {
		return src, o
	}
	var hooksObj map[string]json.RawMessage
	for _, key := range []string{"hooksConfig", "hooks"} {
		var sw map[string]json.RawMessage
		_ = json.Unmarshal(root[key], &sw)
		if key == "hooks" {
			hooksObj = sw
		}
		var enabled *bool
		var disabled []string
		_ = json.Unmarshal(sw["enabled"], &enabled)
		_ = json.Unmarshal(sw["disabled"], &disabled)
		if enabled != nil && !*enabled {
			o.all = true
		}
		for _, d := range disabled {
			o.disabled[d] = true
		}
	}
	if hooksObj == nil {
		return src, o
	}
	for k := range Switches {
		delete(hooksObj, k)
	}
	clean, err := json.Marshal(map[string]any{"hooks": hooksObj})
	if err != nil {
		return src, o
	}
	return clean, o
}

// Format implements agents.Agent: Gemini CLI's settings.json files as a format (format
// "gemini"): its own event names, timeouts in milliseconds, its switches.
func (Agent) Format() hooks.Format {
	return hostfmt.New(hostfmt.Spec{
		Settings:      settings(),
		ProjectDirEnv: Agent{}.ProjectDirEnv(),
		Canonical:     Agent{}.Event,
		Switches:      switches,
		Matcher:       matcher,
		Command: func(f hostfmt.Format, fl hostfmt.File, canonical, ev string, e hostfmt.Entry, m *hooks.Matcher) *hooks.Hook {
			h := f.NewHook(fl, canonical, ev, e.Command, m, Dialect{HostEvent: ev, Env: e.Env})
			if e.Name != "" {
				h.Name = e.Name
			}
			h.Timeout = DefaultTimeout
			if e.Timeout != nil && *e.Timeout > 0 {
				h.Timeout = time.Duration(*e.Timeout * float64(time.Millisecond)) // Gemini's are milliseconds
			}
			return h
		},
	})
}
