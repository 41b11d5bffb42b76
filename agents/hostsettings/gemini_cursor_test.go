package hostsettings_test

import (
	"fmt"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"strings"
	"testing"
)

// TestCheckGeminiAndCursor: what makes Gemini CLI or Cursor run hooks other than as written.
func TestCheckGeminiAndCursor(t *testing.T) {
	t.Parallel()
	onPath := func(string) (string, error) { return "/usr/bin/agent-hooks", nil }
	for _, tc := range []struct {
		name string
		host *hostsettings.Spec
		src  string
		want []string // "line:col effect problem-substring", in order
	}{
		{"gemini installed", Gemini, `{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "agent-hooks hook gemini --timeout 60", "timeout": 60000}]}]}}`, nil},
		{"gemini seconds", Gemini, `{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "x", "timeout": 60}]}]}}`,
			[]string{"1:85 " + string(hostsettings.Misconfigured) + " seconds written where milliseconds are meant"}},
		{"gemini --timeout differs", Gemini, `{"hooks": {"AfterTool": [{"hooks": [{"type": "command", "command": "agent-hooks hook gemini --timeout 600", "timeout": 60000}]}]}}`,
			[]string{"1:68 " + string(hostsettings.Misconfigured) + " --timeout 600 differs from the host's timeout 60"}},
		{"gemini switches", Gemini, `{"hooksConfig": {"enabled": false, "disabled": ["agent-hooks hook gemini --timeout 60"]}, "hooks": {"enabled": true}}`,
			[]string{"1:29 " + string(hostsettings.NeverRuns) + ` "hooksConfig.enabled": false`, "1:49 " + string(hostsettings.NeverRuns) + " hooksConfig.disabled lists agent-hooks' hook"}},
		{"gemini unknown event", Gemini, `{"hooks": {"PreToolUse": []}}`,
			[]string{"1:26 " + string(hostsettings.NeverRuns) + ` unknown Gemini CLI event "PreToolUse"`}},
		{"gemini claude matcher", Gemini, `{"hooks": {"BeforeTool": [{"matcher": "Bash", "hooks": []}]}}`,
			[]string{"1:39 " + string(hostsettings.NeverRuns) + ` matcher "Bash" names Claude Code's tools`}},
		{"gemini matcher of its own", Gemini, `{"hooks": {"BeforeTool": [{"matcher": "shell|write_file", "hooks": []}]}}`, nil},
		{"gemini flat entry", Gemini, `{"hooks": {"AfterAgent": [{"type": "command", "command": "x"}]}}`,
			[]string{"1:27 " + string(hostsettings.NeverRuns) + " without its matcher group"}},
		{"cursor installed", Cursor, `{"version": 1, "hooks": {"preToolUse": [{"command": "agent-hooks hook cursor --timeout 30", "timeout": 30, "failClosed": true}]}}`, nil},
		{"cursor fails open", Cursor, `{"version": 1, "hooks": {"preToolUse": [{"command": "agent-hooks hook cursor --timeout 30", "timeout": 30}]}}`,
			[]string{"1:41 " + string(hostsettings.Misconfigured) + ` without "failClosed": true`}},
		{"cursor no version", Cursor, `{"hooks": {"stop": [{"command": "./audit.sh"}]}}`,
			[]string{"1:1 " + string(hostsettings.Misconfigured) + ` no "version": 1`}},
		{"cursor milliseconds", Cursor, `{"version": 1, "hooks": {"stop": [{"command": "./audit.sh", "timeout": 5000}]}}`,
			[]string{"1:72 " + string(hostsettings.Misconfigured) + " milliseconds written where seconds are meant"}},
		{"cursor claude event", Cursor, `{"version": 1, "hooks": {"PreToolUse": []}}`,
			[]string{"1:40 " + string(hostsettings.NeverRuns) + ` unknown Cursor event "PreToolUse"`}},
		{"cursor failClosed not a bool", Cursor, `{"version": 1, "hooks": {"stop": [{"command": "x", "failClosed": "yes"}]}}`,
			[]string{"1:66 " + string(hostsettings.FileIgnored) + ` "failClosed" is the string "yes"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.host.CheckSource("f.json", []byte(tc.src), onPath)
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

// Gemini's timeouts are written in milliseconds, --timeout in seconds; Cursor's entries fail
// closed where a failure must block.
func TestHooksInTheHostsUnits(t *testing.T) {
	t.Parallel()
	for _, h := range Gemini.Hooks(60) {
		if h.Timeout != 60000 || h.Command != "agent-hooks hook gemini --timeout 60" {
			t.Errorf("gemini %s: %+v", h.Event, h)
		}
	}
	closed := map[string]bool{}
	for _, h := range Cursor.Hooks(30) {
		for _, f := range h.Extra {
			if f.Key == "failClosed" && f.Value == true {
				closed[h.Event] = true
			}
		}
	}
	if !closed["preToolUse"] || !closed["beforeSubmitPrompt"] || closed["stop"] || len(closed) != 2 {
		t.Errorf("failClosed on %v, want preToolUse and beforeSubmitPrompt", closed)
	}
}
