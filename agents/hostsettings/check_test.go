package hostsettings_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	onPath := func(string) (string, error) { return "/usr/bin/agent-hooks", nil }
	for _, tc := range []struct {
		name   string
		host   *hostsettings.Spec
		src    string
		want   []string // "line:col effect problem-substring", in order
		noPath bool
	}{
		{"sound", Claude, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": 5}]}]}}`, nil, false},
		{"installed", Claude, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agent-hooks hook claude --timeout 600", "timeout": 600}]}]}}`, nil, false},
		{"empty", Claude, ``, nil, false},
		{"invalid JSON", Claude, "{\n  \"hooks\": {,}\n}", []string{"2:13 " + string(hostsettings.FileIgnored) + " invalid JSON"}, false},
		{"not an object", Claude, `[]`, []string{"1:1 " + string(hostsettings.FileIgnored) + " not a JSON object"}, false},
		{"hooks not an object", Claude, `{"hooks": []}`, []string{"1:11 " + string(hostsettings.FileIgnored) + ` "hooks" is not an object`}, false},
		{"flat entry", Claude, "{\"hooks\": {\"Stop\": [\n  {\"type\": \"command\", \"command\": \"x\"}]}}",
			[]string{"2:3 " + string(hostsettings.FileIgnored) + " without its matcher group"}, false},
		{"flat entry codex", Codex, `{"hooks": {"Stop": [{"type": "command", "command": "x"}]}}`,
			[]string{"1:21 " + string(hostsettings.NeverRuns) + " without its matcher group"}, false},
		{"timeout string", Claude, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}}`,
			[]string{"1:79 " + string(hostsettings.FileIgnored) + ` "timeout" is the string "5"`}, false},
		{"timeout zero", Claude, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}`,
			[]string{"1:79 " + string(hostsettings.FileIgnored) + ` "timeout" is 0, want a positive number`}, false},
		{"codex fractional timeout", Codex, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 1.5}]}]}}`,
			[]string{"1:79 " + string(hostsettings.FileIgnored) + ` "timeout" is 1.5, want a whole number`}, false},
		{"milliseconds", Claude, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 5000}]}]}}`,
			[]string{"1:79 " + string(hostsettings.Misconfigured) + " milliseconds"}, false},
		{"unknown event", Claude, `{"hooks": {"PreGitCommit": [], "preToolUse": []}}`,
			[]string{"1:28 " + string(hostsettings.NeverRuns) + ` unknown Claude Code event "PreGitCommit"`, "1:46 " + string(hostsettings.NeverRuns) + ` unknown Claude Code event "preToolUse"`}, false},
		{"codex event unknown to codex", Codex, `{"hooks": {"PostToolUseFailure": []}}`,
			[]string{"1:34 " + string(hostsettings.NeverRuns) + ` unknown Codex event "PostToolUseFailure"`}, false},
		{"no type", Claude, `{"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}`,
			[]string{"1:32 " + string(hostsettings.FileIgnored) + ` without a "type"`}, false},
		{"unknown type", Claude, `{"hooks": {"Stop": [{"hooks": [{"type": "shell", "command": "x"}]}]}}`,
			[]string{"1:41 " + string(hostsettings.FileIgnored) + ` unknown hook type "shell"`}, false},
		{"codex prompt hook", Codex, `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}]}}`,
			[]string{"1:41 " + string(hostsettings.NeverRuns) + ` Codex skips "prompt" hooks`}, false},
		{"matcher", Claude, `{"hooks": {"Stop": [{"matcher": ["Bash"], "hooks": []}]}}`,
			[]string{"1:33 " + string(hostsettings.FileIgnored) + " matcher is not a string"}, false},
		{"disableAllHooks", Claude, `{"disableAllHooks": true}`,
			[]string{"1:21 " + string(hostsettings.NeverRuns) + " disableAllHooks"}, false},
		{"session end cap", Claude, `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "x", "timeout": 120}]}]}}`,
			[]string{"1:85 " + string(hostsettings.Misconfigured) + " after 60 s"}, false},
		{"not on PATH", Claude, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agent-hooks hook claude --timeout 9", "timeout": 9}]}]}}`,
			[]string{"1:63 " + string(hostsettings.NeverRuns) + " agent-hooks is not on PATH"}, true},
		{"no --timeout", Claude, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agent-hooks hook claude", "timeout": 9}]}]}}`,
			[]string{"1:63 " + string(hostsettings.Misconfigured) + " no --timeout"}, false},
		{"timeouts differ", Claude, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/opt/bin/agent-hooks hook claude --timeout=30", "timeout": 600}]}]}}`,
			[]string{"1:63 " + string(hostsettings.Misconfigured) + " --timeout 30 differs from the host's timeout 600"}, false},
		{"--timeout as a duration", Claude, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agent-hooks hook claude --timeout 10m", "timeout": 600}]}]}}`, nil, false},
		{"--timeout unreadable", Claude, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agent-hooks hook claude --timeout soon", "timeout": 600}]}]}}`,
			[]string{"1:63 " + string(hostsettings.Misconfigured) + " --timeout is not a number of seconds"}, false},
		{"no timeout", Codex, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agent-hooks hook codex --timeout 600"}]}]}}`,
			[]string{"1:32 " + string(hostsettings.Misconfigured) + ` no "timeout"`}, false},
		{"other host's protocol", Codex, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agent-hooks hook claude --timeout 5", "timeout": 5}]}]}}`,
			[]string{"1:63 " + string(hostsettings.Misconfigured) + " speaks claude's protocol"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lp := onPath
			if tc.noPath {
				lp = func(string) (string, error) { return "", errors.New("not found") }
			}
			got := tc.host.CheckSource("f.json", []byte(tc.src), lp)
			if len(got) != len(tc.want) {
				t.Fatalf("findings %v, want %d: %q", got, len(tc.want), tc.want)
			}
			for i, f := range got {
				w := tc.want[i]
				pos, rest, _ := strings.Cut(w, " ")
				if fmt.Sprintf("%d:%d", f.Line, f.Col) != pos || !strings.HasPrefix(rest, string(f.Effect)) ||
					!strings.Contains(f.Problem, strings.TrimSpace(strings.TrimPrefix(rest, string(f.Effect)))) {
					t.Errorf("finding %d = %d:%d %s %q, want %s", i, f.Line, f.Col, f.Effect, f.Problem, w)
				}
			}
		})
	}
}

