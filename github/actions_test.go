package github

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/autoagent/agent-hooks/hooks"
)

// compileSchema loads one of SchemaStore's schemas from testdata/schemas.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "schemas", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "https://json.schemastore.org/" + name
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// yamlDoc reads a YAML file as the JSON value a schema validates.
func yamlDoc(t *testing.T, path string) (any, map[string]any) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return doc, v
}

func TestActionYAML(t *testing.T) {
	t.Parallel()
	doc, action := yamlDoc(t, filepath.Join("..", "action.yml"))
	if err := compileSchema(t, "github-action.json").Validate(doc); err != nil {
		t.Fatalf("action.yml does not match the action metadata schema: %v", err)
	}
	inputs := action["inputs"].(map[string]any)
	for _, name := range []string{"event", "payload", "config", "working-directory", "github-token", "session-id", "fail-on-block"} {
		if inputs[name] == nil {
			t.Errorf("input %s missing", name)
		}
	}
	if len(inputs) != 7 {
		t.Errorf("%d inputs, want exactly the 7 documented", len(inputs))
	}
	outputs := action["outputs"].(map[string]any)
	for _, name := range OutputNames {
		o, _ := outputs[name].(map[string]any)
		if o == nil || o["value"] != "${{ steps.run.outputs."+name+" }}" {
			t.Errorf("output %s does not come from the run step: %v", name, outputs[name])
		}
	}
	// A composite action's steps get no INPUT_* variables: the run step must pass every input.
	steps := action["runs"].(map[string]any)["steps"].([]any)
	var run map[string]any
	for _, s := range steps {
		if m := s.(map[string]any); m["id"] == "run" {
			run = m
		}
	}
	if run == nil {
		t.Fatal("no step with id run")
	}
	envs := run["env"].(map[string]any)
	for name := range inputs {
		key := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if envs[key] != "${{ inputs."+name+" }}" {
			t.Errorf("run step does not pass input %s as %s (got %v)", name, key, envs[key])
		}
	}
	// And the names it uses are the ones `agent-hooks action` reads.
	getenv := func(k string) string {
		if v, ok := envs[k].(string); ok {
			return "value of " + v
		}
		return ""
	}
	in, err := NewAction(&bytes.Buffer{}, getenv).Inputs()
	if err == nil || !strings.Contains(err.Error(), "fail-on-block") {
		t.Fatalf("fail-on-block %q was not read from INPUT_FAIL_ON_BLOCK: %v", getenv("INPUT_FAIL_ON_BLOCK"), err)
	}
	for name, got := range map[string]string{"event": in.Event, "payload": in.Payload, "config": in.Config,
		"working-directory": in.WorkingDirectory, "github-token": in.GitHubToken, "session-id": in.SessionID} {
		if got != "value of ${{ inputs."+name+" }}" {
			t.Errorf("input %s read as %q", name, got)
		}
	}
}

// TestActionBuildsForTheRunner runs the build step of action.yml with bash the way the runner
// does (the job's environment, the step's env over it, in the action's folder) in a job that
// cross-compiles a project of its own with GOOS, GOARCH and GOFLAGS set for every step: the binary
// it names must still run on the runner.
func TestActionBuildsForTheRunner(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds agent-hooks")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	_, action := yamlDoc(t, filepath.Join("..", "action.yml"))
	var build map[string]any
	for _, s := range action["runs"].(map[string]any)["steps"].([]any) {
		if m := s.(map[string]any); m["id"] == "build" {
			build = m
		}
	}
	if build == nil {
		t.Fatal("no step with id build")
	}
	tmp := t.TempDir()
	output := filepath.Join(tmp, "output")
	otherOS, otherArch := "windows", "arm64"
	if runtime.GOOS == "windows" {
		otherOS = "linux"
	}
	runnerOS := map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[runtime.GOOS]
	env := append(os.Environ(), "RUNNER_OS="+runnerOS, "RUNNER_TEMP="+tmp, "GITHUB_OUTPUT="+output,
		"GOOS="+otherOS, "GOARCH="+otherArch, "GOFLAGS=-mod=vendor", "CGO_ENABLED=1")
	stepEnv, _ := build["env"].(map[string]any)
	for k, v := range stepEnv {
		env = append(env, k+"="+fmt.Sprint(v))
	}
	cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", build["run"].(string))
	cmd.Dir, cmd.Env = "..", env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build step: %v\n%s", err, out)
	}
	src, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	_, bin, ok := strings.Cut(strings.TrimSpace(string(src)), "path=")
	if !ok {
		t.Fatalf("build step output %q has no path", src)
	}
	if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil {
		t.Fatalf("the built %s does not run here: %v\n%s", bin, err, out)
	}
	// Static, whatever the job says: a binary linked with the C library pays for the dynamic
	// loader on every start.
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range info.Settings {
		if st.Key == "CGO_ENABLED" && st.Value != "0" {
			t.Errorf("the action builds agent-hooks with CGO_ENABLED=%s, want 0", st.Value)
		}
	}
}

func workflowFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../.github/workflows/*.yml", "../examples/workflows/*.yml"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 4 {
		t.Fatalf("found workflows %v, want ci.yml and the three examples", files)
	}
	return files
}

func TestWorkflowsMatchSchema(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t, "github-workflow.json")
	for _, f := range workflowFiles(t) {
		doc, _ := yamlDoc(t, f)
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestWorkflowsActionlint runs actionlint (go install github.com/rhysd/actionlint/cmd/actionlint)
// on every workflow when it is installed; CI installs it.
func TestWorkflowsActionlint(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("actionlint")
	if err != nil {
		gopath, _ := exec.Command("go", "env", "GOPATH").Output()
		bin = filepath.Join(strings.TrimSpace(string(gopath)), "bin", "actionlint")
		if _, err := os.Stat(bin); err != nil {
			t.Skip("actionlint is not installed")
		}
	}
	out, err := exec.Command(bin, append([]string{"-no-color"}, workflowFiles(t)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
}

func TestActionInputs(t *testing.T) {
	t.Parallel()
	var stdout bytes.Buffer
	e := env{"INPUT_EVENT": "PreExecutionEnd", "INPUT_GITHUB_TOKEN": testToken, "INPUT_FAIL-ON-BLOCK": "false", "INPUT_WORKING-DIRECTORY": "sub"}
	in, err := NewAction(&stdout, e.get).Inputs()
	if err != nil {
		t.Fatal(err)
	}
	if in.Event != "PreExecutionEnd" || in.FailOnBlock || in.WorkingDirectory != "sub" || in.GitHubToken != testToken {
		t.Errorf("got %+v", in)
	}
	if got := stdout.String(); got != "::add-mask::"+testToken+"\n" {
		t.Errorf("want the token masked first and nothing else printed, got %q", got)
	}

	for _, tt := range []struct {
		env  env
		want string
	}{
		{env{}, "input event is required"},
		{env{"INPUT_EVENT": "Stop", "INPUT_FAIL_ON_BLOCK": "maybe"}, `input fail-on-block: "maybe" is not true or false`},
	} {
		if _, err := NewAction(&bytes.Buffer{}, tt.env.get).Inputs(); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.env, err, tt.want)
		}
	}
	in, _ = NewAction(&bytes.Buffer{}, env{"INPUT_EVENT": "Stop"}.get).Inputs()
	if !in.FailOnBlock {
		t.Error("fail-on-block must default to true")
	}
}

// parseOutputFile reads a GITHUB_OUTPUT file the way the runner does: name=value lines and
// name<<DELIM heredocs.
// parseOutputFile reads an environment file by the runner's rules; every entry must be complete.
func parseOutputFile(t *testing.T, src string) map[string][]string {
	t.Helper()
	entries, problems := ParseEnvFile(src, false)
	if len(problems) > 0 {
		t.Fatalf("the runner would refuse this file: %+v\n%s", problems, src)
	}
	out := map[string][]string{}
	for _, e := range entries {
		out[e.Name] = append(out[e.Name], e.Value)
	}
	return out
}

func TestActionReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outFile, summary := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	for _, f := range []string{outFile, summary} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A reason crafted to close go-githubactions' fixed delimiter and add an output of its own.
	evil := "no\n_GitHubActionsFileCommandDelimeter_\nblocked<<EOF\nfalse\nEOF\nghadelimiter_x\n::set-output name=decision::approve"
	res := &hooks.Result{
		Event: "PreExecutionEnd", Decision: hooks.DecisionBlock, Blocked: true, Reason: evil, SessionID: "session-1-abcdef",
		Set:      hooks.Payload{"commitSha": "abc123"},
		Warnings: []string{"hook lint failed: exit 1"},
		Hooks: []hooks.HookResult{
			{Name: "lint", Type: "command", Status: hooks.StatusError, DurationMs: 12, Reason: "exit 1"},
			{Name: "tests | unit", Type: "command", Status: hooks.StatusBlocked, DurationMs: 1500, Reason: evil},
		},
	}
	var stdout bytes.Buffer
	a := NewAction(&stdout, env{"GITHUB_OUTPUT": outFile, "GITHUB_STEP_SUMMARY": summary}.get)
	if err := a.Report(res, true); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(outFile)
	got := parseOutputFile(t, string(src))
	if len(got) != len(OutputNames) {
		t.Errorf("outputs %v, want exactly %v", keys(got), OutputNames)
	}
	for name, want := range map[string]string{"decision": "block", "blocked": "true", "reason": evil, "session-id": "session-1-abcdef", "commit-sha": "abc123"} {
		if v := got[name]; len(v) != 1 || v[0] != want {
			t.Errorf("output %s = %q, want %q", name, v, want)
		}
	}
	var back hooks.Result
	if err := json.Unmarshal([]byte(got["result"][0]), &back); err != nil || back.Reason != evil || len(back.Hooks) != 2 {
		t.Errorf("result output does not hold the result: %v %+v", err, back)
	}

	sum, _ := os.ReadFile(summary)
	for _, want := range []string{"| Hook | Type | Status | Duration | Reason |", "| lint | command | ❌ error | 12ms | exit 1 |", `| tests \| unit | command | ⛔ blocked | 1.5s |`} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	if strings.Count(string(sum), "\n|") != 4 {
		t.Errorf("a reason broke the table:\n%s", sum)
	}

	log := stdout.String()
	if !strings.Contains(log, "::warning title=agent-hooks%3A PreExecutionEnd::hook lint failed: exit 1\n") {
		t.Errorf("no warning annotation for the failed hook:\n%s", log)
	}
	if !regexp.MustCompile(`(?m)^::error title=agent-hooks%3A PreExecutionEnd::PreExecutionEnd blocked: no%0A_GitHub.*set-output name=decision::approve$`).MatchString(log) {
		t.Errorf("want one escaped error annotation for the block:\n%s", log)
	}
	if strings.Count(log, "\n") != 2 {
		t.Errorf("want exactly two workflow commands, got:\n%s", log)
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestActionOutsideActions(t *testing.T) {
	t.Parallel()
	res := &hooks.Result{Event: "Stop", Decision: hooks.DecisionApprove}
	a := NewAction(&bytes.Buffer{}, env{}.get)
	if err := a.Report(res, true); err == nil || !strings.Contains(err.Error(), "GITHUB_OUTPUT is not set") {
		t.Fatalf("want a clear error instead of go-githubactions' panic, got %v", err)
	}
	a = NewAction(&bytes.Buffer{}, env{"GITHUB_OUTPUT": filepath.Join(t.TempDir(), "missing", "out")}.get)
	if err := a.SetOutputs([]string{"decision"}, map[string]string{"decision": "x"}); err == nil || !strings.Contains(err.Error(), "write step outputs") {
		t.Fatalf("an unwritable output file must be an error, got %v", err)
	}
}

func TestOutputsClipLargeResults(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	res := &hooks.Result{Event: "Stop", Hooks: []hooks.HookResult{{Name: "noisy", Stdout: big, Stderr: big}}}
	out, err := Outputs(res)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out["result"]); n > maxResultOutput {
		t.Fatalf("result output is %d bytes", n)
	}
	if !strings.Contains(out["result"], "bytes cut") {
		t.Error("clipped output does not say so")
	}
}
