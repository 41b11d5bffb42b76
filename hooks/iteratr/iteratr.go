// Package iteratr reads iteratr's hook configuration (.iteratr.hooks.yml in the workspace) and
// runs its hooks the way iteratr (v0.16) does: each command with `sh -c` in the workspace, a
// timeout in seconds (default 30), the template variables {{session}} (the session's name)
// {{iteration}} {{task_id}} {{task_content}} {{error}} bound, for each hook type, to what iteratr
// sets there (as quoted variable references through package hooks, so no value becomes shell
// syntax; an empty one is no word, as in iteratr), and failures and timeouts turned into output
// that never stops the session. Like iteratr it skips hooks without a command and ignores fields
// it does not know, with a warning.
//
// Output of hooks with `pipe_output: true` is meant for the agent, and the format's extension
// puts it in the event result's "agentOutput" where iteratr's orchestrator sends it: session_start
// and on_task_complete output waits in a per-session pending buffer, delivered first in the next
// pre_iteration's agentOutput (then drained) or, at the end, in session_end's; post_iteration and
// on_error output is delivered at once, in iteratr's frames.
package iteratr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/internal/configfile"
)

// Name is the format's name in sources and `config show`.
const Name = "iteratr"

// FileName is iteratr's configuration file, in the workspace.
const FileName = ".iteratr.hooks.yml"

// DefaultTimeout applies to hooks without a timeout.
const DefaultTimeout = 30 * time.Second

// hookTypes are iteratr's six hook types and their canonical events.
var hookTypes = seedfmt.Points{
	{Name: "session_start", Event: hooks.SessionStart},
	{Name: "pre_iteration", Event: hooks.PreIteration},
	{Name: "post_iteration", Event: hooks.PostIteration},
	{Name: "session_end", Event: hooks.SessionEnd},
	{Name: "on_task_complete", Event: hooks.PostExecutionEnd},
	{Name: "on_error", Event: hooks.Error},
}

var hookFields = []string{"command", "timeout", "pipe_output"}

// Format loads .iteratr.hooks.yml.
type Format struct{}

// New returns the iteratr format.
func New() Format { return Format{} }

// Name implements hooks.Format.
func (Format) Name() string { return Name }

// hookConfig is one hook as written, iteratr's HookConfig.
type hookConfig struct {
	Command    string `json:"command"`
	Timeout    int    `json:"timeout,omitempty"`
	PipeOutput bool   `json:"pipe_output,omitempty"`
}

// Load implements hooks.Format. With hooks comes the extension that delivers their piped output.
func (Format) Load(env hooks.LoadEnv) (hooks.Loaded, error) {
	file := filepath.Join(env.Workspace, FileName)
	data, err := configfile.Read(file)
	if errors.Is(err, fs.ErrNotExist) {
		return hooks.Loaded{}, nil
	}
	if err != nil {
		return hooks.Loaded{}, err
	}
	p := &parser{YAMLFile: seedfmt.YAMLFile{Path: file}}
	l := hooks.Loaded{Hooks: p.parse(data), Diagnostics: p.Diags}
	if len(l.Hooks) > 0 {
		l.Extension = extension{}
	}
	return l, nil
}

type parser struct{ seedfmt.YAMLFile }

func (p *parser) parse(data []byte) []*hooks.Hook {
	root := p.Parse(data)
	if root == nil {
		return nil
	}
	var out []*hooks.Hook
	p.Mapping(root, "expected a mapping with version and hooks", func(k, v *yaml.Node) {
		switch k.Value {
		case "version":
			var n int
			if err := v.Decode(&n); err != nil || n != 1 {
				p.Warnf(v, "version %q: only version 1 is known", v.Value)
			}
		case "hooks":
			out = p.parseHooks(v)
		default:
			p.Warnf(k, "unknown key %q (iteratr reads version and hooks)", k.Value)
		}
	})
	return out
}

func (p *parser) parseHooks(m *yaml.Node) []*hooks.Hook {
	var out []*hooks.Hook
	p.Mapping(m, "hooks: expected a mapping from hook type to a list of hooks", func(k, v *yaml.Node) {
		event, ok := hookTypes.Event(k.Value)
		switch {
		case !ok:
			p.Errorf(k, "%s", seedfmt.UnknownPoint(Name, k.Value, hookTypes.Names()))
		case seedfmt.IsNull(v):
		case v.Kind != yaml.SequenceNode:
			p.Errorf(v, "%s: expected a list of hooks", k.Value)
		default:
			for _, item := range v.Content {
				if seedfmt.IsNull(item) {
					p.Warnf(item, "%s: empty list item, skipped (as iteratr does)", k.Value)
					continue
				}
				if h := p.parseHook(k.Value, event, item); h != nil {
					out = append(out, h)
				}
			}
		}
	})
	return out
}