func TestOwns(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]bool{
		"agent-hooks hook claude":                   true,
		"agent-hooks hook claude --timeout 600":     true,
		"/usr/local/bin/agent-hooks hook claude":    true,
		"AUTOAGENT_HOME=/x agent-hooks hook claude": true,
		`"/opt/my tools/agent-hooks" hook claude`:   false, // quoted path with a space: not parsed
		"agent-hooks hook codex":                    false,
		"agent-hooks run PreToolUse":                false,
		"my-agent-hooks hook claude":                false,
		"echo agent-hooks hook claude":              false,
	} {
		if got := Claude.Owns(cmd); got != want {
			t.Errorf("Owns(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestHooksKeepTheHostsCaps(t *testing.T) {
	t.Parallel()
	for _, h := range []*hostsettings.Spec{Claude, Codex, Copilot, Cline, Gemini, Cursor} {
		for _, hk := range h.Hooks(600) {
			want := 600
			if max, ok := h.MaxTimeout[hk.Event]; ok {
				want = max
			}
			if hk.Timeout != written(h, want) || hk.Command != h.CommandFor(hk.Event, want) {
				t.Errorf("%s %s: %+v, want timeout %d", h.Name, hk.Event, hk, want)
			}
		}
	}
}

func TestDoctorReadsClaudesManagedSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := hostsettings.Env{Workspace: dir, Home: dir, GOOS: "linux", SystemRoot: dir + "/root"}
	write(t, dir+"/root/etc/claude-code/managed-settings.json", `{"allowManagedHooksOnly": true}`)
	write(t, dir+"/root/etc/claude-code/managed-settings.d/10-off.json", "{\n  \"disableAllHooks\": true\n}")
	rep, err := Claude.Doctor(context.Background(), env, hostsettings.DoctorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", filepath.Base(f.File), f.Line, f.Col, f.Problem))
	}
	want := []string{
		`managed-settings.json:1:27 the managed settings say "allowManagedHooksOnly": true: the user's and the project's hooks never run`,
		`10-off.json:2:22 the managed settings say "disableAllHooks": true: no hook of any settings file runs`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// written is a timeout of seconds in the agent's unit.
func written(h *hostsettings.Spec, seconds int) int {
	if h.Millis {
		return seconds * 1000
	}
	return seconds
}

// TestInstallRefusesWhatDoctorRejects: a --timeout doctor reads as milliseconds written where
// seconds are meant is refused, and nothing is written. (Gemini CLI's settings hold
// milliseconds: 5000 s is 5000000 there, which doctor accepts.)
func TestInstallRefusesWhatDoctorRejects(t *testing.T) {
	t.Parallel()
	for _, h := range []*hostsettings.Spec{Claude, Codex, Copilot, Cursor} {
		path := filepath.Join(t.TempDir(), "settings.json")
		changed, err := h.Install(path, 5000)
		var rejected *hostsettings.RejectedError
		if changed || !errors.As(err, &rejected) {
			t.Errorf("%s: Install(5000) = %v, %v; want a RejectedError", h.Name, changed, err)
			continue
		}
		if len(rejected.Findings) != 1 || !strings.Contains(err.Error(), "milliseconds written where seconds are meant") {
			t.Errorf("%s: %v", h.Name, err)
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the file was written: %v", h.Name, err)
		}
		// What it accepts, doctor accepts.
		if _, err := h.Install(path, 600); err != nil {
			t.Fatalf("%s: Install(600): %v", h.Name, err)
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if fs := h.CheckSource(path, src, nil); len(fs) > 0 {
			t.Errorf("%s: doctor rejects what install wrote: %v", h.Name, fs)
		}
	}
}
