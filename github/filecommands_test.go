package github

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
)

// The cases of the runner's own tests of its environment-file parser (actions/runner,
// src/Test/L0/Worker/SetEnvFileCommandL0.cs), and what becomes of the malformed ones here.
func TestParseEnvFile(t *testing.T) {
	t.Parallel()
	type kv = [2]string
	for _, tc := range []struct {
		name     string
		text     string
		crlf     bool
		want     []kv
		problems []int // lines
	}{
		{"empty", "", false, nil, nil},
		{"simple", "MY_ENV=MY VALUE\n", false, []kv{{"MY_ENV", "MY VALUE"}}, nil},
		{"skip empty lines", "\n\nMY_ENV=my value\n\nMY_ENV_2=my second value\n\n", false, []kv{{"MY_ENV", "my value"}, {"MY_ENV_2", "my second value"}}, nil},
		{"empty value", "MY_ENV=\n", false, []kv{{"MY_ENV", ""}}, nil},
		{"special characters", "MY_ENV==abc\nMY_ENV_2=def=ghi\nMY_ENV_3=jkl=\n", false, []kv{{"MY_ENV", "=abc"}, {"MY_ENV_2", "def=ghi"}, {"MY_ENV_3", "jkl="}}, nil},
		{"no final line break", "A=1\nB=2", false, []kv{{"A", "1"}, {"B", "2"}}, nil},
		{"equals before heredoc", "A=b<<c\n", false, []kv{{"A", "b<<c"}}, nil},
		{"heredoc", "MY_ENV<<EOF\nline one\nline two\nline three\nEOF\n", false, []kv{{"MY_ENV", "line one\nline two\nline three"}}, nil},
		{"heredoc empty value", "MY_ENV<<EOF\nEOF\n", false, []kv{{"MY_ENV", ""}}, nil},
		{"heredoc delimiter last without line break", "MY_ENV<<EOF\nx\nEOF", false, []kv{{"MY_ENV", "x"}}, nil},
		{"heredoc skip empty lines", "\nMY_ENV<<EOF\nhello\nworld\nEOF\n\nMY_ENV_2<<EOF\nHELLO\nAGAIN\nEOF\n\n", false,
			[]kv{{"MY_ENV", "hello\nworld"}, {"MY_ENV_2", "HELLO\nAGAIN"}}, nil},
		{"heredoc special characters",
			"MY_ENV<<=EOF\nhello\none\n=EOF\nMY_ENV_2<<<EOF\nhello\ntwo\n<EOF\nMY_ENV_3<<EOF\nhello\n\nthree\n\nEOF\nMY_ENV_4<<EOF\nhello=four\nEOF\nMY_ENV_5<<EOF\n EOF\nEOF\n", false,
			[]kv{{"MY_ENV", "hello\none"}, {"MY_ENV_2", "hello\ntwo"}, {"MY_ENV_3", "hello\n\nthree\n"}, {"MY_ENV_4", "hello=four"}, {"MY_ENV_5", " EOF"}}, nil},
		{"heredoc preserves CRLF inside the value on Linux", "A<<EOF\nx\r\ny\nEOF\n", false, []kv{{"A", "x\r\ny"}}, nil},
		{"CRLF on Linux: the delimiter keeps its \\r", "A<<EOF\r\nx\r\nEOF\r\n", false, []kv{{"A", "x\r"}}, nil},
		{"CRLF on Windows", "A<<EOF\r\nx\r\ny\r\nEOF\r\nB=2\r\n", true, []kv{{"A", "x\r\ny"}, {"B", "2"}}, nil},
		// Malformed: the runner fails the step; here each is dropped and reported, the rest kept.
		{"missing delimiter (one line)", "MY_ENV<<EOF line one line two EOF", false, nil, []int{1}},
		{"last line not the delimiter, no line break", "MY_ENV<<EOF\nline one\nline three EOF", false, nil, []int{1}},
		{"unterminated swallows the rest", "A=1\nB<<EOF\nC=3\n", false, []kv{{"A", "1"}}, []int{2}},
		{"neither form", "A=1\njust text\nB=2\n", false, []kv{{"A", "1"}, {"B", "2"}}, []int{2}},
		{"empty name", "=value\nB=2\n", false, []kv{{"B", "2"}}, []int{1}},
		{"empty delimiter", "A<<\nB=2\n", false, []kv{{"B", "2"}}, []int{1}},
		{"empty heredoc name: its body is not read as entries", "<<EOF\nX=1\nEOF\nB=2\n", false, []kv{{"B", "2"}}, []int{1}},
	} {
		entries, problems := ParseEnvFile(tc.text, tc.crlf)
		var got []kv
		for _, e := range entries {
			got = append(got, kv{e.Name, e.Value})
		}
		var lines []int
		for _, p := range problems {
			lines = append(lines, p.Line)
		}
		if !slices.Equal(got, tc.want) || !slices.Equal(lines, tc.problems) {
			t.Errorf("%s: got %q, problems %+v; want %q, problems at lines %v", tc.name, got, problems, tc.want, tc.problems)
		}
	}
}

// stepFiles is the environment of a step with every file command, each an empty file.
func stepFiles(t *testing.T) (env, string) {
	t.Helper()
	dir := t.TempDir()
	e := env{"RUNNER_TEMP": filepath.Join(dir, "temp")}
	for _, fc := range fileCommands {
		p := filepath.Join(dir, strings.ToLower(fc.env))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		e[fc.env] = p
	}
	return e, dir
}

