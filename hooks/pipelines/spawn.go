package pipelines

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// ChildOutputVar is the variable a spawned pipeline's output is handed on in, as the plan's
// spawn.sh exports it.
const ChildOutputVar = "CHILD_OUTPUT"

// DefaultEngine is the agent-pipelines engine a spawn runs the child pipeline with, relative to
// the workspace: the plan's ./scripts/engine.sh.
const DefaultEngine = "scripts/engine.sh"

// MaxChildOutput is the largest output.json a child pipeline may return.
const MaxChildOutput = 1 << 20

// spawnConfig is the seed's checkpoints.spawn ("Nested Pipelines (spawn)"):
//
//	checkpoints:
//	  every: 10
//	  spawn:
//	    pipeline: code-review
//	    inputs:
//	      files_changed: "${CHANGED_FILES}"
//	      session: "${SESSION}"
//	    on_complete: merge        # merge | replace | ignore
//	    engine: scripts/engine.sh # agent-hooks' addition: the engine that runs the child
//	    timeout: 86400            # agent-hooks' addition: seconds (default a day)
//	hooks:
//	  on_checkpoint: spawn        # optional: checkpoints.spawn alone spawns too
type spawnConfig struct {
	Pipeline   string            `yaml:"pipeline"`
	Inputs     map[string]string `yaml:"inputs"`
	OnComplete string            `yaml:"on_complete"`
	Engine     string            `yaml:"engine"`
	Timeout    float64           `yaml:"timeout"`
}

var spawnKeys = []string{"pipeline", "inputs", "on_complete", "engine", "timeout"}

// parseSpawn reads checkpoints.spawn into the Checkpoint hook that runs the child pipeline.
func (p *parser) parseSpawn(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		p.Errorf(v, "checkpoints.spawn: expected a mapping with pipeline")
		return
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		if k := v.Content[j]; !slices.Contains(spawnKeys, k.Value) {
			p.Warnf(k, "checkpoints.spawn: %s", seedfmt.UnknownKey("key", k.Value, spawnKeys))
		}
	}
	var c spawnConfig
	if err := v.Decode(&c); err != nil {
		p.Errorf(v, "checkpoints.spawn: %v", err)
		return
	}
	switch c.OnComplete {
	case "":
		c.OnComplete = "merge"
	case "merge", "replace", "ignore":
	default:
		p.Errorf(v, "checkpoints.spawn.on_complete: %q is not merge, replace or ignore", c.OnComplete)
		return
	}
	switch {
	case strings.TrimSpace(c.Pipeline) == "":
		p.Errorf(v, "checkpoints.spawn: pipeline is required (the child pipeline to run)")
		return
	case strings.HasPrefix(c.Pipeline, "-"):
		p.Errorf(v, "checkpoints.spawn.pipeline: %q starts with -", c.Pipeline)
		return
	case c.Timeout < 0:
		p.Errorf(v, "checkpoints.spawn.timeout: a positive number of seconds")
		return
	}
	if c.Engine == "" {
		c.Engine = DefaultEngine
	}
	timeout := seconds(c.Timeout)
	if timeout <= 0 {
		timeout = DefaultAwaitTimeout
	}
	opts, _ := json.Marshal(map[string]any{"spawn": map[string]any{"pipeline": c.Pipeline, "inputs": c.Inputs, "onComplete": c.OnComplete, "engine": c.Engine}})
	p.loop.Spawn = &hooks.Hook{
		Name:     "on_checkpoint (spawn " + c.Pipeline + ")",
		Type:     hooks.TypeCommand,
		Event:    hooks.Checkpoint,
		Command:  c.Engine,
		Timeout:  timeout,
		Blocking: true, // a child that could not run, or ran out of time, holds the checkpoint
		Enabled:  true,
		Source:   hooks.Source{Format: Name, Scope: "project", File: p.Path, Line: v.Line, Col: v.Column},
		Options:  opts,
		Dialect:  Spawn{Pipeline: c.Pipeline, Inputs: c.Inputs, OnComplete: c.OnComplete, Engine: c.Engine},
	}
}

