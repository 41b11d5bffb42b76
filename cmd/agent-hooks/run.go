package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the engine lands (being written by the core owner).
func (a *app) newRunCmd() *cobra.Command {
	return &cobra.Command{Use: "run", RunE: func(*cobra.Command, []string) error { return errors.New("run: not built yet") }}
}
