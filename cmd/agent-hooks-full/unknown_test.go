package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/internal/cli"
)

// TestEveryGroupRejectsUnknownSubcommands runs `<group> no-such-command` for every command that
// has subcommands: each must exit 1 naming the command and the group, and print nothing on stdout.
func TestEveryGroupRejectsUnknownSubcommands(t *testing.T) {
	var groups [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.HasSubCommands() {
			groups = append(groups, path)
		}
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk((&app{App: &cli.App{Getenv: func(string) string { return "" }}}).newRootCmd(), nil)
	if len(groups) < 6 { // root, session, config, approvals, notify, completion
		t.Fatalf("found only %d groups: %v", len(groups), groups)
	}
	for _, path := range groups {
		var stdout, stderr bytes.Buffer
		a := &app{App: &cli.App{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Cwd: t.TempDir()}}
		code := a.execute(context.Background(), append(append([]string(nil), path...), "no-such-command"))
		name := strings.TrimSpace("agent-hooks " + strings.Join(path, " "))
		if code != cli.ExitFailure {
			t.Errorf("%s no-such-command: exit %d, want %d", name, code, cli.ExitFailure)
		}
		if want := `unknown command "no-such-command" for "` + name + `"`; !strings.Contains(stderr.String(), want) {
			t.Errorf("%s no-such-command: stderr %q, want it to say %s", name, stderr.String(), want)
		}
		if stdout.Len() > 0 {
			t.Errorf("%s no-such-command: printed on stdout: %q", name, stdout.String())
		}
	}
}
