package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func (a *app) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version of agent-hooks",
		Example: "  agent-hooks version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version
			if v == "" {
				v = "(devel)"
				if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
					v = info.Main.Version
				}
			}
			_, err := fmt.Fprintf(a.stdout, "agent-hooks %s\n", v)
			return err
		},
	}
}