// Spawn runs a child pipeline at a checkpoint as the plan's spawn.sh does: in the parent
// session's directory (.claude/pipeline-runs/<session>/, the session's name), it makes
// children/checkpoint-<N>/ (N the iteration), writes the inputs there (inputs.json, their
// ${VAR}s expanded: the loop variables from the payload, the others from the environment), marks
// the parent's state.json paused (when there is one), runs
//
//	<engine> --session-dir <child dir> --pipeline <pipeline> --inputs <child dir>/inputs.json
//
// from the workspace and waits for it, marks the parent running again, and hands the child's
// output.json on to the checkpoint's later hooks in CHILD_OUTPUT (unless on_complete is ignore).
// The child's own state, progress and output stay in its directory. A child that fails (a
// non-zero exit), cannot start, outlives the timeout or returns an output.json that is not JSON
// holds the checkpoint: the hook is blocking.
//
// agent-hooks does not run the child's stages itself: they are agent loops, which the engine
// runs. With no engine at the path (scripts/engine.sh, or checkpoints.spawn.engine) the
// checkpoint is held with a reason.
type Spawn struct {
	Pipeline   string
	Inputs     map[string]string
	OnComplete string // merge, replace or ignore
	Engine     string // relative to the workspace, or absolute
}

// spawnRun is where one spawn runs.
type spawnRun struct {
	session, runDir, childDir string
	checkpoint                int
}

