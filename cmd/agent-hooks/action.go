package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner of this file): replace this placeholder with the real command.
func (a *app) newActionCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "action",
		Short:  "not built yet",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("action: not built yet") },
	}
}
