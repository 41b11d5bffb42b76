// Package pipelines reads agent-pipelines' hooks: the `hooks:` map of a stage's stage.yaml (its
// name since agent-pipelines renamed loops to stages; the older loop.yaml is read too), in the
// workspace or the file given with `run --loop FILE`, and the global hook functions of
// ${XDG_CONFIG_HOME:-~/.config}/agent-pipelines/hooks.sh. It runs them the way the hooks plan
// (docs/plans/lifecycle-hooks-implementation.md) describes: the stage's own command first
// (evaluated by bash, so ${SESSION}, ${ITERATION}, ${PROGRESS_FILE}, ${ERROR}, … expand from the
// environment, never as shell text), then the global function of the same name, unless the
// stage sets `hooks.disable_global: true`. Both get the PIPELINE_* variables and their older
// LOOP_* names (package seedfmt), SESSION_NAME and the engine's CLAUDE_PIPELINE_SESSION and
// CLAUDE_PIPELINE_TYPE. The session is the loop's session name (the payload's sessionName, as
// in `run.sh <stage> <session>`), else the agent-hooks session id. A failure is a warning: the
// loop goes on.
//
// Values read as agent-pipelines reads them (PyYAML, then jq's `// empty`): a hook that is null
// or false is no hook; disable_global is true for a YAML boolean true (yes/on included) or the
// text "true".
//
// Global functions are called with the arguments the plan documents for them:
//
//	on_session_start      session
//	on_iteration_start    session iteration
//	on_iteration_complete session iteration
//	on_stage_complete     session stage
//	on_session_complete   session status iterations
//	on_error              session error
//	on_checkpoint         session iteration
//	on_approval_required  session iteration
//
// `checkpoints.every: N` in the stage file makes the format's extension fire Checkpoint after
// every Nth PostIteration. The blocking hooks of the plan's Part 2 (await.go) become approval
// hooks: `type: await_poll` with the http-poll provider, `type: await_webhook` with the callback
// provider (a request carrying callback URLs, and a server on 127.0.0.1 waiting for one),
// `type: await_input` with the input provider (an answer file or standard input); their
// response_var, and a spawned pipeline's CHILD_OUTPUT, reach the later hooks of the event as
// environment variables. `checkpoints.spawn` (with or without `hooks.on_checkpoint: spawn`) runs
// a child pipeline at each checkpoint through agent-pipelines' engine (spawn.go). The plan's
// webhooks.yaml beside hooks.sh becomes webhook hooks (webhooks.go).
package pipelines

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/internal/configfile"
)

// Name is the format's name in sources and `config show`.
const Name = "agent-pipelines"

// StageFileName is the stage configuration looked for in the workspace.
const StageFileName = "stage.yaml"

// LoopFileName is StageFileName's former name, read when there is no stage.yaml.
const LoopFileName = "loop.yaml"

// points are agent-pipelines' hook points and their canonical events.
var points = seedfmt.Points{
	{Name: "on_session_start", Event: hooks.SessionStart},
	{Name: "on_iteration_start", Event: hooks.PreIteration},
	{Name: "on_iteration_complete", Event: hooks.PostIteration},
	{Name: "on_stage_complete", Event: StageComplete},
	{Name: "on_session_complete", Event: hooks.SessionEnd},
	{Name: "on_error", Event: hooks.Error},
	{Name: "on_checkpoint", Event: hooks.Checkpoint},
	{Name: "on_approval_required", Event: hooks.ApprovalRequired},
}

// globalArgs are the payload keys of each global function's arguments ("" is the session name).
var globalArgs = map[string][]string{
	"on_session_start":      {""},
	"on_iteration_start":    {"", "iteration"},
	"on_iteration_complete": {"", "iteration"},
	"on_stage_complete":     {"", "stage"},
	"on_session_complete":   {"", "status", "totalIterations"},
	"on_error":              {"", "error"},
	"on_checkpoint":         {"", "iteration"},
	"on_approval_required":  {"", "iteration"},
}

// StageComplete is the event of on_stage_complete, which has no canonical counterpart.
const StageComplete = "on_stage_complete"

// Format loads the stage file (stage.yaml or loop.yaml) and the global hooks file.
type Format struct{}

// New returns the agent-pipelines format.
func New() Format { return Format{} }

// Name implements hooks.Format.
func (Format) Name() string { return Name }

// Loop is what agent-pipelines hooks need from a stage file (stage.yaml, formerly loop.yaml).
type Loop struct {
	File            string
	Hooks           []*hooks.Hook
	DisableGlobal   bool
	CheckpointEvery int
	// Spawn is the Checkpoint hook of checkpoints.spawn (also in Hooks, first), nil without one.
	Spawn *hooks.Hook
	// Vars are the variables the loop's hooks hand on to later ones (response_var,
	// CHILD_OUTPUT): its command hooks and the global functions get them in their environment.
	Vars []string
}