func (s Spawn) where(inv *hooks.Invocation) (spawnRun, error) {
	session := seedfmt.SessionName(inv.Payload, inv.SessionID)
	if session == "" || session == "." || session == ".." || strings.ContainsAny(session, `/\`+"\x00") {
		return spawnRun{}, fmt.Errorf("the session name %q cannot name the session's directory", session)
	}
	n, err := strconv.Atoi(template.FormatValue(inv.Payload["iteration"]))
	if err != nil || n <= 0 {
		return spawnRun{}, fmt.Errorf("the checkpoint has no iteration (give --data iteration=N): its child's directory is children/checkpoint-<iteration>")
	}
	runDir := filepath.Join(inv.Workspace, ".claude", "pipeline-runs", session)
	return spawnRun{session: session, runDir: runDir, checkpoint: n,
		childDir: filepath.Join(runDir, "children", "checkpoint-"+strconv.Itoa(n))}, nil
}

// Prepare implements hooks.Dialect.
func (s Spawn) Prepare(inv *hooks.Invocation) (process.Process, error) {
	w, err := s.where(inv)
	if err != nil {
		return process.Process{}, fmt.Errorf("spawn %s: %w", s.Pipeline, err)
	}
	engine := s.Engine
	if !filepath.IsAbs(engine) {
		engine = filepath.Join(inv.Workspace, engine)
	}
	if k, err := seedfmt.Stat(engine); err != nil || k != seedfmt.Executable {
		return process.Process{}, fmt.Errorf("spawn %s: agent-pipelines' engine %s is not an executable file here; "+
			"agent-hooks runs the child pipeline with it (checkpoints.spawn.engine)", s.Pipeline, engine)
	}
	if err := os.MkdirAll(w.childDir, 0o755); err != nil {
		return process.Process{}, fmt.Errorf("spawn %s: %w", s.Pipeline, err)
	}
	// output.json is the child's answer to this run: one left by an earlier run is not.
	if err := os.Remove(filepath.Join(w.childDir, "output.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return process.Process{}, fmt.Errorf("spawn %s: remove the earlier output.json: %w", s.Pipeline, err)
	}
	env := seedfmt.LoopEnv(inv.Payload, w.session)
	lookup := envLookup(env, inv.Getenv)
	inputs := make(map[string]string, len(s.Inputs))
	for k, v := range s.Inputs {
		inputs[k] = os.Expand(v, lookup)
	}
	data, err := json.MarshalIndent(inputs, "", "  ")
	if err != nil {
		return process.Process{}, fmt.Errorf("spawn %s: encode inputs: %w", s.Pipeline, err)
	}
	inputsFile := filepath.Join(w.childDir, "inputs.json")
	if err := atomicfile.WriteFile(inputsFile, append(data, '\n'), 0o644); err != nil {
		return process.Process{}, fmt.Errorf("spawn %s: write inputs: %w", s.Pipeline, err)
	}
	state := filepath.Join(w.runDir, "state.json")
	if err := updateState(state, map[string]any{"status": "paused", "paused_at": w.checkpoint, "child_session": w.childDir}); err != nil {
		return process.Process{}, fmt.Errorf("spawn %s: pause the parent: %w", s.Pipeline, err)
	}
	return process.Process{
		Argv: []string{engine, "--session-dir", w.childDir, "--pipeline", s.Pipeline, "--inputs", inputsFile},
		Env:  env,
		Cleanup: func() {
			// resumed whatever became of the child, as spawn.sh does; the checkpoint's outcome
			// says what it was
			_ = updateState(state, map[string]any{"status": "running", "child_completed": w.checkpoint})
		},
	}, nil
}

// Interpret implements hooks.Dialect: the child's exit and its output.
func (s Spawn) Interpret(inv *hooks.Invocation, p *process.Result) hooks.Outcome {
	o, done := seedfmt.Finish(p)
	w, _ := s.where(inv) // Prepare checked it
	o.Details = map[string]any{"pipeline": s.Pipeline, "childDir": w.childDir, "checkpoint": w.checkpoint}
	switch {
	case o.Status == hooks.StatusTimeout:
		o.Reason = fmt.Sprintf("child pipeline %s did not finish within %s", s.Pipeline, inv.Hook.Timeout)
		return o
	case done:
		o.Reason = fmt.Sprintf("child pipeline %s: %s", s.Pipeline, o.Reason)
		return o
	case p.ExitCode != 0:
		o.Status, o.Decision = hooks.StatusBlocked, hooks.DecisionBlock
		o.Reason = fmt.Sprintf("child pipeline %s failed (exit %d): %s", s.Pipeline, p.ExitCode, seedfmt.Reason(p))
		return o
	}
	out, err := readChildOutput(filepath.Join(w.childDir, "output.json"))
	if err != nil {
		o.Status, o.Decision = hooks.StatusBlocked, hooks.DecisionBlock
		o.Reason = fmt.Sprintf("child pipeline %s: %v", s.Pipeline, err)
		return o
	}
	if out == nil {
		return o // no output.json: nothing to hand on, as in spawn.sh
	}
	if len(out) <= hooks.MaxEnvPayload { // a larger one stays in its file, out of the audit trail
		var doc any
		_ = json.Unmarshal(out, &doc) // readChildOutput checked it
		o.Details["output"] = doc
	}
	o.Details["outputBytes"] = len(out)
	if s.OnComplete != "ignore" {
		o.Set = hooks.HandOn(inv.Payload, ChildOutputVar, string(out))
	}
	return o
}

// readChildOutput reads a child's output.json: nil when there is none.
func readChildOutput(path string) ([]byte, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read output.json: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("output.json is not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read output.json: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxChildOutput+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("read output.json: %w", err)
	case len(data) > MaxChildOutput:
		return nil, fmt.Errorf("output.json is larger than %d MiB", MaxChildOutput>>20)
	case !json.Valid(data):
		return nil, fmt.Errorf("output.json is not JSON")
	}
	return []byte(strings.TrimSpace(string(data))), nil
}

// updateState sets fields of the parent's state.json, as spawn.sh's update_state does; a
// session without one (no engine keeps state here) is left alone.
func updateState(path string, fields map[string]any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var state map[string]any
	if err := json.Unmarshal(data, &state); err != nil || state == nil {
		return fmt.Errorf("%s is not a JSON object", path)
	}
	maps.Copy(state, fields)
	out, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(out, '\n'), 0o644)
}

// envLookup looks a variable up in env (KEY=VALUE pairs, the last one winning), else getenv.
func envLookup(env []string, getenv func(string) string) func(string) string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(k string) string {
		if v, ok := m[k]; ok {
			return v
		}
		if getenv != nil {
			return getenv(k)
		}
		return ""
	}
}
