package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner of this file): replace this placeholder with the real command.
func (a *app) newApprovalsCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "approvals",
		Short:  "not built yet",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("approvals: not built yet") },
	}
}
