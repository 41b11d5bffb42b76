package opencode_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/agents/internal/hooktest"
	"github.com/autoagent/agent-hooks/agents/opencode"
	"github.com/autoagent/agent-hooks/hooks"
)

var host = opencode.Agent{}

// TestAnswers: a refused tool call or prompt is a deny the plugin throws (an ask too: no one can
// be asked); context reaches the model after a tool call and before a compaction; a Stop cannot
// be blocked.
func TestAnswers(t *testing.T) {
	t.Parallel()
	v := func(event string, v agents.Verdict) agents.Verdict {
		v.HostEvent, v.Event = event, event
		return v
	}
	tests := []struct {
		name string
		v    agents.Verdict
		want string
	}{
		{"deny", v(hooks.PreToolUse, agents.Verdict{Decision: agents.Deny, Reason: "no <rm>"}), `{"decision":"deny","reason":"no <rm>"}`},
		{"ask is a deny", v(hooks.PreToolUse, agents.Verdict{Decision: agents.Ask, Reason: "sure?"}), `{"decision":"deny","reason":"sure?"}`},
		{"allow says nothing", v(hooks.PreToolUse, agents.Verdict{Decision: agents.Allow}), ``},
		{"prompt deny", v(hooks.UserPromptSubmit, agents.Verdict{Decision: agents.Deny, Reason: "r"}), `{"decision":"deny","reason":"r"}`},
		{"post tool use", v(hooks.PostToolUse, agents.Verdict{Block: "lint", Context: []string{"c"}}), `{"context":"lint\n\nc"}`},
		{"compaction", v(hooks.PreCompact, agents.Verdict{Context: []string{"keep x"}}), `{"context":"keep x"}`},
		{"a stop cannot be blocked", v(hooks.Stop, agents.Verdict{Decision: agents.Deny, Reason: "r"}), ``},
		{"warnings", v(hooks.Stop, agents.Verdict{Warnings: []string{"w"}}), `{"warning":"agent-hooks: w"}`},
	}
	for _, tt := range tests {
		got, err := host.Answer(&tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tt.name, got, err, tt.want)
		}
	}
}

// TestGateThroughOpenCodeInputs: the plugin's captured inputs through the real runner and sh
// hooks: a gate on Claude's tool name refuses bash; the session is OpenCode's; a write's file is
// recorded after it, and the hooks' output after a call is context for the model.
func TestGateThroughOpenCodeInputs(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, `{"hooks": {
		"PreToolUse": [{"command": "cat > pre.json"}, {"command": "echo 'no shell here' >&2; exit 2", "tools": "Bash"}],
		"PostToolUse": [{"command": "echo '{\"feedback\": \"lint: ok\"}'"}]}}`)
	got := e.Answer(host, e.Input("opencode", "PreToolUse.bash", nil), 0)
	if want := `{"decision":"deny","reason":"no shell here"}`; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	var pre map[string]any
	if err := json.Unmarshal([]byte(e.Read("pre.json")), &pre); err != nil {
		t.Fatal(err)
	}
	const id = "ses_ddeaadca3ffeR74Fe0KTC0B1YL"
	if pre["agent"] != "opencode" || pre["toolName"] != "bash" || pre["agentSessionId"] != id || pre["toolUseId"] != "call_agenttest_0" ||
		fmt.Sprint(pre["toolAliases"]) != "[Bash]" || pre["opencode_hook"] != "tool.execute.before" || pre["workspace"] != e.Workspace {
		t.Errorf("payload %v", pre)
	}
	if got := e.Answer(host, e.Input("opencode", "PostToolUse.write", nil), 0); got != `{"context":"lint: ok"}` {
		t.Errorf("PostToolUse: %s", got)
	}
	list := e.Sessions()
	if len(list) != 1 || list[0].Agent != "opencode" || list[0].AgentSessionID != id {
		t.Fatalf("sessions %+v", list)
	}
	if got := fmt.Sprint(list[0].FilesModified); !strings.Contains(got, "w.txt") {
		t.Errorf("files modified %s", got)
	}
	for _, name := range []string{"SessionStart", "UserPromptSubmit", "Stop", "Error", "SessionEnd", "PostToolUse.bash"} {
		if got := e.Answer(host, e.Input("opencode", name, nil), 0); got != "" && !strings.Contains(got, "context") {
			t.Errorf("%s: %s", name, got)
		}
	}
}

// TestFailClosed: a broken configuration refuses a tool call with the reason the plugin throws.
func TestFailClosed(t *testing.T) {
	t.Parallel()
	e := hooktest.New(t, "{\"hooks\": {\n  \"PreToolUs\": []}}")
	got := e.Answer(host, e.Input("opencode", "PreToolUse.bash", nil), 0)
	if !strings.HasPrefix(got, `{"decision":"deny","reason":"agent-hooks refused this PreToolUse: its hooks could not run: `) {
		t.Errorf("%s", got)
	}
	e = hooktest.New(t, hooktest.Config("PreToolUse", hooktest.Cmd("sleep 30")))
	got = e.Answer(host, e.Input("opencode", "PreToolUse.bash", nil), time.Second)
	if !strings.Contains(got, `"decision":"deny"`) || !strings.Contains(got, "did not finish within") {
		t.Errorf("slow hooks: %s", got)
	}
}

