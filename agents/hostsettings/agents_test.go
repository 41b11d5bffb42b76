package hostsettings_test

import (
	"context"
	"fmt"
	"github.com/autoagent/agent-hooks/agents/codex"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/agents/agenttest"
)

// These tests hold doctor and install to the real hosts' behaviour: what doctor says a host
// ignores, the host ignores; what install writes, the host runs.

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// touchHook is a Claude settings hook object that creates marker when it runs.
func touchHook(marker string) string {
	return fmt.Sprintf(`{"type": "command", "command": "/usr/bin/touch %s", "timeout": 60}`, marker)
}

// TestClaudeIgnoresWhatDoctorSaysItIgnores puts a broken settings file and a sound one side by
// side (user, project and local files all load), runs the real Claude, and compares which
// files' hooks ran with doctor's verdict on each.
func TestClaudeIgnoresWhatDoctorSaysItIgnores(t *testing.T) {
	bin := agenttest.Require(t, agenttest.Claude)
	type file struct {
		name    string
		content func(marker string) string // a settings file with a sound hook touching marker
	}
	runs := [][3]file{{
		{"flat entry", func(m string) string {
			return `{"hooks": {"Stop": [{"type": "command", "command": "true"}], "PreToolUse": [{"hooks": [` + touchHook(m) + `]}]}}`
		}},
		{`"timeout": "5"`, func(m string) string {
			return `{"hooks": {"PreToolUse": [{"hooks": [` + touchHook(m) + `, {"type": "command", "command": "true", "timeout": "5"}]}]}}`
		}},
		{"unknown event", func(m string) string {
			return `{"hooks": {"PreGitCommit": [{"hooks": [{"type": "command", "command": "true"}]}], "PreToolUse": [{"hooks": [` + touchHook(m) + `]}]}}`
		}},
	}, {
		{"matcher not a string", func(m string) string {
			return `{"hooks": {"PreToolUse": [{"matcher": 5, "hooks": [` + touchHook(m) + `]}]}}`
		}},
		{"invalid JSON", func(m string) string {
			return `{"hooks": {"PreToolUse": [{"hooks": [` + touchHook(m) + `]}]},}`
		}},
		{"timeout in milliseconds", func(m string) string {
			return `{"hooks": {"PreToolUse": [{"hooks": [` + strings.Replace(touchHook(m), `"timeout": 60`, `"timeout": 60000`, 1) + `]}]}}`
		}},
	}}
	for i, run := range runs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			dir := t.TempDir()
			env := hostsettings.Env{Workspace: filepath.Join(dir, "proj"), Home: filepath.Join(dir, "home")}
			files := Claude.Files(env) // user, project, local
			for j, f := range run {
				write(t, files[j].Path, f.content(filepath.Join(dir, fmt.Sprint("ran-", j))))
			}
			srv := agenttest.StartServer(t, env.Workspace, agenttest.Shell("true"))
			res := agenttest.MustExec(t, &agenttest.Run{Agent: agenttest.Claude, Bin: bin, Server: srv,
				Dir: env.Workspace, Home: env.Home, Path: os.Getenv("PATH")})
			for j, f := range run {
				_, err := os.Stat(filepath.Join(dir, fmt.Sprint("ran-", j)))
				ran := err == nil
				findings, err := Claude.Check(files[j].Path, nil)
				if err != nil {
					t.Fatal(err)
				}
				if ignored := hostsettings.Ignored(findings); ignored == ran {
					t.Errorf("%s (%s): Claude ran its sound hook: %v; doctor says Claude ignores the file: %v %v\n%s",
						f.name, files[j].Scope, ran, ignored, findings, res.Describe(srv))
				}
				if len(findings) == 0 {
					t.Errorf("%s: doctor found nothing", f.name)
				}
			}
		})
	}
}

