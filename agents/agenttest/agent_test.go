package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hookSettings is a Claude settings file (or Codex hooks.json, or Gemini's settings.json: the
// same shape) with one hook on the agent's event before a tool call, with a timeout of a minute.
func hookSettings(t *testing.T, a Agent, command string) []byte {
	t.Helper()
	timeout := 60
	if a == Gemini {
		timeout = 60000 // milliseconds
	}
	b, err := json.Marshal(map[string]any{"hooks": map[string]any{preToolEvent(a): []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": timeout}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// preToolEvent is the agent's event before a tool call.
func preToolEvent(a Agent) string {
	if a == Gemini {
		return "BeforeTool"
	}
	return "PreToolUse"
}

// settingsPath is where the project's hooks go for the agent.
func settingsPath(a Agent, proj string) string {
	switch a {
	case Claude:
		return filepath.Join(proj, ".claude", "settings.json")
	case Gemini:
		return filepath.Join(proj, ".gemini", "settings.json")
	case Droid:
		return filepath.Join(proj, ".factory", "settings.json")
	}
	return filepath.Join(proj, ".codex", "hooks.json")
}

// refusal is the shell command by which a hook refuses a call in the agent's protocol: exit 2
// with the reason for Claude Code and Codex; Copilot's JSON deny (it does not pass an exit 2's
// stderr on); Cline's cancel.
func refusal(a Agent, reason string) string {
	switch a {
	case Copilot:
		return `echo '{"permissionDecision":"deny","permissionDecisionReason":"` + reason + `"}'`
	case Cline:
		return `echo '{"cancel":true,"errorMessage":"` + reason + `"}'`
	}
	return "echo '" + reason + "' >&2; exit 2"
}

// preToolUseHook makes command the project's PreToolUse hook for the agent.
func preToolUseHook(t *testing.T, a Agent, proj, command string) {
	t.Helper()
	switch a {
	case Copilot:
		b, err := json.Marshal(map[string]any{"version": 1, "hooks": map[string]any{"preToolUse": []any{
			map[string]any{"type": "command", "bash": command, "timeoutSec": 60}}}})
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(proj, ".github", "hooks", "test.json"), b)
		// Copilot reads .github/hooks only in a git repository.
		writeFile(t, filepath.Join(proj, ".git", "HEAD"), []byte("ref: refs/heads/main\n"))
		for _, d := range []string{"objects", "refs"} {
			if err := os.MkdirAll(filepath.Join(proj, ".git", d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	case OpenCode:
		// OpenCode runs no hook commands: a plugin runs this one as a hook would be run (Claude
		// Code's JSON on stdin) and throws its stderr when it exits 2.
		writeFile(t, filepath.Join(proj, ".opencode", "plugins", "test.js"), []byte(`import { spawnSync } from "node:child_process"
export const Test = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const r = spawnSync("sh", ["-c", `+strconv.Quote(command)+`], { cwd: directory, encoding: "utf8",
      input: JSON.stringify({ hook_event_name: "PreToolUse", session_id: input.sessionID, tool_name: input.tool, tool_input: output.args }) })
    if (r.status === 2) throw new Error(r.stderr)
  },
})
`))
	case Cline:
		path := filepath.Join(proj, ".clinerules", "hooks", "PreToolUse")
		writeFile(t, path, []byte("#!/bin/sh\n"+command+"\n"))
		if err := chmodX(path); err != nil {
			t.Fatal(err)
		}
	default:
		writeFile(t, settingsPath(a, proj), hookSettings(t, a, command))
	}
}

// hookInput is what the harness's check reads of a PreToolUse input, whichever agent sent it.
type hookInput struct {
	Event, SessionID, Command string
}

func readHookInput(a Agent, data []byte) (hookInput, error) {
	var in struct {
		SessionID string `json:"session_id"`
		Event     string `json:"hook_event_name"`
		ToolInput struct {
			Command string `json:"command"`
		} `json:"tool_input"`
		// Copilot's camelCase input names no event.
		CamelID  string `json:"sessionId"`
		ToolName string `json:"toolName"`
		ToolArgs struct {
			Command string `json:"command"`
		} `json:"toolArgs"`
		// Cline's.
		HookName string `json:"hookName"`
		TaskID   string `json:"taskId"`
		ToolCall struct {
			Input struct {
				Commands []string `json:"commands"`
			} `json:"input"`
		} `json:"tool_call"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return hookInput{}, err
	}
	switch a {
	case Copilot:
		if in.ToolName != "bash" {
			return hookInput{}, nil
		}
		return hookInput{"PreToolUse", in.CamelID, in.ToolArgs.Command}, nil
	case Cline:
		if in.HookName != "tool_call" || len(in.ToolCall.Input.Commands) != 1 {
			return hookInput{}, nil
		}
		return hookInput{"PreToolUse", in.TaskID, in.ToolCall.Input.Commands[0]}, nil
	}
	return hookInput{in.Event, in.SessionID, in.ToolInput.Command}, nil
}

// TestAgentsRunTheScriptedShellCall is the harness's own end-to-end check, with plain sh hooks
// and no agent-hooks: the real agent runs the fake model's shell call, fires its PreToolUse hook
// with the call on stdin, and a hook that refuses keeps the command from running while the
// model receives its reason (Cline instead ends the task: the model is asked nothing more).
func TestAgentsRunTheScriptedShellCall(t *testing.T) {
	for _, a := range Agents {
		for _, block := range []bool{false, true} {
			name := string(a) + "/allow"
			if block {
				name = string(a) + "/block"
			}
			t.Run(name, func(t *testing.T) {
				bin := Require(t, a)
				dir := t.TempDir()
				proj := filepath.Join(dir, "proj")
				stdinLog := filepath.Join(dir, "stdin.json")
				hook := "/bin/cat > " + stdinLog
				if block {
					hook += "; " + refusal(a, "no writes today")
				}
				preToolUseHook(t, a, proj, hook)
				srv := StartServer(t, proj, Shell("echo hi > out.txt"))
				run := &Run{Agent: a, Bin: bin, Server: srv, Dir: proj, Home: filepath.Join(dir, "home"),
					Path: os.Getenv("PATH"), TrustProject: true, BypassHookTrust: true}
				res := MustExec(t, run)

				_, err := os.Stat(filepath.Join(proj, "out.txt"))
				if ran := err == nil; ran == block {
					t.Fatalf("out.txt exists: %v, want %v\n%s", ran, !block, res.Describe(srv))
				}
				data, err := os.ReadFile(stdinLog)
				if err != nil {
					t.Fatalf("the hook did not run: %v\n%s", err, res.Describe(srv))
				}
				in, err := readHookInput(a, data)
				if err != nil {
					t.Fatalf("hook stdin %q: %v", data, err)
				}
				if in.Event != preToolEvent(a) || in.Command != "echo hi > out.txt" {
					t.Errorf("hook stdin = %s", data)
				}
				if res.SessionID == "" || in.SessionID != res.SessionID {
					t.Errorf("session id: hook saw %q, the run reported %q", in.SessionID, res.SessionID)
				}
				if a == Cline && block {
					if n := len(srv.ModelRequests()); n != 1 {
						t.Errorf("%d model requests, want 1: a cancel ends Cline's task", n)
					}
					return
				}
				results := srv.ToolResults()
				if len(results) != 1 {
					t.Fatalf("tool results = %+v\n%s", results, res.Describe(srv))
				}
				if got := strings.Contains(results[0].Content, "no writes today"); got != block {
					t.Errorf("the tool result %q carries the hook's reason: %v, want %v", results[0].Content, got, block)
				}
				if n := len(srv.ModelRequests()); n != 2 && a != OpenCode { // OpenCode asks for a title too
					t.Errorf("%d model requests, want 2 (the call, then the text after its result)", n)
				}
			})
		}
	}
}

func chmodX(path string) error { return os.Chmod(path, 0o755) }

// TestClaudePermissionPrompt runs Claude as a streaming session with a live permission prompt
// (Run.PermissionPrompt): the call needs permission, so Claude fires PermissionRequest, whose
// hook here only looks; the person at the prompt then decides, and the model receives the
// person's answer.
func TestClaudePermissionPrompt(t *testing.T) {
	for _, person := range []PermissionPrompt{PromptAllow, PromptDeny} {
		t.Run(string(person), func(t *testing.T) {
			bin := Require(t, Claude)
			dir := t.TempDir()
			proj := filepath.Join(dir, "proj")
			seen := filepath.Join(dir, "seen.json")
			b, err := json.Marshal(map[string]any{"hooks": map[string]any{"PermissionRequest": []any{
				map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "cat > " + seen}}},
			}}})
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, settingsPath(Claude, proj), b)
			srv := StartServer(t, proj, Shell("echo hi > out.txt"))
			run := &Run{Agent: Claude, Bin: bin, Server: srv, Dir: proj, Home: filepath.Join(dir, "home"),
				Path: os.Getenv("PATH"), PermissionPrompt: person}
			res := MustExec(t, run)

			if len(res.Prompts) != 1 || res.Prompts[0] != (PromptAnswer{Tool: "Bash", By: string(person)}) {
				t.Fatalf("prompts = %+v, want the person's %s about Bash\n%s", res.Prompts, person, res.Describe(srv))
			}
			data, err := os.ReadFile(seen)
			if err != nil {
				t.Fatalf("the PermissionRequest hook did not run: %v\n%s", err, res.Describe(srv))
			}
			if in, err := readHookInput(Claude, data); err != nil || in.Event != "PermissionRequest" || in.Command != "echo hi > out.txt" {
				t.Errorf("hook stdin = %s (%v)", data, err)
			}
			_, err = os.Stat(filepath.Join(proj, "out.txt"))
			if ran := err == nil; ran != (person == PromptAllow) {
				t.Errorf("out.txt exists: %v, want %v", ran, person == PromptAllow)
			}
			results := srv.ToolResults()
			if len(results) != 1 || results[0].IsError != (person == PromptDeny) ||
				(person == PromptDeny && results[0].Content != PromptDenied) {
				t.Errorf("tool results = %+v", results)
			}
			if res.SessionID == "" {
				t.Error("no session id in the stream")
			}
		})
	}
}