func TestForwardHookFiles(t *testing.T) {
	t.Parallel()
	e, dir := stepFiles(t)
	a := NewAction(&bytes.Buffer{}, e.get)
	h, err := a.IsolateHookFiles(e["RUNNER_TEMP"])
	if err != nil {
		t.Fatal(err)
	}
	hookEnv := h.Env()
	write := func(name, text string) {
		if hookEnv[name] == e[name] || !strings.HasPrefix(hookEnv[name], e["RUNNER_TEMP"]) {
			t.Fatalf("the hooks' %s is %q, not a file of their own", name, hookEnv[name])
		}
		if err := os.WriteFile(hookEnv[name], []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("GITHUB_OUTPUT", "tag=v1\nnotes<<EOF\na\nghadelimiter_x\nEOF\nBlocked=false\nopen<<END\nrest\n")
	write("GITHUB_ENV", "A=1\nB<<X\nline\nX\n")
	write("GITHUB_STATE", "s=1\n")
	write("GITHUB_PATH", "/opt/a\r\n\n/opt/b\r/opt/c")
	big := strings.Repeat("0123456789abcde\n", (maxStepSummary+1024)/16)
	write("GITHUB_STEP_SUMMARY", big)

	warnings, err := a.ForwardHookFiles(h)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(e[name])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := parseOutputFile(t, read("GITHUB_OUTPUT")); len(got) != 2 || got["tag"][0] != "v1" || got["notes"][0] != "a\nghadelimiter_x" {
		t.Errorf("forwarded outputs = %q", got)
	}
	if got := parseOutputFile(t, read("GITHUB_ENV")); len(got) != 2 || got["A"][0] != "1" || got["B"][0] != "line" {
		t.Errorf("forwarded env = %q", got)
	}
	if got := parseOutputFile(t, read("GITHUB_STATE")); got["s"][0] != "1" {
		t.Errorf("forwarded state = %q", got)
	}
	if got, want := read("GITHUB_PATH"), "/opt/a\n/opt/b\n/opt/c\n"; got != want {
		t.Errorf("forwarded path = %q, want %q", got, want)
	}
	sum := read("GITHUB_STEP_SUMMARY")
	if len(sum) > maxStepSummary-summaryReserve+100 || !strings.HasPrefix(sum, "0123456789abcde\n") || !strings.Contains(sum, "cut by agent-hooks") {
		t.Errorf("forwarded summary: %d bytes, ends %q", len(sum), sum[len(sum)-80:])
	}
	wantWarnings := []string{
		`GITHUB_OUTPUT written by the hooks, line 6: "Blocked" is an output of agent-hooks itself; dropped`,
		`GITHUB_OUTPUT written by the hooks, line 7: here-document "open" is not closed by a line "END"; dropped`,
	}
	if len(warnings) != 3 || !slices.Equal(warnings[:2], wantWarnings) || !strings.HasPrefix(warnings[2], "GITHUB_STEP_SUMMARY written by the hooks is") {
		t.Errorf("warnings = %q", warnings)
	}

	h.Remove()
	if left, _ := os.ReadDir(e["RUNNER_TEMP"]); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "github_output")); err != nil {
		t.Errorf("the step's own file is gone: %v", err)
	}
}

func TestIsolateHookFilesOutsideActions(t *testing.T) {
	t.Parallel()
	a := NewAction(&bytes.Buffer{}, env{}.get)
	h, err := a.IsolateHookFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Env()) != 0 {
		t.Errorf("outside Actions the hooks get no file commands: %v", h.Env())
	}
	if w, err := a.ForwardHookFiles(h); err != nil || len(w) != 0 {
		t.Errorf("ForwardHookFiles = %v, %v", w, err)
	}
	h.Remove()
}

func TestReportPendingApproval(t *testing.T) {
	t.Parallel()
	pending := &hooks.Result{
		Event: "ApprovalRequired", Decision: hooks.DecisionBlock, Blocked: true, Reason: "waiting for approval on octo/hello#12",
		Hooks: []hooks.HookResult{{Name: "plan", Type: "approval", Status: hooks.StatusBlocked, Reason: "waiting for approval on octo/hello#12", Details: map[string]any{detailPending: true}}},
	}
	blocked := &hooks.Result{
		Event: "ApprovalRequired", Decision: hooks.DecisionBlock, Blocked: true, Reason: "rejected by carol",
		Hooks: []hooks.HookResult{{Name: "plan", Type: "approval", Status: hooks.StatusBlocked, Reason: "rejected by carol"}},
	}
	for _, tc := range []struct {
		res         *hooks.Result
		failOnBlock bool
		want        string
	}{
		{pending, false, "::notice title=agent-hooks%3A ApprovalRequired::ApprovalRequired is waiting for approval: waiting for approval on octo/hello#12\n"},
		{pending, true, "::error title=agent-hooks%3A ApprovalRequired::ApprovalRequired blocked: waiting for approval on octo/hello#12\n"},
		{blocked, false, "::error title=agent-hooks%3A ApprovalRequired::ApprovalRequired blocked: rejected by carol\n"},
	} {
		e, _ := stepFiles(t)
		var out bytes.Buffer
		if err := NewAction(&out, e.get).Report(tc.res, tc.failOnBlock, ""); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("Report(%s, failOnBlock %v) wrote %q, want %q", tc.res.Reason, tc.failOnBlock, out.String(), tc.want)
		}
	}
}