// LoopPath is the stage file that env selects: LoopFile (relative to the workspace), else the
// workspace's stage.yaml, else its loop.yaml.
func LoopPath(env hooks.LoadEnv) string {
	if env.LoopFile != "" {
		if filepath.IsAbs(env.LoopFile) {
			return env.LoopFile
		}
		return filepath.Join(env.Workspace, env.LoopFile)
	}
	stage := filepath.Join(env.Workspace, StageFileName)
	if k, err := seedfmt.Stat(stage); err != nil || k != seedfmt.Missing {
		return stage // an unreadable stage.yaml is reported when it is read
	}
	return filepath.Join(env.Workspace, LoopFileName)
}

// GlobalPath is the global hooks file: $XDG_CONFIG_HOME/agent-pipelines/hooks.sh, else
// ~/.config/agent-pipelines/hooks.sh.
// It is "" when the project disables user hooks.
func GlobalPath(env hooks.LoadEnv) string {
	base := seedfmt.ConfigHome(env)
	if env.DisableUserHooks || base == "" {
		return ""
	}
	return filepath.Join(base, "agent-pipelines", "hooks.sh")
}

// Load implements hooks.Format: the loop's hooks, the global hooks.sh's and the webhooks'. A
// loop with `checkpoints.every: N` comes with the extension that fires its checkpoints.
func (Format) Load(env hooks.LoadEnv) (hooks.Loaded, error) {
	loop, diags, err := ReadLoop(env)
	if err != nil {
		return hooks.Loaded{}, err
	}
	out := loop.Hooks
	if !loop.DisableGlobal {
		global, more, err := readGlobal(GlobalPath(env))
		if err != nil {
			return hooks.Loaded{}, err
		}
		out, diags = append(out, global...), append(diags, more...)
	}
	if len(loop.Vars) > 0 {
		for _, h := range out {
			if d, ok := h.Dialect.(Dialect); ok {
				d.Vars = loop.Vars
				h.Dialect = d
			}
		}
	}
	webhooks, more, err := readWebhooks(WebhooksPath(env))
	if err != nil {
		return hooks.Loaded{}, err
	}
	l := hooks.Loaded{Hooks: append(out, webhooks...), Diagnostics: append(diags, more...)}
	if loop.CheckpointEvery > 0 {
		l.Extension = checkpoints{every: loop.CheckpointEvery}
	}
	return l, nil
}

// ReadLoop reads the stage file env selects. A missing one is an empty Loop, unless it was named
// with --loop.
func ReadLoop(env hooks.LoadEnv) (*Loop, []hooks.Diagnostic, error) {
	file := LoopPath(env)
	loop := &Loop{File: file}
	data, err := configfile.Read(file)
	if errors.Is(err, fs.ErrNotExist) && env.LoopFile == "" {
		return loop, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read loop file: %w", err)
	}
	p := &parser{YAMLFile: seedfmt.YAMLFile{Path: file}, loop: loop}
	if env.LoopFile == "" && filepath.Base(file) == StageFileName {
		old := filepath.Join(env.Workspace, LoopFileName)
		if k, err := seedfmt.Stat(old); err == nil && k != seedfmt.Missing {
			p.Diags = append(p.Diags, seedfmt.Warning(old, 0, 0, "ignored: %s (loop.yaml's current name) is read instead", StageFileName))
		}
	}
	p.parse(data)
	if p.spawnKeyword != nil && loop.Spawn == nil {
		p.Errorf(p.spawnKeyword, "hooks.on_checkpoint: spawn needs checkpoints.spawn (the pipeline to run)")
	}
	if loop.Spawn != nil {
		loop.Hooks = append([]*hooks.Hook{loop.Spawn}, loop.Hooks...) // before on_checkpoint's command: it may read CHILD_OUTPUT
		if d, _ := loop.Spawn.Dialect.(Spawn); d.OnComplete != "ignore" {
			loop.Vars = append(loop.Vars, ChildOutputVar)
		}
	}
	return loop, p.Diags, nil
}

type parser struct {
	seedfmt.YAMLFile
	loop         *Loop
	spawnKeyword *yaml.Node // hooks.on_checkpoint: spawn
}

func (p *parser) parse(data []byte) {
	root := p.Parse(data)
	if root == nil {
		return
	}
	p.Mapping(root, "expected a mapping (name, hooks, checkpoints, …)", func(k, v *yaml.Node) {
		switch k.Value {
		case "hooks":
			p.Mapping(v, "hooks: expected a mapping from hook point to a command", p.parseHook)
		case "checkpoints":
			p.Mapping(v, "checkpoints: expected a mapping with every", p.parseCheckpoint)
		}
		// Every other key (name, completion, stages, …) belongs to the loop engine.
	})
}

