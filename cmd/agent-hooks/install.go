package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/internal/runner"
	"github.com/spf13/cobra"
)

// hostEnv is where the hosts' settings are for this process: the workspace (--workspace, else
// found from the working directory), the home directory and the environment.
func (a *app) hostEnv(workspace string) (hostsettings.Env, error) {
	ws, err := runner.FindWorkspace(workspace, a.cwd, a.getenv)
	if err != nil {
		return hostsettings.Env{}, err
	}
	home, err := a.userHome()
	if err != nil {
		return hostsettings.Env{}, err
	}
	return hostsettings.Env{Workspace: ws, Home: home, Getenv: a.getenv, ClaudeManagedDir: hostsettings.ClaudeManagedDirFor(runtime.GOOS)}, nil
}

// lookPath finds a program as a shell would with this process's PATH: the agent hosts run
// their hooks with the PATH they were started with, which is ours when they start agent-hooks.
func (a *app) lookPath(name string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/') {
		if executableFile(name) {
			return name, nil
		}
		return "", fmt.Errorf("%s: not an executable file", name)
	}
	for _, dir := range filepath.SplitList(a.getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if executableFile(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH", name)
}

func executableFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// codexBin is the codex binary: --codex, else codex on PATH; "" when there is none.
func (a *app) codexBin(flag string) string {
	if flag != "" {
		return flag
	}
	p, err := a.lookPath("codex")
	if err != nil {
		return ""
	}
	return p
}

// shortPath writes path relative to the workspace, or with ~ for the home directory.
func shortPath(env hostsettings.Env, path string) string {
	if rel := hostsettings.Rel(env.Workspace, path); rel != path {
		return rel
	}
	if rel := hostsettings.Rel(env.Home, path); rel != path {
		return filepath.Join("~", rel)
	}
	return path
}

func (a *app) newInstallCmd() *cobra.Command {
	var (
		user      bool
		timeout   int
		trust     bool
		codex     string
		workspace string
	)
	cmd := &cobra.Command{
		Use:   "install <claude|codex|copilot|cline|gemini|cursor>",
		Short: "Make an agent (Claude Code, Codex, Copilot CLI, Cline, Gemini CLI, Cursor) run agent-hooks for its hook events",
		Long: `Register "agent-hooks hook <agent> --timeout N" with "timeout": N on each of the agent's hook
events that agent-hooks handles, in the project's settings (.claude/settings.json,
.codex/hooks.json, .gemini/settings.json, .cursor/hooks.json) or with --user in the user's
(~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json, ~/.cursor/hooks.json).
The file is created when absent and otherwise edited in place: every other key, hook and its
formatting are kept, and running it again changes nothing. A settings file the agent would
ignore as it is (see agent-hooks doctor) is left alone.

--timeout is the agent's timeout for each hook, in seconds (Claude Code stops SessionEnd hooks
after 60 s whatever it says); agent-hooks answers before it runs out. Gemini CLI's settings get
it in milliseconds (.gemini/settings.json), and Cursor's entries (.cursor/hooks.json) get
"failClosed": true where a failure must block, since Cursor otherwise lets the action through.

Codex runs a project's hooks only in a trusted project, and any hook only once it is trusted.
With --trust, install asks codex (--codex, else codex on PATH) to record both in
~/.codex/config.toml; without it, install says what is missing.

GitHub Copilot CLI: agent-hooks' own hooks file, .github/hooks/agent-hooks.json (with --user
~/.copilot/hooks/agent-hooks.json), with "timeoutSec": N on each camelCase event.
Cline: one script per event in .clinerules/hooks/ (with --user ~/.cline/hooks/), each running
"agent-hooks hook cline --event <Name>"; Cline's own timeout (120 s) applies, not --timeout.`,
		Example: `  agent-hooks install claude
  agent-hooks install codex --trust
  agent-hooks install claude --user --timeout 300`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"claude", "codex", "copilot", "cline", "gemini", "cursor"},
		RunE: func(cmd *cobra.Command, args []string) error {
			host, err := hostsettings.Lookup(args[0])
			if err != nil {
				return err
			}
			if timeout <= 0 {
				return fmt.Errorf("--timeout must be a positive number of seconds, got %d", timeout)
			}
			if trust && host != hostsettings.Codex {
				return errors.New("--trust is for codex only")
			}
			env, err := a.hostEnv(workspace)
			if err != nil {
				return err
			}
			file := host.InstallFile(env, user)
			changed, err := host.Install(file.Path, timeout)
			if err != nil {
				return fmt.Errorf("install %s: %w", host.Name, err)
			}
			where := shortPath(env, file.Path)
			switch {
			case changed && host.Scripts:
				fmt.Fprintf(a.stderr, "✓ agent-hooks runs for %d %s events (%s)\n", len(host.Events), host.Title, where)
			case changed:
				fmt.Fprintf(a.stderr, "✓ agent-hooks runs for %d %s events (%s, timeout %d s)\n", len(host.Events), host.Title, where, timeout)
			default:
				fmt.Fprintf(a.stderr, "agent-hooks is already installed for %s (%s)\n", host.Title, where)
			}
			if _, err := a.lookPath(hostsettings.Program); err != nil {
				fmt.Fprintf(a.stderr, "warning: %s is not on PATH: %s will fail to run it\n", hostsettings.Program, host.Title)
			}
			if host == hostsettings.Codex {
				return a.codexTrust(cmd, env, file, trust, codex)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&user, "user", false, "install in the user's settings instead of the project's")
	cmd.Flags().IntVar(&timeout, "timeout", hostsettings.DefaultTimeout, "the agent's timeout for each hook, in seconds")
	cmd.Flags().BoolVar(&trust, "trust", false, "codex: trust the project and agent-hooks' hooks in ~/.codex/config.toml")
	cmd.Flags().StringVar(&codex, "codex", "", "the codex binary to ask (default: codex on PATH)")
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	return cmd
}

// codexTrust makes Codex trust what install wrote (trust), or says what Codex still needs.
func (a *app) codexTrust(cmd *cobra.Command, env hostsettings.Env, file hostsettings.File, trust bool, codexFlag string) error {
	bin := a.codexBin(codexFlag)
	if !trust {
		fmt.Fprintf(a.stderr, "Codex runs these hooks only once it trusts them")
		if file.Scope == hostsettings.Project {
			if level, err := hostsettings.ProjectTrust(env, env.Workspace); err == nil && level != "trusted" {
				fmt.Fprintf(a.stderr, " and the project")
			}
		}
		fmt.Fprintf(a.stderr, ": run agent-hooks install codex --trust, or start codex here and choose to trust them.\n")
		return nil
	}
	if bin == "" {
		return errors.New("install codex --trust: codex not found on PATH (give it with --codex)")
	}
	res, err := hostsettings.TrustCodex(cmd.Context(), bin, a.environ, env.Workspace, file)
	if err != nil {
		return fmt.Errorf("install codex --trust: %w", err)
	}
	cfg := shortPath(env, hostsettings.ConfigFile(env))
	if res.Project {
		fmt.Fprintf(a.stderr, "✓ Codex trusts the project %s (%s)\n", env.Workspace, cfg)
	}
	if len(res.Hooks) > 0 {
		fmt.Fprintf(a.stderr, "✓ Codex trusts agent-hooks' %d hooks (%s)\n", len(res.Hooks), cfg)
	} else {
		fmt.Fprintf(a.stderr, "Codex already trusts agent-hooks' hooks\n")
	}
	return nil
}

func (a *app) newUninstallCmd() *cobra.Command {
	var (
		user      bool
		workspace string
	)
	cmd := &cobra.Command{
		Use:   "uninstall <claude|codex|copilot|cline|gemini|cursor>",
		Short: "Take agent-hooks out of an agent's hook settings",
		Long: `Remove every "agent-hooks hook <agent>" hook from the project's settings of the agent (or with
--user the user's), with the matcher groups and events left empty; everything else in the file
stays as it is. Codex's trust records in ~/.codex/config.toml are left alone.`,
		Example: `  agent-hooks uninstall claude
  agent-hooks uninstall codex --user`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"claude", "codex", "copilot", "cline", "gemini", "cursor"},
		RunE: func(cmd *cobra.Command, args []string) error {
			host, err := hostsettings.Lookup(args[0])
			if err != nil {
				return err
			}
			env, err := a.hostEnv(workspace)
			if err != nil {
				return err
			}
			file := host.InstallFile(env, user)
			changed, err := host.Uninstall(file.Path)
			if err != nil {
				return fmt.Errorf("uninstall %s: %w", host.Name, err)
			}
			if changed {
				fmt.Fprintf(a.stderr, "✓ agent-hooks removed from %s (%s)\n", host.Title, shortPath(env, file.Path))
			} else {
				fmt.Fprintf(a.stderr, "agent-hooks was not installed for %s (%s)\n", host.Title, shortPath(env, file.Path))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&user, "user", false, "uninstall from the user's settings instead of the project's")
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	return cmd
}

func (a *app) newDoctorCmd() *cobra.Command {
	var (
		asJSON    bool
		codex     string
		workspace string
	)
	cmd := &cobra.Command{
		Use:   "doctor [claude|codex|copilot|cline|gemini|cursor]",
		Short: "Find what would make an agent's hooks silently never run",
		Long: `Check the hook settings of Claude Code, Codex, Copilot CLI, Cline, Gemini CLI and Cursor (or only the agent named) in the
user's and the project's files for what makes an agent run hooks other than as written, without a word: a
settings file it ignores (invalid JSON, a hook without its matcher group, "timeout": "5"), an
event name it does not know, a timeout in milliseconds, agent-hooks not on PATH or given another
timeout than the agent's, and for Codex a project or a hook it does not trust (asking codex when
it is on PATH); Gemini CLI's seconds written where it reads milliseconds, hooks it turns off, or
a matcher naming Claude Code's tools; Cursor's agent-hooks entries that would fail open. Copilot
CLI's hooks files (.github/hooks/*.json, ~/.copilot/hooks/*.json) are checked the same way, with
"version": 1 and an --event that matches the event; Cline's hook folders for files named after no
event, files it cannot run, and agent-hooks not on PATH. Exits 1 when it finds any.`,
		Example: `  agent-hooks doctor
  agent-hooks doctor claude --json`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{"claude", "codex", "copilot", "cline", "gemini", "cursor"},
		RunE: func(cmd *cobra.Command, args []string) error {
			hosts := hostsettings.Hosts
			if len(args) == 1 {
				h, err := hostsettings.Lookup(args[0])
				if err != nil {
					return err
				}
				hosts = []*hostsettings.Host{h}
			}
			env, err := a.hostEnv(workspace)
			if err != nil {
				return err
			}
			opt := hostsettings.DoctorOptions{LookPath: a.lookPath, CodexBin: a.codexBin(codex), ProcEnv: a.environ}
			var reports []*hostsettings.Report
			problems := 0
			for _, h := range hosts {
				rep, err := h.Doctor(cmd.Context(), env, opt)
				if err != nil {
					return fmt.Errorf("doctor %s: %w", h.Name, err)
				}
				reports = append(reports, rep)
				problems += len(rep.Findings)
			}
			if asJSON {
				if err := writeJSON(a.stdout, reports); err != nil {
					return err
				}
			} else {
				a.printDoctor(env, hosts, reports)
			}
			if problems > 0 {
				return &silentError{code: exitFailure}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the reports as JSON")
	cmd.Flags().StringVar(&codex, "codex", "", "the codex binary to ask about trust (default: codex on PATH)")
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	return cmd
}

func (a *app) printDoctor(env hostsettings.Env, hosts []*hostsettings.Host, reports []*hostsettings.Report) {
	problems := 0
	for i, rep := range reports {
		fmt.Fprintf(a.stdout, "%s\n", hosts[i].Title)
		for _, f := range rep.Files {
			switch {
			case !f.Exists:
				fmt.Fprintf(a.stdout, "  - %s (%s): none\n", shortPath(env, f.Path), f.Scope)
			case f.AgentHooks > 0:
				fmt.Fprintf(a.stdout, "  - %s (%s): agent-hooks on %d events\n", shortPath(env, f.Path), f.Scope, f.AgentHooks)
			default:
				fmt.Fprintf(a.stdout, "  - %s (%s)\n", shortPath(env, f.Path), f.Scope)
			}
		}
		for _, f := range rep.Findings {
			f.File = shortPath(env, f.File)
			fmt.Fprintf(a.stdout, "  ✗ %s\n", f)
		}
		for _, n := range rep.Notes {
			fmt.Fprintf(a.stdout, "  note: %s\n", n)
		}
		problems += len(rep.Findings)
	}
	switch problems {
	case 0:
		fmt.Fprintln(a.stdout, "✓ no problem found")
	case 1:
		fmt.Fprintln(a.stdout, "1 problem found")
	default:
		fmt.Fprintf(a.stdout, "%d problems found\n", problems)
	}
}
