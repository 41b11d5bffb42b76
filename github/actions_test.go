package github

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	for _, name := range []string{"event", "payload", "config", "working-directory", "github-token", "session-id", "fail-on-block", "version"} {
		if inputs[name] == nil {
			t.Errorf("input %s missing", name)
		}
	}
	if len(inputs) != 8 {
		t.Errorf("%d inputs, want exactly the 8 documented", len(inputs))
	}
	outputs := action["outputs"].(map[string]any)
	for _, name := range OutputNames {
		o, _ := outputs[name].(map[string]any)
		if o == nil || o["value"] != "${{ steps.run.outputs."+name+" }}" {
			t.Errorf("output %s does not come from the run step: %v", name, outputs[name])
		}
	}
	// The set-up use: the path of what was installed, from the step that puts it on PATH.
	if o, _ := outputs["path"].(map[string]any); o == nil || o["value"] != "${{ steps.path.outputs.path }}" {
		t.Errorf("output path does not come from the path step: %v", outputs["path"])
	}
	// A composite action's steps get no INPUT_* variables: the run step must pass every input
	// but version, which picks the release to install (the release step's).
	steps := action["runs"].(map[string]any)["steps"].([]any)
	var run, release map[string]any
	for _, s := range steps {
		switch m := s.(map[string]any); m["id"] {
		case "run":
			run = m
		case "release":
			release = m
		}
	}
	if run == nil || release == nil {
		t.Fatal("no step with id run, or none with id release")
	}
	if v := release["env"].(map[string]any)["AGENT_HOOKS_VERSION"]; v != "${{ inputs.version }}" {
		t.Errorf("the release step does not get the version input: %v", v)
	}
	envs := run["env"].(map[string]any)
	for name := range inputs {
		if name == "version" {
			continue
		}
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
	if err := a.Report(res, true, ""); err != nil {
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
	if err := a.Report(res, true, ""); err == nil || !strings.Contains(err.Error(), "GITHUB_OUTPUT is not set") {
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

// TestOutputsNameWhoDecided: the approval outputs name who decided the approval that counts for
// the event, how and where: its rejection when it blocked the event, else the last approval.
func TestOutputsNameWhoDecided(t *testing.T) {
	t.Parallel()
	approved := hooks.HookResult{Name: "plan", Type: "approval", Status: hooks.StatusOK,
		Details: map[string]any{"decider": "alice", "via": "review", "url": "https://github.com/o/r/pull/1#pullrequestreview-1"}}
	rejected := hooks.HookResult{Name: "deploy", Type: "approval", Status: hooks.StatusBlocked, Reason: "rejected by @bob",
		Details: map[string]any{"decider": "bob", "via": "comment", "url": "https://github.com/o/r/pull/1#issuecomment-2"}}
	timedOut := hooks.HookResult{Name: "late", Type: "approval", Status: hooks.StatusBlocked, Reason: "no approval", Details: map[string]any{"timedOut": true}}
	for _, tt := range []struct {
		name string
		res  hooks.Result
		want [3]string
	}{
		{"approved", hooks.Result{Decision: "approve", Hooks: []hooks.HookResult{approved}}, [3]string{"alice", "review", approved.Details["url"].(string)}},
		{"rejected after an approval", hooks.Result{Decision: "block", Blocked: true, Reason: rejected.Reason, Hooks: []hooks.HookResult{approved, rejected}},
			[3]string{"bob", "comment", rejected.Details["url"].(string)}},
		{"nobody decided", hooks.Result{Decision: "block", Blocked: true, Reason: timedOut.Reason, Hooks: []hooks.HookResult{timedOut}}, [3]string{}},
	} {
		got, err := Outputs(&tt.res)
		if err != nil {
			t.Fatal(err)
		}
		if g := [3]string{got["approval-decider"], got["approval-via"], got["approval-url"]}; g != tt.want {
			t.Errorf("%s: approval outputs %q, want %q", tt.name, g, tt.want)
		}
	}
}

// TestActionReportSession: the session's calls follow the event's hooks in the step summary,
// unless they would take it past what GitHub keeps of a step's summary: then a line says where
// they are.
func TestActionReportSession(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		written    int // bytes the hooks wrote to the summary, forwarded
		session    string
		want, not  string
		wantLength int // at most
	}{
		{name: "added", session: "### agent-hooks session `s`\n\n```mermaid\ngantt\n```\n", want: "| lint | command |", not: "do not fit"},
		{name: "none", session: "", not: "### agent-hooks session"},
		{name: "too large", written: maxStepSummary - 100<<10, session: strings.Repeat("| x |\n", 20<<10), want: "do not fit in this step's summary: `agent-hooks session show --markdown`", not: "| x |", wantLength: maxStepSummary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			outFile, summary := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
			if err := os.WriteFile(outFile, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(summary, bytes.Repeat([]byte("h"), tt.written), 0o644); err != nil {
				t.Fatal(err)
			}
			res := &hooks.Result{Event: "PostExecutionEnd", Decision: hooks.DecisionApprove, SessionID: "s",
				Hooks: []hooks.HookResult{{Name: "lint", Type: "command", Status: hooks.StatusOK}}}
			a := NewAction(&bytes.Buffer{}, env{"GITHUB_OUTPUT": outFile, "GITHUB_STEP_SUMMARY": summary}.get)
			if err := a.Report(res, true, tt.session); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(summary)
			sum := string(b[tt.written:])
			hooksAt, sessionAt := strings.Index(sum, "| lint |"), strings.Index(sum, "### agent-hooks session")
			if tt.session != "" && tt.want == "| lint | command |" && (hooksAt < 0 || sessionAt < hooksAt) {
				t.Errorf("want the hooks' table, then the session:\n%s", sum)
			}
			if !strings.Contains(sum, tt.want) || (tt.not != "" && strings.Contains(sum, tt.not)) {
				t.Errorf("summary lacks %q or has %q:\n%s", tt.want, tt.not, sum)
			}
			if tt.wantLength > 0 && len(b) > tt.wantLength {
				t.Errorf("summary of %d bytes, want at most %d", len(b), tt.wantLength)
			}
		})
	}
}
