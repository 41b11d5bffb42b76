// Package runnertest runs the steps of a composite action (action.yml) the way the GitHub Actions
// runner does, so that a test can exercise the action itself: the inputs with their defaults,
// ${{ }} expressions over the github, inputs, steps, runner and env contexts, if: conditions with
// the status functions, run: steps written to a file and run with `bash --noprofile --norc -e -o
// pipefail`, the step's env over the job's and what earlier steps wrote to GITHUB_ENV and
// GITHUB_PATH, GITHUB_OUTPUT read by the runner's rules (github.ParseEnvFile), workflow commands on
// stdout and stderr (::add-mask::, ::stop-commands::, annotations), the action's outputs, and the
// post steps of the actions it uses. A `uses:` step runs an emulation the test supplies (Cache and
// SetupGo are here), keyed by owner/name@ref, so a new action or version must be emulated before a
// test passes.
//
// What the runner does that this does not: other shells than bash, Windows paths, containers,
// pre: steps, continue-on-error, timeouts, and the expression functions other than success,
// failure, always, cancelled, contains, startsWith, endsWith, format and toJSON (hashFiles is an
// error: the runner evaluates it against the workspace only).
package runnertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/autoagent/agent-hooks/github"
)

// Job is one use of the action in a job.
type Job struct {
	ActionDir string            // the action's directory: github.action_path
	Inputs    map[string]string // the with: of the step that uses the action
	GitHub    map[string]string // the github context (server_url, action_ref, workspace, token, …)
	Env       []string          // the job's environment, KEY=value; nothing else is inherited
	OS, Arch  string            // runner.os (Linux, macOS) and runner.arch (X64, ARM64)
	Temp      string            // runner.temp, RUNNER_TEMP: the runner empties it before each job
	ToolCache string            // runner.tool_cache, RUNNER_TOOL_CACHE
	Secrets   []string          // masked from the start, as the runner masks secrets and github.token
	Uses      map[string]Uses   // emulations of the actions the steps use, by "owner/name@ref"
	Log       io.Writer         // if set, the log as the runner shows it (masked), line by line
	// AfterStep, if set, is called after each step (run or skipped) and before the next one and
	// the post steps: a test's stand-in for whatever else writes to the machine meanwhile, such as
	// a later step of the job or a process an earlier job left behind.
	AfterStep func(Step)
}

// Uses emulates one action a step uses. post, if not nil, runs after the action's steps, as the
// action's post step does, with whether the job failed.
type Uses func(ctx context.Context, call *UsesCall) (outputs map[string]string, post func(jobFailed bool) error, err error)

// UsesCall is what an emulated action gets.
type UsesCall struct {
	With    map[string]string // its inputs, expressions evaluated
	Env     []string          // the environment a run: step would have
	AddPath func(dir string)  // as a line written to GITHUB_PATH
	Job     *Job
}

// Result is what a job run of the action gives.
type Result struct {
	Start       time.Time         // when the first step started
	Outputs     map[string]string // the action's outputs
	Steps       []Step
	Lines       []Line // the log, masked
	Annotations []Annotation
	Failed      bool
	// Paths are the folders the steps added to GITHUB_PATH, newest first: what the job's later
	// steps find first on PATH.
	Paths []string
}

// Step is one step's run.
type Step struct {
	ID, Name   string
	Outcome    string // success, failure or skipped
	Outputs    map[string]string
	Start, End time.Time
}

// Line is a line of the log and when the runner read it.
type Line struct {
	Time time.Time
	Step string
	Text string
}

// Annotation is an ::error::, ::warning:: or ::notice:: workflow command.
type Annotation struct{ Level, Title, Message string }

