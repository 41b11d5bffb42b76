package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(owner of this file): replace this placeholder with the real command.
func (a *app) newNotifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "notify",
		Short:  "not built yet",
		Hidden: true,
		RunE:   func(*cobra.Command, []string) error { return errors.New("notify: not built yet") },
	}
}