// stubAgentHooks puts an agent-hooks on a PATH of its own that records its arguments and stdin
// in dir/calls, and returns that PATH: what matters here is that the host runs the command
// install wrote, not what agent-hooks then does.
func stubAgentHooks(t *testing.T, dir string) (path, calls string) {
	t.Helper()
	bin := filepath.Join(dir, "stubbin")
	calls = filepath.Join(dir, "calls")
	write(t, filepath.Join(bin, hostsettings.Program), fmt.Sprintf("#!/bin/sh\n{ echo \"$*\"; cat; echo; } >> %s\n", calls))
	if err := os.Chmod(filepath.Join(bin, hostsettings.Program), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin + string(os.PathListSeparator) + os.Getenv("PATH"), calls
}

func readCalls(t *testing.T, calls string) string {
	t.Helper()
	b, err := os.ReadFile(calls)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// TestClaudeRunsWhatInstallWrites installs into the project's settings next to a hook of the
// user's own, runs the real Claude, and sees both run, agent-hooks told the host's timeouts.
// (Uninstall gives the original bytes back: configedit's tests.)
func TestClaudeRunsWhatInstallWrites(t *testing.T) {
	bin := agenttest.Require(t, agenttest.Claude)
	dir := t.TempDir()
	env := hostsettings.Env{Workspace: filepath.Join(dir, "proj"), Home: filepath.Join(dir, "home")}
	path, calls := stubAgentHooks(t, dir)
	settings := Claude.InstallFile(env, false).Path
	mine := filepath.Join(dir, "mine-ran")
	write(t, settings, `{"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [`+touchHook(mine)+`]}]}}`)
	if _, err := Claude.Install(settings, 120); err != nil {
		t.Fatal(err)
	}
	srv := agenttest.StartServer(t, env.Workspace, agenttest.Shell("true"))
	res := agenttest.MustExec(t, &agenttest.Run{Agent: agenttest.Claude, Bin: bin, Server: srv, Dir: env.Workspace, Home: env.Home, Path: path})
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the user's own hook did not run\n%s", res.Describe(srv))
	}
	got := readCalls(t, calls)
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"} {
		if !strings.Contains(got, `"hook_event_name":"`+ev+`"`) {
			t.Errorf("agent-hooks did not get %s; its calls:\n%s", ev, got)
		}
	}
	if !strings.Contains(got, "hook claude --timeout 120\n") || strings.Contains(got, "SessionEnd") && !strings.Contains(got, "hook claude --timeout 60\n") {
		t.Errorf("agent-hooks was not told the host's timeouts:\n%s", got)
	}
	if findings, _ := Claude.Check(settings, func(string) (string, error) { return "", nil }); len(findings) > 0 {
		t.Errorf("doctor finds problems in what install wrote: %v", findings)
	}

}

// TestCodexRunsWhatInstallTrusts installs into the project's .codex/hooks.json, has Codex trust
// the project and the hooks, and runs the real Codex with no trust given on its command line:
// the hooks run. Before codex.TrustCodex, doctor (asking codex) reports the project untrusted.
func TestCodexRunsWhatInstallTrusts(t *testing.T) {
	bin := agenttest.Require(t, agenttest.Codex)
	dir := t.TempDir()
	env := hostsettings.Env{Workspace: filepath.Join(dir, "proj"), Home: filepath.Join(dir, "home")}
	path, calls := stubAgentHooks(t, dir)
	procEnv := []string{"HOME=" + env.Home, "PATH=" + path}
	file := Codex.InstallFile(env, false)
	if _, err := Codex.Install(file.Path, 600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opt := hostsettings.DoctorOptions{LookPath: func(string) (string, error) { return "", nil }, AgentBin: bin, ProcEnv: procEnv}
	rep, err := Codex.Doctor(ctx, env, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Findings, func(f hostsettings.Finding) bool { return strings.Contains(f.Problem, "not trusted") }) {
		t.Errorf("doctor before trust: %+v", rep)
	}

	res, err := codex.TrustCodex(ctx, bin, procEnv, env.Workspace, file)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Project || len(res.Hooks) != len(Codex.Events) {
		t.Errorf("codex.TrustCodex = %+v, want the project and %d hooks", res, len(Codex.Events))
	}
	if rep, err := Codex.Doctor(ctx, env, opt); err != nil || len(rep.Findings) > 0 {
		t.Errorf("doctor after trust: %+v %v", rep, err)
	}
	again, err := codex.TrustCodex(ctx, bin, procEnv, env.Workspace, file)
	if err != nil || again.Project || len(again.Hooks) > 0 {
		t.Errorf("a second codex.TrustCodex = %+v, %v; want nothing to do", again, err)
	}

	srv := agenttest.StartServer(t, env.Workspace, agenttest.Shell("true"))
	out := agenttest.MustExec(t, &agenttest.Run{Agent: agenttest.Codex, Bin: bin, Server: srv, Dir: env.Workspace, Home: env.Home, Path: path})
	got := readCalls(t, calls)
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} {
		if !strings.Contains(got, `"hook_event_name":"`+ev+`"`) {
			t.Errorf("agent-hooks did not get %s; its calls:\n%s\n%s", ev, got, out.Describe(srv))
		}
	}
}

