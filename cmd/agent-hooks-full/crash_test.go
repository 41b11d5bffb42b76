package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/internal/cli"
)

// A panic that escapes every hook (an observer, an extension, a command's own code) is agent-hooks
// failing: exit 1 with the panic on stderr, never 2, which every caller reads as "blocked".
func TestEscapingPanicExits1(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	a := &app{App: &cli.App{Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(string) string { return "" }}}
	root := &cobra.Command{Use: "agent-hooks", SilenceErrors: true, SilenceUsage: true,
		RunE: func(*cobra.Command, []string) error { panic("observer broke") }}
	if code := a.executeRoot(context.Background(), root, []string{}); code != cli.ExitFailure {
		t.Errorf("exit %d, want %d", code, cli.ExitFailure)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "agent-hooks: internal error: panic: observer broke\n") || !strings.Contains(got, "goroutine") {
		t.Errorf("stderr %q", got)
	}
}
