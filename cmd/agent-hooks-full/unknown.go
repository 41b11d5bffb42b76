package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autoagent/agent-hooks/hooks"

	"github.com/spf13/cobra"
)

// rejectUnknownSubcommands makes every command that only groups others (root, session, config,
// approvals, notify, …) fail on an argument that names none of them, with the nearest names, at
// every level. Left to cobra, only root does: a group without a Run prints its help and exits 0
// before its arguments are looked at, so `agent-hooks session verify` in a script "succeeded".
// Called without arguments, a group still prints its help.
func rejectUnknownSubcommands(c *cobra.Command) {
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
		c.Args = unknownSubcommand
		c.SuggestionsMinimumDistance = 2
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	for _, sub := range c.Commands() {
		rejectUnknownSubcommands(sub)
	}
}

// newHelpCmd is `agent-hooks help [command...]`, failing like the command itself on a name that
// does not exist (cobra's own prints "Unknown help topic" and exits 0).
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command | environment]",
		Short: "Help about any command, and the environment variables agent-hooks reads",
		Long:  "Print the help of any command (agent-hooks help session end), or every environment variable agent-hooks reads (agent-hooks help environment).",
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 && args[0] == "environment" {
				return printEnvironment(c.OutOrStdout())
			}
			cmd, rest, err := c.Root().Find(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 && cmd.HasSubCommands() {
				return unknownSubcommand(cmd, rest)
			}
			return cmd.Help()
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
	}
}

// unknownSubcommand is the Args check of a group: any argument is a subcommand that does not exist.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		if best := hooks.Suggest(args[0], s); best != "" { // the nearest first
			s = append([]string{best}, slices.DeleteFunc(s, func(x string) bool { return x == best })...)
		}
		msg += "; did you mean " + orList(s) + "?"
	}
	return fmt.Errorf("%s (see %s --help)", msg, cmd.CommandPath())
}

// orList is `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
func orList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