// TestCodexIgnoresWhatDoctorSaysItIgnores writes broken hooks.json files next to a sound hook
// and asks the real Codex (app-server hooks/list) which hooks it would run: the sound hook is
// listed exactly when doctor does not say Codex ignores the file, and every broken file has a
// finding.
func TestCodexIgnoresWhatDoctorSaysItIgnores(t *testing.T) {
	bin := agenttest.Require(t, agenttest.Codex)
	dir := t.TempDir()
	env := hostsettings.Env{Workspace: filepath.Join(dir, "proj"), Home: filepath.Join(dir, "home")}
	if err := os.MkdirAll(env.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	path := Codex.Files(env)[0].Path // the user's: no project trust involved
	write(t, path, "{}")
	// One app server for all: hooks/list reads the files anew on every call.
	app, err := codex.StartCodexApp(context.Background(), bin, env.Workspace, []string{"HOME=" + env.Home, "PATH=" + os.Getenv("PATH")})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	sound := `"PreToolUse": [{"hooks": [{"type": "command", "command": "sound"}]}]`
	for _, tc := range []struct{ name, content string }{
		{"sound", `{"hooks": {` + sound + `}}`},
		{"invalid JSON", `{"hooks": {` + sound + `},}`},
		{"timeout string", `{"hooks": {` + sound + `, "Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}}`},
		{"fractional timeout", `{"hooks": {` + sound + `, "Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 1.5}]}]}}`},
		{"events not an array", `{"hooks": {` + sound + `, "Stop": {}}}`},
		{"unknown event", `{"hooks": {` + sound + `, "Bogus": [{"hooks": [{"type": "command", "command": "x"}]}]}}`},
		{"flat entry", `{"hooks": {` + sound + `, "Stop": [{"type": "command", "command": "x"}]}}`},
		{"prompt hook", `{"hooks": {` + sound + `, "Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}]}}`},
		{"matcher not a string", `{"hooks": {` + sound + `, "Stop": [{"matcher": 5, "hooks": []}]}}`},
		{"async not a bool", `{"hooks": {` + sound + `, "Stop": [{"hooks": [{"type": "command", "command": "x", "async": "yes"}]}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(t, path, tc.content)
			list, err := app.Hooks(env.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			listed := slices.ContainsFunc(list.Hooks, func(h codex.CodexHook) bool { return h.Command == "sound" })
			findings := Codex.CheckSource(path, []byte(tc.content), nil)
			if hostsettings.Ignored(findings) == listed {
				t.Errorf("Codex lists the sound hook: %v; doctor says Codex ignores the file: %v %v (codex: %+v)", listed, hostsettings.Ignored(findings), findings, list)
			}
			if (tc.name == "sound") != (len(findings) == 0) {
				t.Errorf("findings: %v", findings)
			}
		})
	}
}