// parseHook reads one entry of the hooks map.
func (p *parser) parseHook(k, v *yaml.Node) {
	if k.Value == "disable_global" {
		p.parseDisableGlobal(v)
		return
	}
	event, ok := points.Event(k.Value)
	switch {
	case !ok:
		p.Errorf(k, "%s", seedfmt.UnknownPoint(Name, k.Value, append(points.Names(), "disable_global")))
	case seedfmt.IsNull(v):
	case v.Kind == yaml.ScalarNode && v.Tag == "!!bool" && !isTrue(v):
		p.Warnf(v, "hooks.%s: %s is no hook (as agent-pipelines reads it); remove it or give a command", k.Value, v.Value)
	case v.Kind == yaml.MappingNode:
		p.parseAwait(k.Value, event, v)
	case v.Kind != yaml.ScalarNode:
		p.Errorf(v, "hooks.%s: expected a command", k.Value)
	case k.Value == "on_checkpoint" && v.Value == "spawn":
		p.spawnKeyword = v // the special keyword of checkpoints.spawn
	case strings.TrimSpace(v.Value) == "":
		p.Warnf(v, "hooks.%s: empty command", k.Value)
	default:
		opts, _ := json.Marshal(map[string]string{"command": v.Value})
		p.loop.Hooks = append(p.loop.Hooks, &hooks.Hook{
			Name:    k.Value,
			Type:    hooks.TypeCommand,
			Event:   event,
			Command: v.Value,
			Timeout: hooks.DefaultTimeout,
			Enabled: true,
			Source:  hooks.Source{Format: Name, Scope: "project", File: p.Path, Line: v.Line, Col: v.Column},
			Options: opts,
			Dialect: Dialect{},
		})
	}
}

// parseDisableGlobal reads hooks.disable_global as agent-pipelines does (`json_get` is jq's
// `.hooks.disable_global // empty`, compared with "true"): a YAML boolean (yes/on included, as
// PyYAML reads them) or the text true or false. Any other value is an error rather than a silent
// "no".
func (p *parser) parseDisableGlobal(v *yaml.Node) {
	switch {
	case seedfmt.IsNull(v):
		p.loop.DisableGlobal = false
	case v.Kind == yaml.ScalarNode && v.Tag == "!!str" && (v.Value == "true" || v.Value == "false"):
		p.loop.DisableGlobal = v.Value == "true"
	default:
		if err := v.Decode(&p.loop.DisableGlobal); err != nil {
			p.Errorf(v, "hooks.disable_global: expected true or false")
		}
	}
}

// isTrue reports whether a !!bool node is true.
func isTrue(v *yaml.Node) bool {
	var b bool
	return v.Decode(&b) == nil && b
}

// parseCheckpoint reads one entry of the checkpoints map.
func (p *parser) parseCheckpoint(k, v *yaml.Node) {
	switch k.Value {
	case "every":
		var n int
		if err := v.Decode(&n); err != nil || n <= 0 {
			p.Errorf(v, "checkpoints.every: expected a positive number of iterations, got %q", v.Value)
			return
		}
		p.loop.CheckpointEvery = n
	case "spawn":
		p.parseSpawn(v)
	case "notify", "await", "on_failure":
		p.Warnf(k, "checkpoints.%s is not supported; configure Checkpoint hooks instead", k.Value)
	default:
		p.Errorf(k, "checkpoints: %s", seedfmt.UnknownKey("key", k.Value, []string{"every", "spawn"}))
	}
}

// readGlobal finds the hook functions a global hooks.sh defines.
func readGlobal(file string) ([]*hooks.Hook, []hooks.Diagnostic, error) {
	data, err := readUserFile(file)
	if data == nil || err != nil {
		return nil, nil, err
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), file)
	if err != nil {
		if pe, ok := err.(syntax.ParseError); ok {
			return nil, []hooks.Diagnostic{seedfmt.Errorf(file, int(pe.Pos.Line()), int(pe.Pos.Col()), "invalid shell: %s", pe.Text)}, nil
		}
		return nil, []hooks.Diagnostic{seedfmt.Errorf(file, 0, 0, "invalid shell: %v", err)}, nil
	}
	var (
		out   []*hooks.Hook
		diags []hooks.Diagnostic
	)
	for _, st := range f.Stmts {
		fd, ok := st.Cmd.(*syntax.FuncDecl)
		if !ok || fd.Name == nil {
			continue
		}
		name := fd.Name.Value
		line, col := int(fd.Pos().Line()), int(fd.Pos().Col())
		event, ok := points.Event(name)
		if !ok {
			if strings.HasPrefix(name, "on_") {
				diags = append(diags, seedfmt.Warning(file, line, col, "function %s is not called: %s", name, seedfmt.UnknownPoint(Name, name, points.Names())))
			}
			continue
		}
		opts, _ := json.Marshal(map[string]any{"function": name, "args": argNames(globalArgs[name])})
		out = append(out, &hooks.Hook{
			Name:    "global " + name,
			Type:    hooks.TypeCommand,
			Event:   event,
			Command: name,
			Timeout: hooks.DefaultTimeout,
			Enabled: true,
			Source:  hooks.Source{Format: Name, Scope: "global", File: file, Line: line, Col: col},
			Options: opts,
			Dialect: Dialect{Global: file, Args: globalArgs[name]},
		})
	}
	return out, diags, nil
}

