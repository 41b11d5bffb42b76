package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner of this file): replace this placeholder with the real command.
// what is "commit" or "push".
func (a *app) newSetAutoCmd(what string) *cobra.Command {
	return &cobra.Command{
		Use:    "set-auto-" + what + " <true|false>",
		Short:  "not built yet",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("set-auto-" + what + ": not built yet") },
	}
}
