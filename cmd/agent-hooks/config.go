package main

import "github.com/spf13/cobra"

func (a *app) newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show, validate and change the hook configuration",
		Example: `  agent-hooks config show
  agent-hooks config validate
  agent-hooks config set-auto-commit true`,
	}
	cmd.AddCommand(a.newSetAutoCmd("commit"), a.newSetAutoCmd("push"))
	return cmd
}