// TestInstall: install writes agent-hooks' plugin next to the user's own, which it never
// touches; again it changes nothing; a file of the same name that is not agent-hooks' is left
// alone; uninstall takes out only agent-hooks'.
func TestInstall(t *testing.T) {
	t.Parallel()
	spec := host.Settings()
	dir := filepath.Join(t.TempDir(), ".opencode", "plugins")
	mine := filepath.Join(dir, "mine.js")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("export const Mine = async () => ({})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if changed, err := spec.Install(dir, 30); err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	src, err := os.ReadFile(filepath.Join(dir, opencode.PluginFile))
	if err != nil || !strings.HasPrefix(string(src), "// Written by agent-hooks install opencode: agent-hooks hook opencode --timeout 30\n") ||
		!strings.Contains(string(src), `const COMMAND = ["agent-hooks","hook","opencode","--timeout","30"]`) {
		t.Fatalf("plugin %v:\n%s", err, src)
	}
	if changed, err := spec.Install(dir, 30); err != nil || changed {
		t.Errorf("install again: %v %v", changed, err)
	}
	rep, err := spec.Doctor(t.Context(), hostsettings.Env{Workspace: filepath.Dir(filepath.Dir(dir)), Home: t.TempDir()}, hostsettings.DoctorOptions{LookPath: func(string) (string, error) { return "/bin/agent-hooks", nil }})
	if err != nil || len(rep.Findings) != 0 || rep.Files[1].AgentHooks == 0 {
		t.Errorf("doctor: %v %+v", err, rep)
	}
	// A plugin edited by hand is not what install writes; one whose agent-hooks is not on PATH
	// refuses every call.
	if err := os.WriteFile(filepath.Join(dir, opencode.PluginFile), append(src, "// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = spec.Doctor(t.Context(), hostsettings.Env{Workspace: filepath.Dir(filepath.Dir(dir)), Home: t.TempDir()}, hostsettings.DoctorOptions{LookPath: func(p string) (string, error) { return "", os.ErrNotExist }})
	if err != nil || len(rep.Findings) != 2 || rep.Findings[0].Effect != hostsettings.NeverRuns || !strings.Contains(rep.Findings[0].Problem, "agent-hooks is not on PATH") ||
		rep.Findings[1].Effect != hostsettings.Misconfigured {
		t.Errorf("doctor of an edited plugin: %v %+v", err, rep.Findings)
	}
	if changed, err := spec.Install(dir, 30); err != nil || !changed {
		t.Errorf("install over an edited plugin of agent-hooks': %v %v", changed, err)
	}
	if changed, err := spec.Uninstall(dir); err != nil || !changed {
		t.Errorf("uninstall: %v %v", changed, err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "export const Mine = async () => ({})\n" {
		t.Errorf("the user's plugin: %q %v", b, err)
	}
	theirs := filepath.Join(dir, opencode.PluginFile)
	if err := os.WriteFile(theirs, []byte("// mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := spec.Install(dir, 30); err == nil || !strings.Contains(err.Error(), "not agent-hooks' plugin") {
		t.Errorf("install over theirs: %v", err)
	}
	if changed, err := spec.Uninstall(dir); err != nil || changed {
		t.Errorf("uninstall theirs: %v %v", changed, err)
	}
}

// TestPluginFailsClosed runs the plugin install writes under node, as OpenCode runs it (Bun
// speaks the same node:child_process), against stand-ins for agent-hooks: its deny is thrown
// with the reason, its silence lets the call through, a non-zero exit and a program that is not
// there are refusals; after a tool call the hooks' context reaches the tool's output.
func TestPluginFailsClosed(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH")
	}
	dir := t.TempDir()
	if _, err := host.Settings().Install(dir, 30); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(dir, opencode.PluginFile)
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(dir, "drive.mjs")
	if err := os.WriteFile(driver, []byte(`import { AgentHooks } from `+fmt.Sprintf("%q", plugin)+`
const h = await AgentHooks({ directory: process.cwd() })
const out = { args: { command: "rm -rf /" } }
try {
  await h["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c1" }, out)
  const after = { title: "t", output: "ran", metadata: {} }
  await h["tool.execute.after"]({ tool: "bash", sessionID: "s1", callID: "c1", args: out.args }, after)
  console.log("allowed: " + after.output)
} catch (e) {
  console.log("refused: " + e.message)
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, script, want string }{
		{"deny", `cat > "$0.in"; echo '{"decision":"deny","reason":"no rm here"}'`, "refused: no rm here\n"},
		{"silence", `cat >/dev/null; case "$(cat "$0.in" 2>/dev/null)" in *) ;; esac`, "allowed: ran\n"},
		{"context", `read -r line; case "$line" in *PostToolUse*) echo '{"context":"lint says hi"}';; esac`, "allowed: ran\n\nlint says hi\n"},
		{"crash", `echo 'panic: oops' >&2; exit 1`, "refused: agent-hooks refused this PreToolUse: panic: oops\n"},
		{"not JSON", `echo hello`, "refused: agent-hooks refused this PreToolUse: its answer is not JSON: hello\n"},
		{"missing", ``, "refused: agent-hooks refused this PreToolUse: could not run agent-hooks: spawn agent-hooks ENOENT\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(bin, tc.name)
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.script != "" {
				if err := os.WriteFile(filepath.Join(path, "agent-hooks"), []byte("#!/bin/sh\n"+tc.script+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(node, driver)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + path + string(os.PathListSeparator) + filepath.Dir(node) + ":/usr/bin:/bin"}
			out, err := cmd.CombinedOutput()
			if err != nil || string(out) != tc.want {
				t.Errorf("got %q (%v), want %q", out, err, tc.want)
			}
		})
	}
}
