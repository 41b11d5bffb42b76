package main

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/agents/all"
	"github.com/autoagent/agent-hooks/runner"
)

// starterConfig is the .autoagent/config.json init writes: the built-in rule sets, two rules,
// and examples under a key agent-hooks ignores.
//
//go:embed starter/config.json
var starterConfig []byte

func (a *app) newInitCmd() *cobra.Command {
	var flags installFlags
	cmd := &cobra.Command{
		Use:   "init " + agentArgs(),
		Short: "Gate an agent: install agent-hooks in its settings and write a starter configuration",
		Long: `Install agent-hooks in the agent's hook settings, as "agent-hooks install" does, and write a
starter .autoagent/config.json when the workspace has none: the built-in rule sets secrets,
destructive and git-safety, a rule refusing writes to .env files, one asking a person before
curl or wget, and examples to copy (a test run on Stop, a lint before pushes). An existing
configuration is left as it is. Running it again changes nothing.`,
		Example:   "  agent-hooks init " + exampleAgent() + "\n  agent-hooks init " + exampleAgent() + " --user",
		Args:      cobra.ExactArgs(1),
		ValidArgs: all.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			ag, err := all.Lookup(args[0])
			if err != nil {
				return err
			}
			o := flags.options(ag)
			ws, err := runner.FindWorkspace(o.workspace, a.Cwd, a.Getenv)
			if err != nil {
				return err
			}
			// The settings first: a refused --timeout writes nothing at all.
			o.workspace = ws
			if err := a.install(cmd.Context(), ag, o); err != nil {
				return err
			}
			path := filepath.Join(ws, ".autoagent", "config.json")
			wrote, err := writeNew(path, starterConfig)
			if err != nil {
				return fmt.Errorf("init: %w", err)
			}
			rel, _ := filepath.Rel(a.Cwd, path)
			if wrote {
				fmt.Fprintf(a.Stderr, "✓ wrote %s: the rule sets secrets, destructive and git-safety, and two rules\n", rel)
			} else {
				fmt.Fprintf(a.Stderr, "%s is already there: left as it is\n", rel)
			}
			fmt.Fprintln(a.Stderr, "next:")
			for _, step := range [][2]string{
				{"agent-hooks doctor " + ag.Name(), "check the agent's settings and this configuration"},
				{"agent-hooks config show", "every rule and hook, and where it is written"},
				{"agent-hooks help explain", "try a tool call against them without running anything"},
			} {
				fmt.Fprintf(a.Stderr, "  %-28s %s\n", step[0], step[1])
			}
			return nil
		},
	}
	flags.add(cmd)
	return cmd
}

// writeNew creates the file at path with data, and its folder, unless the file exists; it
// reports whether it wrote. The file appears whole or not at all.
func writeNew(path string, data []byte) (bool, error) {
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.json")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return false, err
	}
	// A link, not a rename: it fails if the file appeared meanwhile, rather than replacing it.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}
