package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/all"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/runner"
)

// hostEnv is where the hosts' settings are for this process: the workspace (--workspace, else
// found from the working directory), the home directory and the environment.
func (a *app) hostEnv(workspace string) (hostsettings.Env, error) {
	ws, err := runner.FindWorkspace(workspace, a.Cwd, a.Getenv)
	if err != nil {
		return hostsettings.Env{}, err
	}
	home, err := a.UserHome()
	if err != nil {
		return hostsettings.Env{}, err
	}
	return hostsettings.Env{Workspace: ws, Home: home, Getenv: a.Getenv, GOOS: runtime.GOOS}, nil
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
	for _, dir := range filepath.SplitList(a.Getenv("PATH")) {
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

// programBin is an agent's own program: the value of its flag, else found on PATH; "" when
// there is none.
func (a *app) programBin(flag, program string) string {
	if flag != "" {
		return flag
	}
	p, err := a.lookPath(program)
	if err != nil {
		return ""
	}
	return p
}

// shortPath writes path relative to the workspace, or with ~ for the home directory.
func shortPath(env hostsettings.Env, path string) string { return hostsettings.Short(env, path) }

// exampleAgent is the agent the commands' examples name: the first of the list.
func exampleAgent() string { return all.Agents()[0].Name() }

// trustExample is install --trust's example line, for the first agent that records trust.
func trustExample() string {
	for _, ag := range all.Agents() {
		if _, ok := ag.(agents.Truster); ok {
			return "  agent-hooks install " + ag.Name() + " --trust\n"
		}
	}
	return ""
}

// agentArgs is the argument of the commands that take an agent: the agents' names, for the usage
// line and completion.
func agentArgs() string { return "<" + strings.Join(all.Names(), "|") + ">" }

// agentTitles are the agents' product names, for help.
func agentTitles() string {
	var titles []string
	for _, ag := range all.Agents() {
		titles = append(titles, ag.Title())
	}
	return strings.Join(titles, ", ")
}

// agentHelp joins what each agent's Help says with pick, one paragraph each.
func agentHelp(pick func(hostsettings.Help) string) string {
	var out []string
	for _, ag := range all.Agents() {
		if h := pick(ag.Settings().Help); h != "" {
			out = append(out, h)
		}
	}
	return strings.Join(out, "\n")
}

// trustFlags are install's and doctor's --<program> flags of the agents that record their own
// trust (agents.Truster), by agent name.
func trustFlags(cmd *cobra.Command, usage string) map[string]*string {
	flags := map[string]*string{}
	for _, ag := range all.Agents() {
		if t, ok := ag.(agents.Truster); ok {
			v := new(string)
			cmd.Flags().StringVar(v, t.TrustProgram(), "", fmt.Sprintf(usage, t.TrustProgram()))
			flags[ag.Name()] = v
		}
	}
	return flags
}

// newInstallCmd is `agent-hooks install <agent>`; runF does the work (a.install when nil).
func (a *app) newInstallCmd(runF func(context.Context, agents.Agent, installOptions) error) *cobra.Command {
	if runF == nil {
		runF = a.install
	}
	var flags installFlags
	cmd := &cobra.Command{
		Use:   "install " + agentArgs(),
		Short: "Make an agent (" + agentTitles() + ") run agent-hooks for its hook events",
		Long: `Register "agent-hooks hook <agent> --timeout N" with "timeout": N on each of the agent's hook
events that agent-hooks handles, in the project's settings or with --user in the user's. The file
is created when absent and otherwise edited in place: every other key, hook and its formatting
are kept, and running it again changes nothing. A settings file the agent would ignore as it is
(see agent-hooks doctor) is left alone, and so is a --timeout doctor would reject.

--timeout is the agent's timeout for each hook, in seconds; agent-hooks answers before it runs out.

` + agentHelp(func(h hostsettings.Help) string { return h.Install }),
		Example: "  agent-hooks install " + exampleAgent() + "\n" + trustExample() +
			"  agent-hooks install " + exampleAgent() + " --user --timeout 300",
		Args:      cobra.ExactArgs(1),
		ValidArgs: all.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			ag, err := all.Lookup(args[0])
			if err != nil {
				return err
			}
			return runF(cmd.Context(), ag, flags.options(ag))
		},
	}
	flags.add(cmd)
	return cmd
}

// installFlags are the flags of install and init.
type installFlags struct {
	installOptions
	programs map[string]*string // --<agent>: the agent's program to ask for its trust
}

func (f *installFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.user, "user", false, "install in the user's settings instead of the project's")
	cmd.Flags().StringVar(&f.timeout, "timeout", strconv.Itoa(hostsettings.DefaultTimeout), "the agent's timeout for each hook, in seconds")
	cmd.Flags().BoolVar(&f.trust, "trust", false, "for an agent that must trust hooks before it runs them: record that trust in its own configuration")
	f.programs = trustFlags(cmd, "the %s program to ask (default: on PATH)")
	cmd.Flags().StringVar(&f.workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
}

// options are the flags' values for ag.
func (f *installFlags) options(ag agents.Agent) installOptions {
	o := f.installOptions
	if p := f.programs[ag.Name()]; p != nil {
		o.program = *p
	}
	return o
}

func (a *app) newUninstallCmd() *cobra.Command {
	var (
		user      bool
		workspace string
	)
	cmd := &cobra.Command{
		Use:   "uninstall " + agentArgs(),
		Short: "Take agent-hooks out of an agent's hook settings",
		Long: `Remove every "agent-hooks hook <agent>" hook from the project's settings of the agent (or with
--user the user's), with the matcher groups and events left empty; everything else in the file
stays as it is. Trust an agent recorded in its own configuration is left alone.`,
		Example:   "  agent-hooks uninstall " + exampleAgent() + "\n  agent-hooks uninstall " + exampleAgent() + " --user",
		Args:      cobra.ExactArgs(1),
		ValidArgs: all.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			ag, err := all.Lookup(args[0])
			if err != nil {
				return err
			}
			host := ag.Settings()
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
				fmt.Fprintf(a.Stderr, "✓ agent-hooks removed from %s (%s)\n", host.Title, shortPath(env, file.Path))
			} else {
				fmt.Fprintf(a.Stderr, "agent-hooks was not installed for %s (%s)\n", host.Title, shortPath(env, file.Path))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&user, "user", false, "uninstall from the user's settings instead of the project's")
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	return cmd
}

// installOptions are install's flags.
type installOptions struct {
	user      bool   // the user's settings, not the project's
	timeout   string // --timeout, as given
	trust     bool   // record the agent's trust of the hooks (agents.Truster)
	workspace string // --workspace
	program   string // the agent's program to ask for its trust ("" on PATH)
}

// install registers agent-hooks in ag's settings (install and init).
func (a *app) install(ctx context.Context, ag agents.Agent, o installOptions) error {
	host := ag.Settings()
	seconds, err := hostsettings.InstallTimeout(o.timeout)
	if err != nil {
		return fmt.Errorf("--timeout: %w", err)
	}
	truster, canTrust := ag.(agents.Truster)
	if o.trust && !canTrust {
		return fmt.Errorf("--trust: %s runs agent-hooks' hooks without being asked to trust them", host.Title)
	}
	env, err := a.hostEnv(o.workspace)
	if err != nil {
		return err
	}
	file := host.InstallFile(env, o.user)
	changed, err := host.Install(file.Path, seconds)
	if err != nil {
		return fmt.Errorf("install %s: %w", host.Name, err)
	}
	where := shortPath(env, file.Path)
	switch {
	case changed && host.Scripts:
		fmt.Fprintf(a.Stderr, "✓ agent-hooks runs for %d %s events (%s)\n", len(host.Events), host.Title, where)
	case changed:
		fmt.Fprintf(a.Stderr, "✓ agent-hooks runs for %d %s events (%s, timeout %d s)\n", len(host.Events), host.Title, where, seconds)
	default:
		fmt.Fprintf(a.Stderr, "agent-hooks is already installed for %s (%s)\n", host.Title, where)
	}
	if _, err := a.lookPath(hostsettings.Program); err != nil {
		fmt.Fprintf(a.Stderr, "warning: %s is not on PATH: %s will fail to run it\n", hostsettings.Program, host.Title)
	}
	if canTrust {
		bin := a.programBin(o.program, truster.TrustProgram())
		if err := truster.Trust(ctx, a.Stderr, env, file, bin, a.Environ, o.trust); err != nil {
			return fmt.Errorf("install %s --trust: %w", host.Name, err)
		}
	}
	return nil
}
