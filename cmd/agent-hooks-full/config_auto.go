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

// StopCommitMessage is the message of the git-commit hook `config set-auto-commit` adds to Stop.
const StopCommitMessage = "{{agent}} session {{agentSessionId}}"

// autoBuiltins are the hooks `config set-auto-<what>` adds or removes. A commit goes on
// PostExecutionEnd, which a loop fires when its task is done, and on Stop, which every agent fires
// when a turn ends (and its SessionEnd, if at all, with a budget of seconds): there the session's
// filesModified restrict it to the files the agent's edit tools changed. A push goes on
// PostExecutionEnd only: a push at every turn is not asked for by turning commits on.
func autoBuiltins(what string) []configedit.Builtin {
	if what != "commit" {
		return []configedit.Builtin{{
			Event: hooks.PostExecutionEnd, Aliases: hooks.Aliases(hooks.PostExecutionEnd), Type: gitops.TypePush,
			Fields: []configedit.Field{{Key: "type", Value: gitops.TypePush}, {Key: "remote", Value: "origin"}, {Key: "branch", Value: "current"}},
			After:  []string{gitops.TypeCommit},
		}}
	}
	commit := func(event, message string) configedit.Builtin {
		return configedit.Builtin{
			Event: event, Aliases: hooks.Aliases(event), Type: gitops.TypeCommit,
			Fields: []configedit.Field{{Key: "type", Value: gitops.TypeCommit}, {Key: "message", Value: message}},
			Before: []string{gitops.TypePush},
		}
	}
	// On Stop, only an agent's: a loop's `session end` fires Stop too, whose payload names no
	// agent and no files, and would commit everything under a message of unexpanded variables.
	onStop := commit(hooks.Stop, StopCommitMessage)
	onStop.Fields = append(onStop.Fields, configedit.Field{Key: "matcher", Value: map[string]any{"field": "agent", "regex": "."}})
	return []configedit.Builtin{commit(hooks.PostExecutionEnd, gitops.DefaultMessage), onStop}
}

// newSetAutoCmd is `config set-auto-commit` (what "commit") or `config set-auto-push` ("push").
func (a *app) newSetAutoCmd(what string) *cobra.Command {
	var (
		user      bool
		workspace string
	)
	bs := autoBuiltins(what)
	typ := bs[0].Type
	var events []string
	for _, b := range bs {
		events = append(events, b.Event)
	}
	and, or := strings.Join(events, " and "), strings.Join(events, " or ")
	long := fmt.Sprintf(`Add (true) or remove (false) the built-in %s hook on %s in the project's
.autoagent/config.json, or with --user in $AUTOAGENT_HOME/config.json.`, typ, and)
	if what == "commit" {
		long += `

On PostExecutionEnd (fired by a loop, "agent-hooks run PostExecutionEnd") it commits every change
with the message "` + gitops.DefaultMessage + `"; on Stop (fired by every agent when a turn
ends) it commits only the files the agent's edit tools changed in the session, as
"` + StopCommitMessage + `", and a turn that changed nothing commits nothing. Files
that look like secrets are never committed. false removes every git-commit hook of both events.`
	}
	long += `

The file is created when absent and otherwise edited in place: every other key, its order and the
file's formatting are kept. Running it twice changes nothing the second time.`
	cmd := &cobra.Command{
		Use:   "set-auto-" + what + " <true|false>",
		Short: fmt.Sprintf("Add or remove the %s hook on %s", typ, and),
		Long:  long,
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
			var edited []string // the events whose hooks changed
			changed, err := configedit.Update(path, func(src []byte) ([]byte, bool, error) {
				edited = nil
				for _, b := range bs {
					out, did, err := configedit.Set(src, b, enable)
					if err != nil {
						return nil, false, err
					}
					if did {
						edited = append(edited, b.Event)
					}
					src = out
				}
				return src, len(edited) > 0, nil
			})
			if err != nil {
				return fmt.Errorf("set-auto-%s: %w", what, err)
			}
			var msg string
			switch {
			case enable && changed:
				msg = fmt.Sprintf("✓ Added %s hook to %s", typ, strings.Join(edited, " and "))
			case enable:
				msg = fmt.Sprintf("%s hook already on %s", typ, and)
			case changed:
				msg = fmt.Sprintf("✓ Removed %s hook from %s", typ, strings.Join(edited, " and "))
			default:
				msg = fmt.Sprintf("no %s hook on %s", typ, or)
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