func (p *parser) parseHook(point, event string, n *yaml.Node) *hooks.Hook {
	if n.Kind != yaml.MappingNode {
		p.Errorf(n, "%s: expected a hook with command, timeout and pipe_output", point)
		return nil
	}
	var hc hookConfig
	ok, hasCommand := true, false
	p.Mapping(n, "", func(k, v *yaml.Node) {
		var err error
		switch k.Value {
		case "command":
			hasCommand = true
			if err = v.Decode(&hc.Command); err == nil {
				if perr := template.CheckPlacements(hc.Command); perr != nil {
					p.Errorf(v, "%s: command: %v (line %d, column %d of the command)", point, perr, perr.Line, perr.Col)
					ok = false
					return
				}
			}
		case "timeout":
			err = v.Decode(&hc.Timeout) // zero or negative: the default, as in iteratr
		case "pipe_output":
			err = v.Decode(&hc.PipeOutput)
		default:
			// iteratr ignores fields it does not know; a typo still deserves a word
			p.Warnf(k, "%s: %s (ignored, as iteratr does)", point, seedfmt.UnknownKey("hook field", k.Value, hookFields))
			return
		}
		if err != nil {
			p.Errorf(v, "%s: %s: %s", point, k.Value, decodeMessage(err))
			ok = false
		}
	})
	if !ok {
		return nil
	}
	if !hasCommand || hc.Command == "" {
		p.Warnf(n, "%s: hook has no command, skipped (as iteratr does)", point)
		return nil
	}
	if event == hooks.SessionEnd {
		// iteratr ignores pipe_output on session_end without a word (its own example sets it
		// there): no iteration is left to see the output.
		hc.PipeOutput = false
	}
	timeout := DefaultTimeout
	if hc.Timeout > 0 {
		timeout = time.Duration(hc.Timeout) * time.Second
	}
	opts, _ := json.Marshal(hc) // a struct of strings, ints and bools always encodes
	return &hooks.Hook{
		Name:    hc.Command,
		Type:    hooks.TypeCommand,
		Event:   event,
		Command: hc.Command,
		Timeout: timeout,
		Enabled: true,
		Source:  hooks.Source{Format: Name, Scope: "project", File: p.Path, Line: n.Line, Col: n.Column},
		Options: opts,
		Dialect: Dialect{PipeOutput: hc.PipeOutput},
	}
}

// decodeMessage shortens yaml.v3's type errors ("yaml: unmarshal errors:\n  line 3: cannot
// unmarshal !!str `x` into int") to their last part.
func decodeMessage(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": cannot"); i >= 0 {
		return strings.TrimSpace(msg[i+1:])
	}
	return strings.TrimPrefix(msg, "yaml: ")
}

// Dialect runs an iteratr hook.
type Dialect struct {
	// PipeOutput is the hook's pipe_output: its output is for the agent.
	PipeOutput bool
}

// bound are the template variables iteratr sets for each hook type besides {{session}}; the
// others expand to nothing there, whatever the payload holds (iteratr has no iteration at
// session_start, session_end and on_task_complete).
var bound = map[string][]string{
	hooks.SessionStart:     nil,
	hooks.PreIteration:     {"iteration"},
	hooks.PostIteration:    {"iteration"},
	hooks.Error:            {"iteration", "error"},
	hooks.PostExecutionEnd: {"task_id", "task_content"},
	hooks.SessionEnd:       nil,
}

// Vars are the values of iteratr's template variables for a hook of event: {{session}} is the
// session's name (seedfmt.SessionName), the others come from the payload where iteratr sets them
// for that hook type and are empty elsewhere.
func Vars(p hooks.Payload, sessionID, event string) hooks.Payload {
	vars := seedfmt.IteratrVars(p, seedfmt.SessionName(p, sessionID))
	if names, known := bound[event]; known {
		for k := range vars {
			if k != "session" && !slices.Contains(names, k) {
				vars[k] = ""
			}
		}
	}
	return vars
}

// Prepare implements hooks.Dialect: sh -c with iteratr's template variables bound.
func (d Dialect) Prepare(inv *hooks.Invocation) (process.Process, error) {
	x, err := template.ExpandCommand(inv.Hook.Command, Vars(inv.Payload, inv.SessionID, inv.Hook.Event))
	if err != nil {
		return process.Process{}, err
	}
	stdin, err := seedfmt.PayloadJSON(inv.Payload)
	if err != nil {
		return process.Process{}, err
	}
	env, cleanup, err := x.Bind()
	if err != nil {
		return process.Process{}, err
	}
	return process.Process{Argv: []string{"sh", "-c", x.Command}, Env: env, Stdin: stdin, Cleanup: cleanup}, nil
}

// Interpret implements hooks.Dialect: a failure or a timeout is an error whose text becomes part
// of the output, never a block.
func (d Dialect) Interpret(inv *hooks.Invocation, p *process.Result) hooks.Outcome {
	o, done := seedfmt.Finish(p)
	if !done && p.ExitCode != 0 {
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook failed: exit code %d", p.ExitCode)
	}
	if o.Status == hooks.StatusTimeout {
		o.Reason = fmt.Sprintf("hook timed out after %s", inv.Hook.Timeout)
	}
	if d.PipeOutput {
		o.Details = map[string]any{"pipeOutput": true, "output": output(inv.Hook, p)}
	}
	return o
}

// output is the text iteratr hands the agent for one hook (its hooks.Execute): stdout, then
// "\n[stderr]\n" and stderr if there is any; a failure is preceded by "[Hook command failed:
// exit status N]\n", and a timeout gives "[Hook timed out after Ns]\nPartial output:\n" and stdout
// only.
func output(h *hooks.Hook, p *process.Result) string {
	switch {
	case p.StartErr != nil:
		return fmt.Sprintf("[Hook command failed: %v]\n", p.StartErr)
	case p.TimedOut:
		return fmt.Sprintf("[Hook timed out after %ds]\nPartial output:\n%s", int(h.Timeout/time.Second), p.Stdout)
	}
	out := p.Stdout
	if p.Stderr != "" {
		out += "\n[stderr]\n" + p.Stderr
	}
	if p.ExitCode != 0 {
		out = fmt.Sprintf("[Hook command failed: exit status %d]\n", p.ExitCode) + out
	}
	return out
}
