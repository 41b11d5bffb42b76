package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/configedit"
	"github.com/autoagent/agent-hooks/gitops"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/runner"
)

// autoBuiltin is the hook `config set-auto-<what>` adds to PostExecutionEnd or removes from it.
func autoBuiltin(what string) configedit.Builtin {
	b := configedit.Builtin{Event: hooks.PostExecutionEnd, Aliases: hooks.Aliases(hooks.PostExecutionEnd)}
	if what == "commit" {
		b.Type = gitops.TypeCommit
		b.Fields = []configedit.Field{{Key: "type", Value: gitops.TypeCommit}, {Key: "message", Value: gitops.DefaultMessage}}
		b.Before = []string{gitops.TypePush}
	} else {
		b.Type = gitops.TypePush
		b.Fields = []configedit.Field{{Key: "type", Value: gitops.TypePush}, {Key: "remote", Value: "origin"}, {Key: "branch", Value: "current"}}
		b.After = []string{gitops.TypeCommit}
	}
	return b
}

// newSetAutoCmd is `config set-auto-commit` (what "commit") or `config set-auto-push` ("push").
func (a *app) newSetAutoCmd(what string) *cobra.Command {
	var (
		user      bool
		workspace string
	)
	b := autoBuiltin(what)
	cmd := &cobra.Command{
		Use:   "set-auto-" + what + " <true|false>",
		Short: fmt.Sprintf("Add or remove the %s hook on PostExecutionEnd", b.Type),
		Long: fmt.Sprintf(`Add (true) or remove (false) the built-in %s hook on PostExecutionEnd in the project's
.autoagent/config.json, or with --user in $AUTOAGENT_HOME/config.json. The file is created when
absent and otherwise edited in place: every other key, its order and the file's formatting are
kept. Running it twice changes nothing the second time.`, b.Type),
		Example: fmt.Sprintf(`  agent-hooks config set-auto-%[1]s true
  agent-hooks config set-auto-%[1]s false --user`, what),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			enable, err := parseSwitch(args[0])
			if err != nil {
				return err
			}
			var path string
			if user {
				home, err := a.AutoagentHome()
				if err != nil {
					return err
				}
				path = filepath.Join(home, "config.json")
			} else {
				ws, err := runner.FindWorkspace(workspace, a.Cwd, a.Getenv)
				if err != nil {
					return err
				}
				path = filepath.Join(ws, ".autoagent", "config.json")
			}
			changed, err := configedit.Update(path, func(src []byte) ([]byte, bool, error) {
				return configedit.Set(src, b, enable)
			})
			if err != nil {
				return fmt.Errorf("set-auto-%s: %w", what, err)
			}
			var msg string
			switch {
			case enable && changed:
				msg = fmt.Sprintf("✓ Added %s hook to %s", b.Type, b.Event)
			case enable:
				msg = fmt.Sprintf("%s hook already on %s", b.Type, b.Event)
			case changed:
				msg = fmt.Sprintf("✓ Removed %s hook from %s", b.Type, b.Event)
			default:
				msg = fmt.Sprintf("no %s hook on %s", b.Type, b.Event)
			}
			_, err = fmt.Fprintf(a.Stderr, "%s (%s)\n", msg, path)
			return err
		},
	}
	cmd.Flags().BoolVar(&user, "user", false, "change the user config ($AUTOAGENT_HOME/config.json) instead of the project's")
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	return cmd
}

// parseSwitch reads true/false (also on/off, yes/no, 1/0).
func parseSwitch(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "on", "yes", "1":
		return true, nil
	case "false", "off", "no", "0":
		return false, nil
	}
	return false, fmt.Errorf("want true or false, got %q", s)
}
