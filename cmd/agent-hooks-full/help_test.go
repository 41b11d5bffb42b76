package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/internal/cli"
)

// TestEveryCommandHasHelpWithExamples walks the whole command tree: a command a user can run
// must say what it does and show how.
func TestEveryCommandHasHelpWithExamples(t *testing.T) {
	a := &app{App: &cli.App{Getenv: func(string) string { return "" }}}
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		n++
		if strings.TrimSpace(c.Short) == "" {
			t.Errorf("%q has no Short description", c.CommandPath())
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%q has no Example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.newRootCmd())
	if n < 20 {
		t.Errorf("walked only %d commands", n)
	}
}
