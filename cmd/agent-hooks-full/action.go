package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/github"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/atomicfile"
	"github.com/autoagent/agent-hooks/internal/cli"
	"github.com/autoagent/agent-hooks/runner"
	"github.com/autoagent/agent-hooks/sessions/view"
)

func (a *app) newActionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "action",
		Short: "Run an event as a GitHub Actions step (the entry point of action.yml)",
		Long: `Run one event as a GitHub Actions step. The inputs come from INPUT_* variables, which
action.yml passes explicitly: event, payload (a JSON object or a file), config (extra hook
configuration, a JSON object or a file, loaded after the project's config), working-directory,
github-token (masked at once, and handed to the hooks as GITHUB_TOKEN), session-id and
fail-on-block (default true).

The step gets the outputs decision, blocked, reason, feedback, session-id, commit-sha and result
(the JSON result), a summary table of the hooks followed by the session's calls (as session show
--markdown writes them: a Mermaid timeline and a table), an error annotation when the event is blocked (a
notice when an approval is pending and fail-on-block is false) and a warning for each hook that
failed. Workflow commands in hook output are not obeyed (hook stderr is logged on stdout, where they
are stopped while the hooks run). Hooks write GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STATE, GITHUB_PATH
and GITHUB_STEP_SUMMARY to files of their own; what they wrote is forwarded to the step's files
entry by entry, and an entry the runner would refuse is dropped with a warning. A failure of
agent-hooks itself is one error annotation.

Exit codes: 0 proceed (or blocked with fail-on-block false), 2 blocked, 1 agent-hooks failed.`,
		Example: `  INPUT_EVENT=PreExecutionEnd INPUT_PAYLOAD='{"issueNumber":42}' agent-hooks action`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			act := github.NewAction(a.Stdout, a.Getenv)
			// A failure is reported once, as an error annotation, whose text go-githubactions
			// escapes; printed again on stderr, an input with a line break in it (a path, the
			// event) could issue workflow commands.
			fail := func(err error) error {
				act.Errorf("%v", err)
				return &cli.SilentError{Code: cli.ExitCode(err)}
			}
			in, err := act.Inputs()
			if err != nil {
				return fail(err)
			}
			// The hooks write to files of their own, forwarded when they are done: one malformed
			// entry of theirs in the step's GITHUB_OUTPUT or GITHUB_ENV would fail the step and
			// lose agent-hooks' outputs.
			files, err := act.IsolateHookFiles(a.Getenv("RUNNER_TEMP"))
			if err != nil {
				return fail(err)
			}
			defer files.Remove()
			res, err := a.runAction(cmd, act, in, files.Env())
			warnings, ferr := act.ForwardHookFiles(files)
			if ferr != nil {
				warnings = append(warnings, ferr.Error())
			}
			if res == nil {
				for _, w := range warnings {
					act.Warningf("%s", w)
				}
				return fail(err)
			}
			session, serr := a.actionSession(res.SessionID)
			if serr != nil {
				warnings = append(warnings, serr.Error())
			}
			res.Warnings = append(res.Warnings, warnings...)
			if rerr := act.Report(res, in.FailOnBlock, session); rerr != nil {
				fmt.Fprintf(a.Stderr, "agent-hooks: warning: %v\n", rerr)
			}
			var blocked *cli.BlockedError
			var silent *cli.SilentError
			switch {
			case res.Blocked && !in.FailOnBlock:
				verb := "blocked"
				if github.Pending(res) {
					verb = "is waiting for approval"
				}
				a.sayUnobeyed(fmt.Sprintf("agent-hooks: %s %s (fail-on-block is false): %s", res.Event, verb, res.Reason))
				return nil
			case errors.As(err, &blocked):
				a.sayUnobeyed(blocked.Reason)
				return &cli.SilentError{Code: cli.ExitBlocked}
			case errors.As(err, &silent):
				return err
			case res.Decision == hooks.DecisionSkip:
				return nil
			case err != nil:
				return fail(err)
			}
			return nil
		},
	}
}

// actionSessionBytes bounds the session's part of a step summary (GitHub keeps at most 1 MiB of a
// step's summary).
const actionSessionBytes = 256 << 10

// actionSession is the Markdown of the session's calls and hooks for the step summary ("" when
// the step has no session or nothing happened in it).
func (a *app) actionSession(id string) (string, error) {
	if id == "" {
		return "", nil
	}
	b := a
	if home := a.actionHome(); home != "" {
		b = a.withEnv(map[string]string{"AUTOAGENT_HOME": home})
	}
	r, err := b.newRunner()
	if err != nil {
		return "", err
	}
	store := r.Store()
	sess, size, err := store.Snapshot(id)
	if err != nil {
		return "", fmt.Errorf("the session's calls are not in the summary: %w", err)
	}
	if size == 0 {
		return "", nil
	}
	var md strings.Builder
	src := localTrail(store, id, size)
	opts := view.MarkdownOptions{MaxBytes: actionSessionBytes}
	if err := view.Markdown(&md, sess, view.Trail{Name: src.name, Open: src.open}, opts); err != nil {
		return "", fmt.Errorf("the session's calls are not in the summary: %w", err)
	}
	return md.String(), nil
}