// Log is the whole log as text.
func (r *Result) Log() string {
	var b strings.Builder
	for _, l := range r.Lines {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// FirstLine is the first log line containing s, and whether there is one.
func (r *Result) FirstLine(s string) (Line, bool) {
	for _, l := range r.Lines {
		if strings.Contains(l.Text, s) {
			return l, true
		}
	}
	return Line{}, false
}

// Step is the run of the step with id, or nil.
func (r *Result) Step(id string) *Step {
	for i := range r.Steps {
		if r.Steps[i].ID == id {
			return &r.Steps[i]
		}
	}
	return nil
}

type actionFile struct {
	Inputs map[string]struct {
		Required bool   `yaml:"required"`
		Default  string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string     `yaml:"using"`
		Steps []stepSpec `yaml:"steps"`
	} `yaml:"runs"`
}

type stepSpec struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	Env              yaml.Node         `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	ContinueOnError  any               `yaml:"continue-on-error"`
}

// run is the state of one job run.
type run struct {
	job     *Job
	res     *Result
	ev      *evaluator
	steps   map[string]any // the steps context
	envAdd  []string       // from GITHUB_ENV, KEY=value, in order
	paths   []string       // from GITHUB_PATH, newest first
	masks   []string
	posts   []func(jobFailed bool) error
	mu      sync.Mutex // guards res.Lines, res.Annotations, masks and stop during a step
	stop    string     // the ::stop-commands:: token in force
	fileSeq int
}

// Run runs the action's steps, then the post steps of the actions they used.
func (j *Job) Run(ctx context.Context) (*Result, error) {
	src, err := os.ReadFile(filepath.Join(j.ActionDir, "action.yml"))
	if err != nil {
		return nil, err
	}
	var af actionFile
	if err := yaml.Unmarshal(src, &af); err != nil {
		return nil, fmt.Errorf("action.yml: %w", err)
	}
	if af.Runs.Using != "composite" {
		return nil, fmt.Errorf("action.yml: runs.using %q is not emulated", af.Runs.Using)
	}
	r := &run{job: j, res: &Result{Outputs: map[string]string{}}, steps: map[string]any{}, masks: slices.Clone(j.Secrets)}
	gh := map[string]any{"action_path": j.ActionDir}
	for k, v := range j.GitHub {
		gh[k] = v
	}
	r.ev = &evaluator{contexts: map[string]any{
		"github": gh,
		"runner": map[string]any{"os": j.OS, "arch": j.Arch, "temp": j.Temp, "tool_cache": j.ToolCache, "name": "runnertest"},
		"steps":  r.steps,
		"env":    map[string]any{},
		"job":    map[string]any{"status": "success"},
	}}

	inputs := map[string]any{}
	for name := range j.Inputs {
		if _, ok := af.Inputs[name]; !ok {
			return nil, fmt.Errorf("input %q is not an input of the action", name)
		}
	}
	for name, in := range af.Inputs {
		v, given := j.Inputs[name]
		if !given {
			if in.Required && in.Default == "" {
				return nil, fmt.Errorf("required input %q not given", name)
			}
			if v, err = r.ev.interpolate(in.Default); err != nil {
				return nil, fmt.Errorf("input %s default: %w", name, err)
			}
		}
		inputs[name] = v
	}
	r.ev.contexts["inputs"] = inputs

	r.res.Start = time.Now()
	for i, spec := range af.Runs.Steps {
		if err := r.step(ctx, i, spec); err != nil {
			return r.res, err
		}
	}
	r.res.Paths = slices.Clone(r.paths)
	for name, out := range af.Outputs {
		v, err := r.ev.interpolate(out.Value)
		if err != nil {
			return r.res, fmt.Errorf("output %s: %w", name, err)
		}
		r.res.Outputs[name] = v
	}
	for i := len(r.posts) - 1; i >= 0; i-- {
		if err := r.posts[i](r.res.Failed); err != nil {
			return r.res, fmt.Errorf("post step: %w", err)
		}
	}
	return r.res, nil
}

func (r *run) step(ctx context.Context, i int, spec stepSpec) error {
	id := spec.ID
	if id == "" {
		id = "__" + strconv.Itoa(i)
	}
	if spec.ContinueOnError != nil {
		return fmt.Errorf("step %s: continue-on-error is not emulated", id)
	}
	r.ev.status.failed = r.res.Failed
	name, err := r.ev.interpolate(spec.Name)
	if err != nil {
		return fmt.Errorf("step %s name: %w", id, err)
	}
	st := Step{ID: id, Name: name, Outputs: map[string]string{}, Start: time.Now()}
	ok, err := r.ev.condition(spec.If)
	if err != nil {
		return fmt.Errorf("step %s if: %w", id, err)
	}
	if !ok {
		st.Outcome, st.End = "skipped", time.Now()
		r.record(st)
		return nil
	}
	r.logf(id, "##[group]%s", name)

	// The env context of the step: the job's, what GITHUB_ENV added, then the step's own.
	envCtx := map[string]any{}
	for _, kv := range append(slices.Clone(r.job.Env), r.envAdd...) {
		k, v, _ := strings.Cut(kv, "=")
		envCtx[k] = v
	}
	r.ev.contexts["env"] = envCtx
	stepEnv, err := r.stepEnv(spec.Env, envCtx)
	if err != nil {
		return fmt.Errorf("step %s env: %w", id, err)
	}
	env := r.processEnv(stepEnv)

	var failure error
	switch {
	case spec.Uses != "" && spec.Run != "":
		return fmt.Errorf("step %s has both uses and run", id)
	case spec.Uses != "":
		failure, err = r.uses(ctx, id, spec, env, &st)
	case spec.Run != "":
		failure, err = r.runScript(ctx, id, spec, env, &st)
	default:
		return fmt.Errorf("step %s has neither uses nor run", id)
	}
	if err != nil {
		return err
	}
	st.Outcome = "success"
	if failure != nil {
		st.Outcome = "failure"
		r.res.Failed = true
		r.annotate(id, Annotation{Level: "error", Message: failure.Error()})
	}
	st.End = time.Now()
	r.record(st)
	return nil
}

// record adds a step's run to the result and the steps context, and calls the job's AfterStep.
func (r *run) record(st Step) {
	r.res.Steps = append(r.res.Steps, st)
	outputs := map[string]any{}
	for k, v := range st.Outputs {
		outputs[k] = v
	}
	r.steps[st.ID] = map[string]any{"outputs": outputs, "outcome": st.Outcome, "conclusion": st.Outcome}
	if r.job.AfterStep != nil {
		r.job.AfterStep(st)
	}
}

// stepEnv evaluates a step's env: mapping, in order (a value may use the env context).
func (r *run) stepEnv(node yaml.Node, envCtx map[string]any) ([]string, error) {
	if node.Kind == 0 {
		return nil, nil
	}
	if node.Kind != yaml.MappingNode {
		return nil, errors.New("not a mapping")
	}
	var out []string
	for i := 0; i+1 < len(node.Content); i += 2 {
		k := node.Content[i].Value
		v, err := r.ev.interpolate(node.Content[i+1].Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out = append(out, k+"="+v)
		envCtx[k] = v
	}
	return out, nil
}

// processEnv is the environment of a step's process: the job's, GITHUB_ENV's, the step's, with
// GITHUB_PATH's directories before PATH, and the runner's own variables.
func (r *run) processEnv(stepEnv []string) []string {
	env := map[string]string{}
	var order []string
	set := func(kv string) {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := env[k]; !ok {
			order = append(order, k)
		}
		env[k] = v
	}
	for _, kv := range r.job.Env {
		set(kv)
	}
	for _, kv := range r.envAdd {
		set(kv)
	}
	for _, kv := range stepEnv {
		set(kv)
	}
	if len(r.paths) > 0 {
		set("PATH=" + strings.Join(append(slices.Clone(r.paths), env["PATH"]), string(os.PathListSeparator)))
	}
	for k, v := range map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_ACTION_PATH": r.job.ActionDir,
		"GITHUB_WORKSPACE": r.job.GitHub["workspace"], "GITHUB_SERVER_URL": r.job.GitHub["server_url"],
		"GITHUB_REPOSITORY": r.job.GitHub["repository"],
		"RUNNER_OS":         r.job.OS, "RUNNER_ARCH": r.job.Arch, "RUNNER_TEMP": r.job.Temp, "RUNNER_TOOL_CACHE": r.job.ToolCache,
	} {
		set(k + "=" + v)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+env[k])
	}
	return out
}

func (r *run) uses(ctx context.Context, id string, spec stepSpec, env []string, st *Step) (failure, err error) {
	emulate, ok := r.job.Uses[spec.Uses]
	if !ok {
		return nil, fmt.Errorf("step %s uses %s, which the test does not emulate", id, spec.Uses)
	}
	with := map[string]string{}
	for k, v := range spec.With {
		if with[k], err = r.ev.interpolate(v); err != nil {
			return nil, fmt.Errorf("step %s with.%s: %w", id, k, err)
		}
	}
	call := &UsesCall{With: with, Env: env, Job: r.job, AddPath: func(dir string) { r.paths = append([]string{dir}, r.paths...) }}
	outputs, post, err := emulate(ctx, call)
	if err != nil {
		return err, nil // the action failed the step
	}
	for k, v := range outputs {
		st.Outputs[k] = v
	}
	if post != nil {
		r.posts = append(r.posts, post)
	}
	return nil, nil
}

// runScript runs a run: step as the runner does with shell: bash.
func (r *run) runScript(ctx context.Context, id string, spec stepSpec, env []string, st *Step) (failure, err error) {
	if spec.Shell != "bash" {
		return nil, fmt.Errorf("step %s: shell %q is not emulated (composite run steps must name one; bash is)", id, spec.Shell)
	}
	script, err := r.ev.interpolate(spec.Run)
	if err != nil {
		return nil, fmt.Errorf("step %s run: %w", id, err)
	}
	dir := r.job.GitHub["workspace"]
	if spec.WorkingDirectory != "" {
		if dir, err = r.ev.interpolate(spec.WorkingDirectory); err != nil {
			return nil, fmt.Errorf("step %s working-directory: %w", id, err)
		}
	}
	files := filepath.Join(r.job.Temp, "_runner_file_commands")
	if err := os.MkdirAll(files, 0o755); err != nil {
		return nil, err
	}
	r.fileSeq++
	name := func(kind string) string { return filepath.Join(files, fmt.Sprintf("%s_%d", kind, r.fileSeq)) }
	fileEnv := map[string]string{"GITHUB_OUTPUT": name("set_output"), "GITHUB_ENV": name("set_env"),
		"GITHUB_PATH": name("add_path"), "GITHUB_STATE": name("save_state"), "GITHUB_STEP_SUMMARY": name("step_summary")}
	for k, f := range fileEnv {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			return nil, err
		}
		env = append(env, k+"="+f)
	}
	scriptFile := name("script") + ".sh"
	if err := os.WriteFile(scriptFile, []byte(script), 0o644); err != nil {
		return nil, err
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bash, "--noprofile", "--norc", "-e", "-o", "pipefail", scriptFile)
	cmd.Dir, cmd.Env = dir, env
	stdout, stderr := &lineWriter{r: r, step: id}, &lineWriter{r: r, step: id}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 5 * time.Second // a child left holding the output when ctx ends cannot hang the job
	err = cmd.Run()
	stdout.flush()
	stderr.flush()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, fmt.Errorf("step %s: %w", id, err)
		}
		failure = runnerMessage(fmt.Sprintf("Process completed with exit code %d.", ee.ExitCode()))
		if ctx.Err() != nil {
			return nil, fmt.Errorf("step %s: %w", id, ctx.Err())
		}
	}
	problems, err := r.readFileCommands(fileEnv, st)
	if err != nil {
		return nil, err
	}
	if failure == nil && problems != nil {
		failure = problems
	}
	return failure, nil
}

// readFileCommands applies what a step wrote to its GITHUB_OUTPUT, GITHUB_ENV and GITHUB_PATH; a
// file the runner would refuse fails the step.
func (r *run) readFileCommands(files map[string]string, st *Step) (failure, err error) {
	for _, kind := range []string{"GITHUB_OUTPUT", "GITHUB_ENV"} {
		src, err := os.ReadFile(files[kind])
		if err != nil {
			return nil, err
		}
		entries, problems := github.ParseEnvFile(string(src), false)
		if len(problems) > 0 {
			return fmt.Errorf("%s line %d: %s", kind, problems[0].Line, problems[0].Msg), nil
		}
		for _, e := range entries {
			if kind == "GITHUB_OUTPUT" {
				st.Outputs[e.Name] = e.Value
			} else {
				r.envAdd = append(r.envAdd, e.Name+"="+e.Value)
			}
		}
	}
	src, err := os.ReadFile(files["GITHUB_PATH"])
	if err != nil {
		return nil, err
	}
	for _, p := range strings.Split(string(src), "\n") {
		if p = strings.TrimSpace(p); p != "" {
			r.paths = append([]string{p}, r.paths...)
		}
	}
	return nil, nil
}

// lineWriter hands a step's output to the run line by line, as it comes.
type lineWriter struct {
	r    *run
	step string
	buf  []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.r.line(w.step, strings.TrimRight(string(w.buf[:i]), "\r"))
		w.buf = w.buf[i+1:]
	}
}

// flush hands over a last line without a line break.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.r.line(w.step, strings.TrimRight(string(w.buf), "\r"))
		w.buf = nil
	}
}

// line handles one line a step printed: workflow commands, then the masked text into the log.
func (r *run) line(step, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop != "" {
		if text == "::"+r.stop+"::" {
			r.stop = ""
			return
		}
		r.appendLine(step, text)
		return
	}
	if cmd, rest, ok := strings.Cut(strings.TrimPrefix(text, "::"), "::"); ok && strings.HasPrefix(text, "::") {
		name, props, _ := strings.Cut(cmd, " ")
		switch name {
		case "add-mask":
			if rest = strings.TrimSpace(rest); rest != "" {
				r.masks = append(r.masks, rest)
			}
			return
		case "stop-commands":
			r.stop = rest
			return
		case "error", "warning", "notice":
			a := Annotation{Level: name, Message: unescapeData(rest)}
			for _, p := range strings.Split(props, ",") {
				if k, v, ok := strings.Cut(p, "="); ok && k == "title" {
					a.Title = unescapeProperty(v)
				}
			}
			r.res.Annotations = append(r.res.Annotations, a)
			r.appendLine(step, strings.ToUpper(name[:1])+name[1:]+": "+a.Message)
			return
		case "debug", "group", "endgroup", "echo":
			return
		}
	}
	r.appendLine(step, text)
}

func (r *run) annotate(step string, a Annotation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Annotations = append(r.res.Annotations, a)
	r.appendLine(step, "Error: "+a.Message)
}

func (r *run) logf(step, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.appendLine(step, fmt.Sprintf(format, args...))
}

// appendLine masks a line and logs it; r.mu is held.
func (r *run) appendLine(step, text string) {
	masks := slices.Clone(r.masks)
	sort.Slice(masks, func(i, j int) bool { return len(masks[i]) > len(masks[j]) })
	for _, m := range masks {
		text = strings.ReplaceAll(text, m, "***")
	}
	r.res.Lines = append(r.res.Lines, Line{Time: time.Now(), Step: step, Text: text})
	if r.job.Log != nil {
		fmt.Fprintln(r.job.Log, text)
	}
}

// runnerMessage is a step failure in the runner's own words.
type runnerMessage string

func (m runnerMessage) Error() string { return string(m) }

func unescapeData(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%").Replace(s)
}

func unescapeProperty(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}
