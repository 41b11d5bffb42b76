// Package iteratr reads iteratr's hook configuration (.iteratr.hooks.yml in the workspace) and
// runs its hooks the way iteratr does: each command with `sh -c` in the workspace, a timeout in
// seconds (default 30), the template variables {{session}} {{iteration}} {{task_id}}
// {{task_content}} {{error}} bound to the payload through package seedfmt (as quoted variable
// references, so no value becomes shell syntax), and failures and timeouts turned into output
// that never stops the session.
//
// Output of hooks with `pipe_output: true` is meant for the agent: Extension puts it in the
// event result's "agentOutput" and keeps the piped output of session_start, post_iteration and
// on_task_complete in a per-session pending buffer, delivered first (in the order it was made) in
// the next pre_iteration's agentOutput and then drained; whatever is still pending when the
// session ends is delivered in session_end's agentOutput (iteratr's final delivery).
package iteratr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// Name is the format's name in sources and `config show`.
const Name = "iteratr"

// FileName is iteratr's configuration file, in the workspace.
const FileName = ".iteratr.hooks.yml"

// DefaultTimeout applies to hooks without a timeout.
const DefaultTimeout = 30 * time.Second

// hookTypes are iteratr's six hook types and their canonical events.
var hookTypes = []struct{ name, event string }{
	{"session_start", hooks.SessionStart},
	{"pre_iteration", hooks.PreIteration},
	{"post_iteration", hooks.PostIteration},
	{"session_end", hooks.SessionEnd},
	{"on_task_complete", hooks.PostExecutionEnd},
	{"on_error", hooks.Error},
}

var hookFields = []string{"command", "timeout", "pipe_output"}

func typeNames() []string {
	out := make([]string, len(hookTypes))
	for i, t := range hookTypes {
		out[i] = t.name
	}
	return out
}

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

// Load implements hooks.Format.
func (Format) Load(env hooks.LoadEnv) ([]*hooks.Hook, []hooks.Diagnostic, error) {
	file := filepath.Join(env.Workspace, FileName)
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", file, err)
	}
	p := &parser{file: file}
	hs := p.parse(data)
	return hs, p.diags, nil
}

type parser struct {
	file  string
	diags []hooks.Diagnostic
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.diags = append(p.diags, seedfmt.Errorf(p.file, n.Line, n.Column, format, args...))
}

func (p *parser) warnf(n *yaml.Node, format string, args ...any) {
	p.diags = append(p.diags, seedfmt.Warning(p.file, n.Line, n.Column, format, args...))
}

func (p *parser) parse(data []byte) []*hooks.Hook {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.diags = append(p.diags, seedfmt.YAMLError(p.file, err))
		return nil
	}
	if len(doc.Content) == 0 {
		return nil // an empty file configures nothing
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		p.errorf(root, "expected a mapping with version and hooks")
		return nil
	}
	var out []*hooks.Hook
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "version":
			var n int
			if err := v.Decode(&n); err != nil || n != 1 {
				p.warnf(v, "version %q: only version 1 is known", v.Value)
			}
		case "hooks":
			out = p.parseHooks(v)
		default:
			p.warnf(k, "unknown key %q (iteratr reads version and hooks)", k.Value)
		}
	}
	return out
}

func (p *parser) parseHooks(m *yaml.Node) []*hooks.Hook {
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return nil
	}
	if m.Kind != yaml.MappingNode {
		p.errorf(m, "hooks: expected a mapping from hook type to a list of hooks")
		return nil
	}
	var out []*hooks.Hook
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		event := ""
		for _, t := range hookTypes {
			if t.name == k.Value {
				event = t.event
			}
		}
		if event == "" {
			p.errorf(k, "%s", seedfmt.UnknownPoint(Name, k.Value, typeNames()))
			continue
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			continue
		}
		if v.Kind != yaml.SequenceNode {
			p.errorf(v, "%s: expected a list of hooks", k.Value)
			continue
		}
		for _, item := range v.Content {
			if h := p.parseHook(k.Value, event, item); h != nil {
				out = append(out, h)
			}
		}
	}
	return out
}

func (p *parser) parseHook(point, event string, n *yaml.Node) *hooks.Hook {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s: expected a hook with command, timeout and pipe_output", point)
		return nil
	}
	var hc hookConfig
	ok, hasCommand := true, false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var err error
		switch k.Value {
		case "command":
			hasCommand = true
			err = v.Decode(&hc.Command)
		case "timeout":
			err = v.Decode(&hc.Timeout)
			if err == nil && hc.Timeout < 0 {
				err = fmt.Errorf("must not be negative")
			}
		case "pipe_output":
			err = v.Decode(&hc.PipeOutput)
		default:
			msg := fmt.Sprintf("%s: unknown hook field %q", point, k.Value)
			if s := hooks.Suggest(k.Value, hookFields); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			p.errorf(k, "%s", msg)
			ok = false
			continue
		}
		if err != nil {
			p.errorf(v, "%s: %s: %s", point, k.Value, decodeMessage(err))
			ok = false
		}
	}
	if !hasCommand || strings.TrimSpace(hc.Command) == "" {
		p.errorf(n, "%s: hook has no command", point)
		return nil
	}
	if !ok {
		return nil
	}
	if event == hooks.SessionEnd && hc.PipeOutput {
		// iteratr ignores pipe_output on session_end: no iteration is left to see it.
		p.warnf(n, "%s: pipe_output is ignored (no iteration follows the end of the session)", point)
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
		Source:  hooks.Source{Format: Name, Scope: "project", File: p.file, Line: n.Line, Col: n.Column},
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

// Prepare implements hooks.Dialect: sh -c with iteratr's template variables bound.
func (d Dialect) Prepare(inv *hooks.Invocation) (hooks.Process, error) {
	cmd, env := hooks.ExpandCommand(inv.Hook.Command, seedfmt.IteratrVars(inv.Payload, inv.SessionID))
	stdin, err := seedfmt.PayloadJSON(inv.Payload)
	if err != nil {
		return hooks.Process{}, err
	}
	return hooks.Process{Argv: []string{"sh", "-c", cmd}, Env: env, Stdin: stdin}, nil
}

// Interpret implements hooks.Dialect: a failure or a timeout is an error whose text becomes part
// of the output, never a block.
func (d Dialect) Interpret(inv *hooks.Invocation, p *hooks.ProcessResult) hooks.Outcome {
	o, done := seedfmt.Finish(p)
	if !done && p.ExitCode != 0 {
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("hook failed: exit code %d", p.ExitCode)
	}
	if o.Status == hooks.StatusTimeout {
		o.Reason = fmt.Sprintf("hook timed out after %s", inv.Hook.Timeout)
	}
	if d.PipeOutput {
		o.Details = map[string]any{"pipeOutput": true, "output": output(p, o.Reason)}
	}
	return o
}

// output is what iteratr hands the agent for one hook: stdout then stderr, raw, and on failure
// the error.
func output(p *hooks.ProcessResult, failure string) string {
	var b bytes.Buffer
	b.WriteString(p.Stdout)
	if p.Stderr != "" {
		if b.Len() > 0 && !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
			b.WriteByte('\n')
		}
		b.WriteString(p.Stderr)
	}
	if failure != "" {
		if b.Len() > 0 && !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
			b.WriteByte('\n')
		}
		b.WriteString(failure + "\n")
	}
	return b.String()
}