// sayUnobeyed prints a message that carries hook output (a block reason, feedback) on stderr with
// workflow commands stopped on that stream, so that no line of it is obeyed as one (::warning::,
// ::add-mask::, ::stop-commands:: …).
func (a *app) sayUnobeyed(msg string) {
	resume := github.NewAction(a.Stderr, a.Getenv).StopCommands()
	fmt.Fprintln(a.Stderr, msg)
	resume()
}

// runAction fires the event of the inputs with the token and configuration they name.
// fileEnv names the hooks' own file commands (GITHUB_OUTPUT, GITHUB_ENV, …).
func (a *app) runAction(cmd *cobra.Command, act *github.Action, in github.ActionInputs, fileEnv map[string]string) (*hooks.Result, error) {
	data := hooks.Payload{}
	if p := strings.TrimSpace(in.Payload); strings.HasPrefix(p, "{") {
		if err := cli.DecodePayload("input payload", []byte(p), &data); err != nil {
			return nil, err
		}
	} else if p != "" {
		var err error
		if data, err = a.ReadPayload(p, nil); err != nil {
			return nil, fmt.Errorf("input payload: %w", err)
		}
	}
	env := map[string]string{}
	for k, v := range fileEnv {
		env[k] = v
	}
	if in.GitHubToken != "" {
		env["GITHUB_TOKEN"] = in.GitHubToken
		if a.Getenv("GH_TOKEN") == "" {
			env["GH_TOKEN"] = in.GitHubToken
		}
	}
	if home := a.actionHome(); home != "" {
		env["AUTOAGENT_HOME"] = home
	}
	configFile, cleanup, err := a.actionConfig(in.Config)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	b := a.withEnv(env)
	// Hook stderr and the engine's messages go to stdout, the stream on which workflow commands
	// are stopped: the runner reads stdout and stderr in no order between them, so a line on
	// stderr could be read before the stop or after the resume and be obeyed.
	b.Stderr = a.Stdout
	resume := act.StopCommands()
	r, err := b.newRunner()
	if err != nil {
		return nil, err
	}
	out, err := r.Fire(cmd.Context(), runner.Request{Event: in.Event, Data: data, SessionID: in.SessionID, Workspace: in.WorkingDirectory, ConfigFile: configFile})
	resume()
	if out == nil {
		return nil, err
	}
	if err == nil {
		err = cli.FireError(out)
	}
	return out.Result, err
}

// actionHome is the AUTOAGENT_HOME of the step ("" keeps the usual one): in a workflow run
// (RUNNER_TEMP set) without an AUTOAGENT_HOME of the user's, one under RUNNER_TEMP, so that the
// steps of a job share their sessions and a self-hosted runner keeps nothing between jobs.
func (a *app) actionHome() string {
	if a.Getenv("AUTOAGENT_HOME") != "" || a.Getenv("RUNNER_TEMP") == "" {
		return ""
	}
	return filepath.Join(a.Getenv("RUNNER_TEMP"), "agent-hooks-home")
}

// actionConfig is the file of the config input: the path it names, or inline JSON written to a
// temporary file (removed by cleanup). The hooks load it after the project's config and before
// the user's; no config.json of anyone's is written.
func (a *app) actionConfig(config string) (file string, cleanup func(), err error) {
	cleanup = func() {}
	config = strings.TrimSpace(config)
	switch {
	case config == "":
		return "", cleanup, nil
	case !strings.HasPrefix(config, "{"):
		return a.AbsPath(config), cleanup, nil
	}
	path, cleanup, err := atomicfile.WriteTemp(a.Getenv("RUNNER_TEMP"), "agent-hooks-config-*.json", []byte(config))
	if err != nil {
		return "", func() {}, fmt.Errorf("input config: %w", err)
	}
	return path, cleanup, nil
}

// withEnv is a copy of the app (its cli.App too) whose environment has the given variables set.
func (a *app) withEnv(set map[string]string) *app {
	c := *a.App
	b := app{App: &c}
	if len(set) == 0 {
		return &b
	}
	b.Getenv = func(k string) string {
		if v, ok := set[k]; ok {
			return v
		}
		return a.Getenv(k)
	}
	b.Environ = make([]string, 0, len(a.Environ)+len(set))
	for _, kv := range a.Environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			b.Environ = append(b.Environ, kv)
		}
	}
	for k, v := range set {
		b.Environ = append(b.Environ, k+"="+v)
	}
	return &b
}