func argNames(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k
		if k == "" {
			out[i] = "session"
		}
	}
	return out
}

// Dialect runs an agent-pipelines hook: a stage file's command, or (Global set) a function of the
// global hooks file.
type Dialect struct {
	Global string   // the hooks.sh defining the function inv.Hook.Command
	Args   []string // payload keys of its arguments; "" is the session name
	// Vars are the variables earlier hooks of the event may hand on (hooks.KeyVars) that the
	// process gets: only these, the names the loop declares.
	Vars []string
}

// globalScript sources the hooks file and calls the function with the remaining arguments.
const globalScript = `source "$1" || exit; shift; "$@"`

// Prepare implements hooks.Dialect.
func (d Dialect) Prepare(inv *hooks.Invocation) (process.Process, error) {
	stdin, err := seedfmt.PayloadJSON(inv.Payload)
	if err != nil {
		return process.Process{}, err
	}
	env := seedfmt.LoopEnv(inv.Payload, seedfmt.SessionName(inv.Payload, inv.SessionID))
	vars, cleanup, err := varsEnv(inv.Payload, d.Vars)
	if err != nil {
		return process.Process{}, err
	}
	argv := []string{"bash", "-c", inv.Hook.Command}
	if d.Global != "" {
		argv = []string{"bash", "-c", globalScript, "agent-pipelines", d.Global, inv.Hook.Command}
		for _, k := range d.Args {
			argv = append(argv, argValue(inv, k))
		}
	}
	return process.Process{Argv: argv, Env: append(env, vars...), Stdin: stdin, Cleanup: cleanup}, nil
}

// varsEnv is the environment of the values earlier hooks handed on (hooks.KeyVars) under the
// names given; a value too large for the environment goes through a file named by NAME_FILE.
func varsEnv(p hooks.Payload, names []string) ([]string, func(), error) {
	handed, _ := p[hooks.KeyVars].(map[string]any)
	var (
		env      []string
		cleanups []func()
	)
	cleanup := func() {
		for _, c := range cleanups {
			c()
		}
	}
	for _, name := range names {
		v, ok := handed[name].(string)
		if !ok {
			continue
		}
		if strings.IndexByte(v, 0) >= 0 {
			cleanup()
			return nil, nil, &process.InputError{Err: fmt.Errorf("%s holds a NUL byte", name)}
		}
		kv, c, err := hooks.PayloadEnv(name, []byte(v))
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		env, cleanups = append(env, kv), append(cleanups, c)
	}
	return env, cleanup, nil
}

func argValue(inv *hooks.Invocation, key string) string {
	if key == "" {
		return seedfmt.SessionName(inv.Payload, inv.SessionID)
	}
	for _, v := range seedfmt.Table {
		if v.Keys[0] == key {
			s, _ := v.Value(inv.Payload)
			return s
		}
	}
	if x, ok := inv.Payload[key]; ok {
		return template.FormatValue(x)
	}
	return ""
}

// Interpret implements hooks.Dialect: a failure warns and the loop continues.
func (d Dialect) Interpret(inv *hooks.Invocation, p *process.Result) hooks.Outcome {
	o, done := seedfmt.Finish(p)
	kind := "loop hook"
	if d.Global != "" {
		kind = "global hook"
	}
	point := inv.Hook.Name
	if d.Global != "" {
		point = inv.Hook.Command
	}
	switch {
	case o.Status == hooks.StatusTimeout:
		o.Reason = fmt.Sprintf("%s %s timed out after %s", kind, point, inv.Hook.Timeout)
	case done:
	case p.ExitCode != 0:
		o.Status, o.Reason = hooks.StatusError, fmt.Sprintf("%s %s failed (exit %d): %s", kind, point, p.ExitCode, seedfmt.Reason(p))
	}
	return o
}

// readUserFile reads an optional file of the user's configuration: nil when file is "" or
// missing (a link to a missing file is an error, see configfile.Read).
func readUserFile(file string) ([]byte, error) {
	if file == "" {
		return nil, nil
	}
	data, err := configfile.Read(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}
