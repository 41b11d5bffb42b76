package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner of this file): replace this placeholder with the real command.
func (a *app) newSessionCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "session",
		Short:  "not built yet",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("session: not built yet") },
	}
}
