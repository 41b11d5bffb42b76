package runnertest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestEvaluate(t *testing.T) {
	ev := &evaluator{contexts: map[string]any{
		"steps":  map[string]any{"a": map[string]any{"outputs": map[string]any{"path": "", "tag": "v1.2.3", "restore-keys": "x"}}},
		"inputs": map[string]any{"fail-on-block": "true"},
		"github": map[string]any{"action_ref": "V1"},
	}}
	for _, tt := range []struct{ expr, want string }{
		{"steps.a.outputs.path || steps.a.outputs.tag", "v1.2.3"},
		{"steps.a.outputs.tag != ''", "true"},
		{"steps.a.outputs.path == ''", "true"},
		{"steps.a.outputs['restore-keys']", "x"},
		{"steps.missing.outputs.path", ""},
		{"github.action_ref == 'v1'", "true"}, // strings compare case-insensitively
		{"!inputs.fail-on-block", "false"},
		{"format('{0}-{1}', 'a', steps.a.outputs.tag)", "a-v1.2.3"},
		{"startsWith(steps.a.outputs.tag, 'v1.') && 'yes'", "yes"},
		{"'it''s'", "it's"},
		{"1 == '1'", "true"},
	} {
		v, err := ev.eval(tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if got := toString(v); got != tt.want {
			t.Errorf("%s = %q, want %q", tt.expr, got, tt.want)
		}
	}
	for _, bad := range []string{"hashFiles('go.sum')", "secrets.X", "steps.a.outputs.", "'open"} {
		if _, err := ev.eval(bad); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
	got, err := ev.interpolate("tag ${{ steps.a.outputs.tag }}, path '${{ steps.a.outputs.path }}'")
	if err != nil || got != "tag v1.2.3, path ''" {
		t.Errorf("interpolate: %q %v", got, err)
	}
}

// TestRun runs a small composite action through every runner behaviour the emulation claims.
func TestRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the emulation runs bash steps with POSIX paths")
	}
	dir := t.TempDir()
	action := `name: t
description: t
inputs:
  who:
    description: x
    required: true
  token:
    description: x
    default: ${{ github.token }}
outputs:
  greeting:
    description: x
    value: ${{ steps.greet.outputs.greeting }}
  never:
    description: x
    value: ${{ steps.after.outputs.x || 'unset' }}
runs:
  using: composite
  steps:
    - id: env
      shell: bash
      env:
        TOKEN: ${{ inputs.token }}
      run: |
        echo "::add-mask::$TOKEN"
        echo "token is $TOKEN"
        echo "FROM_ENV=set by env" >> "$GITHUB_ENV"
        mkdir -p "$RUNNER_TEMP/bin" && printf '#!/bin/sh\necho tool ran\n' > "$RUNNER_TEMP/bin/tool" && chmod +x "$RUNNER_TEMP/bin/tool"
        echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"
    - id: greet
      shell: bash
      env:
        WHO: ${{ inputs.who }}
      run: |
        tool
        echo "::stop-commands::tok123"
        echo "::add-mask::$WHO"
        echo "::tok123::"
        echo "::warning title=a%3Ab::two%0Alines"
        { echo "greeting<<EOF"; echo "hello $WHO"; echo "($FROM_ENV)"; echo "EOF"; } >> "$GITHUB_OUTPUT"
    - id: skipped
      if: inputs.who == 'nobody'
      shell: bash
      run: exit 1
    - id: fails
      shell: bash
      run: exit 3
    - id: after
      shell: bash
      run: echo "x=1" >> "$GITHUB_OUTPUT"
    - id: always
      if: always()
      shell: bash
      run: |
        echo "cleanup ran"
        [ ! -f "$RUNNER_TEMP/between" ] || cat "$RUNNER_TEMP/between"
`
	if err := os.WriteFile(filepath.Join(dir, "action.yml"), []byte(action), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, temp := t.TempDir(), t.TempDir()
	var between []string
	job := &Job{
		ActionDir: dir, Inputs: map[string]string{"who": "octocat"},
		GitHub: map[string]string{"token": "ghs_secret", "workspace": ws},
		Env:    []string{"PATH=" + os.Getenv("PATH")},
		OS:     "Linux", Arch: "X64", Temp: temp, ToolCache: t.TempDir(),
		Secrets: []string{"ghs_secret"},
		AfterStep: func(s Step) {
			between = append(between, s.ID+"="+s.Outcome)
			if s.ID == "fails" {
				if err := os.WriteFile(filepath.Join(temp, "between"), []byte("written between steps\n"), 0o644); err != nil {
					t.Error(err)
				}
			}
		},
	}
	res, err := job.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(between, " "), "env=success greet=success skipped=skipped fails=failure after=skipped always=success"; got != want {
		t.Errorf("AfterStep saw %s, want %s", got, want)
	}
	log := res.Log()
	if !strings.Contains(log, "written between steps") {
		t.Errorf("what AfterStep wrote did not reach the next step:\n%s", log)
	}
	if strings.Contains(log, "ghs_secret") || !strings.Contains(log, "token is ***") {
		t.Errorf("the token is not masked:\n%s", log)
	}
	if !strings.Contains(log, "tool ran") {
		t.Errorf("GITHUB_PATH did not reach the next step:\n%s", log)
	}
	if !strings.Contains(log, "::add-mask::octocat") {
		t.Errorf("a command was obeyed while commands were stopped:\n%s", log)
	}
	if got := res.Outputs["greeting"]; got != "hello octocat\n(set by env)" {
		t.Errorf("greeting output %q", got)
	}
	if got := res.Outputs["never"]; got != "unset" {
		t.Errorf("a step after a failure ran: never=%q", got)
	}
	want := map[string]string{"env": "success", "greet": "success", "skipped": "skipped", "fails": "failure", "after": "skipped", "always": "success"}
	for id, outcome := range want {
		if s := res.Step(id); s == nil || s.Outcome != outcome {
			t.Errorf("step %s: %+v, want %s", id, s, outcome)
		}
	}
	if !res.Failed {
		t.Error("the job did not fail")
	}
	var warned, failed bool
	for _, a := range res.Annotations {
		warned = warned || a == Annotation{Level: "warning", Title: "a:b", Message: "two\nlines"}
		failed = failed || a.Level == "error" && a.Message == "Process completed with exit code 3."
	}
	if !warned || !failed {
		t.Errorf("annotations %+v", res.Annotations)
	}

	job.Inputs = map[string]string{"whom": "x"}
	if _, err := job.Run(context.Background()); err == nil || !strings.Contains(err.Error(), `input "whom"`) {
		t.Errorf("an unknown input: %v", err)
	}
	job.Inputs = map[string]string{}
	if _, err := job.Run(context.Background()); err == nil || !strings.Contains(err.Error(), `required input "who"`) {
		t.Errorf("a missing required input: %v", err)
	}
}

func TestRunRefusesWhatItDoesNotEmulate(t *testing.T) {
	for name, steps := range map[string]string{
		"unemulated action": "    - uses: actions/checkout@v4\n",
		"hashFiles":         "    - shell: bash\n      run: echo ${{ hashFiles('go.sum') }}\n",
		"another shell":     "    - shell: pwsh\n      run: echo hi\n",
	} {
		dir := t.TempDir()
		src := "name: t\ndescription: t\nruns:\n  using: composite\n  steps:\n" + steps
		if err := os.WriteFile(filepath.Join(dir, "action.yml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		job := &Job{ActionDir: dir, GitHub: map[string]string{"workspace": dir}, Temp: t.TempDir()}
		if _, err := job.Run(context.Background()); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestCache(t *testing.T) {
	store, work := t.TempDir(), t.TempDir()
	path := filepath.Join(work, "data")
	call := func(key, restore string) (map[string]string, func(bool) error) {
		out, post, err := Cache(store)(context.Background(), &UsesCall{With: map[string]string{"path": path, "key": key, "restore-keys": restore}})
		if err != nil {
			t.Fatal(err)
		}
		return out, post
	}
	out, post := call("k-1", "k-")
	if out["cache-hit"] != "false" {
		t.Fatalf("empty store: %v", out)
	}
	if err := post(false); err != nil { // nothing at path: nothing saved
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "sub", "f"), []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, post = call("k-1", "k-")
	if err := post(true); err != nil { // a failed job saves nothing
		t.Fatal(err)
	}
	_, post = call("k-1", "k-")
	if err := post(false); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	out, _ = call("k-2", "k-")
	if out["cache-hit"] != "false" || out["cache-matched-key"] != "k-1" {
		t.Errorf("restore-key: %v", out)
	}
	if b, err := os.ReadFile(filepath.Join(path, "sub", "f")); err != nil || string(b) != "one" {
		t.Errorf("restored %q %v", b, err)
	}
	out, _ = call("k-1", "")
	if out["cache-hit"] != "true" {
		t.Errorf("exact key: %v", out)
	}
}

// TestCacheLink: a path that is a symbolic link is saved and restored as the link, as tar does.
func TestCacheLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	store, target := t.TempDir(), t.TempDir()
	path := filepath.Join(t.TempDir(), "data")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	call := &UsesCall{With: map[string]string{"path": path, "key": "k"}}
	_, post, err := Cache(store)(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if err := post(false); err != nil {
		t.Fatalf("save: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	out, _, err := Cache(store)(context.Background(), call)
	if err != nil || out["cache-hit"] != "true" {
		t.Fatalf("restore: %v %v", out, err)
	}
	if got, err := os.Readlink(path); err != nil || got != target {
		t.Errorf("restored %q (%v), want a link to %s", got, err, target)
	}
}
