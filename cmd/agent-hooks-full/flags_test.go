package main

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/sessions"
)

// These tests check how each command with real flag mapping turns its command line into the
// options its work gets, through the command's runF seam: nothing runs, in milliseconds. The
// scripts under testdata/script test what the commands do.

func flagsApp() *app {
	return &app{App: &cli.App{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }}}
}

// execute runs cmd with args as its own root, and returns its error.
func execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	return cmd.ExecuteContext(context.Background())
}

func TestRunFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want cli.RunFlags
	}{
		{[]string{"PreExecutionEnd"}, cli.RunFlags{Event: "PreExecutionEnd"}},
		{[]string{"next_iteration", "--payload", "-", "--data", "a=1", "--data", "b=x=y", "--session", "s1", "--workspace", "ws",
			"--loop", "loop.yaml", "--config", "extra.json", "--json"},
			cli.RunFlags{Event: "next_iteration", Payload: "-", Data: []string{"a=1", "b=x=y"}, Session: "s1", Workspace: "ws",
				Loop: "loop.yaml", Config: "extra.json", JSON: true}},
	} {
		var got cli.RunFlags
		cmd := flagsApp().newRunCmd(func(_ context.Context, f cli.RunFlags) error { got = f; return nil })
		if err := execute(cmd, tc.args...); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v:\n got %+v\nwant %+v", tc.args, got, tc.want)
		}
	}
	called := false
	cmd := flagsApp().newRunCmd(func(context.Context, cli.RunFlags) error { called = true; return nil })
	if err := execute(cmd); err == nil || called {
		t.Errorf("run without an event: %v, called %v", err, called)
	}
}

func TestHookFlags(t *testing.T) {
	t.Parallel()
	var got cli.HookFlags
	cmd := flagsApp().newHookCmd(func(_ context.Context, f cli.HookFlags) error { got = f; return nil })
	if err := execute(cmd, "gemini", "--timeout", "1.5", "--event", "BeforeTool"); err != nil {
		t.Fatal(err)
	}
	if want := (cli.HookFlags{Agent: "gemini", Timeout: "1.5", Event: "BeforeTool"}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// No agent: a refusal the agent reads as a block, not a call.
	called := false
	cmd = flagsApp().newHookCmd(func(context.Context, cli.HookFlags) error { called = true; return nil })
	err := execute(cmd)
	if _, ok := err.(*cli.BlockedError); !ok || called {
		t.Errorf("hook without an agent: %T %v, called %v", err, err, called)
	}
}

func TestSessionEndFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		want    endOptions
		wantErr string
	}{
		{args: nil, want: endOptions{Status: sessions.StatusCompleted}},
		{args: []string{"s1", "--status", "failed", "--workspace", "ws", "--json"},
			want: endOptions{ID: "s1", Status: sessions.StatusFailed, Workspace: "ws", JSON: true}},
		{args: []string{"--session", "s2", "--status", "interrupted"}, want: endOptions{ID: "s2", Status: sessions.StatusInterrupted}},
		{args: []string{"--status", "active"}, wantErr: "cannot end as active"},
		{args: []string{"--status", "done"}, wantErr: "done"},
	} {
		var got *endOptions
		cmd := flagsApp().newSessionEndCmd(func(_ context.Context, o endOptions) error { got = &o; return nil })
		err := execute(cmd, tc.args...)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil {
				t.Errorf("%v: %v (ran: %v), want an error with %q", tc.args, err, got != nil, tc.wantErr)
			}
			continue
		}
		if err != nil || got == nil || *got != tc.want {
			t.Errorf("%v: %v, %+v; want %+v", tc.args, err, got, tc.want)
		}
	}
}

func TestInstallFlags(t *testing.T) {
	t.Parallel()
	var agent string
	var got installOptions
	cmd := flagsApp().newInstallCmd(func(_ context.Context, ag agents.Agent, o installOptions) error {
		agent, got = ag.Name(), o
		return nil
	})
	if err := execute(cmd, "codex", "--user", "--timeout", "120", "--trust", "--codex", "/opt/codex", "--workspace", "ws"); err != nil {
		t.Fatal(err)
	}
	if want := (installOptions{user: true, timeout: "120", trust: true, workspace: "ws", program: "/opt/codex"}); agent != "codex" || got != want {
		t.Errorf("got %s %+v, want codex %+v", agent, got, want)
	}
	cmd = flagsApp().newInstallCmd(func(_ context.Context, ag agents.Agent, o installOptions) error {
		agent, got = ag.Name(), o
		return nil
	})
	if err := execute(cmd, "claude"); err != nil {
		t.Fatal(err)
	}
	if want := (installOptions{timeout: "600"}); agent != "claude" || got != want {
		t.Errorf("defaults: got %s %+v, want claude %+v", agent, got, want)
	}
	if err := execute(flagsApp().newInstallCmd(func(context.Context, agents.Agent, installOptions) error { return nil }), "claud"); err == nil ||
		!strings.Contains(err.Error(), `did you mean "claude"`) {
		t.Errorf("install claud: %v", err)
	}
}
