package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/agents"
	"github.com/autoagent/agent-hooks/agents/all"
	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/cli"
)

func (a *app) newDoctorCmd() *cobra.Command {
	var (
		asJSON    bool
		workspace string
		programs  map[string]*string
	)
	cmd := &cobra.Command{
		Use:   "doctor [" + strings.Join(all.Names(), "|") + "]",
		Short: "Find what would make an agent's hooks silently never run",
		Long: `Check the hook settings of every agent (` + agentTitles() + `), or only the agent named, in the
user's and the project's files for what makes an agent run hooks other than as written, without a
word: a settings file it ignores (invalid JSON, a hook without its matcher group, "timeout": "5"),
an event name it does not know, a timeout in the wrong unit, agent-hooks not on PATH or given
another timeout than the agent's, a hook it does not trust (asking the agent's own program when it
is on PATH), hooks it turns off, a matcher naming another agent's tools, agent-hooks entries that
would fail open, hook files it cannot run.

Then agent-hooks' own configuration, as every call of an agent loads it: a file it cannot load
(every call it gates is refused until it is fixed), no hook or rule on the events of an agent it is
installed for (every call is let through), a hook of .autoagent/config.json on an event none of
those agents fires (it runs only under "agent-hooks run"). Exits 1 when it finds any.`,
		Example: `  agent-hooks doctor
  agent-hooks doctor ` + exampleAgent() + ` --json`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: all.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			list := all.Agents()
			if len(args) == 1 {
				ag, err := all.Lookup(args[0])
				if err != nil {
					return err
				}
				list = []agents.Agent{ag}
			}
			env, err := a.hostEnv(workspace)
			if err != nil {
				return err
			}
			var titles []string
			var reports []*hostsettings.Report
			var installed []agents.Agent
			for _, ag := range list {
				h := ag.Settings()
				opt := hostsettings.DoctorOptions{LookPath: a.lookPath, ProcEnv: a.Environ, Lookup: all.Settings}
				if t, ok := ag.(agents.Truster); ok {
					opt.AgentBin = a.programBin(*programs[ag.Name()], t.TrustProgram())
				}
				rep, err := h.Doctor(cmd.Context(), env, opt)
				if err != nil {
					return fmt.Errorf("doctor %s: %w", h.Name, err)
				}
				titles = append(titles, h.Title)
				reports = append(reports, rep)
				if slices.ContainsFunc(rep.Files, func(f hostsettings.FileState) bool { return f.AgentHooks > 0 }) {
					installed = append(installed, ag)
				}
			}
			own, err := a.doctorConfig(workspace, installed)
			if err != nil {
				return err
			}
			titles = append(titles, hostsettings.Program)
			reports = append(reports, own)
			if asJSON {
				if err := cli.WriteJSON(a.Stdout, reports); err != nil {
					return err
				}
			} else {
				a.printDoctor(env, titles, reports)
			}
			for _, rep := range reports {
				if len(rep.Findings) > 0 {
					return &cli.SilentError{Code: cli.ExitFailure}
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the reports as JSON")
	programs = trustFlags(cmd, "the %s program to ask about trust (default: on PATH)")
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default $GITHUB_WORKSPACE, else the nearest ancestor with .autoagent or .git)")
	return cmd
}

// What agent-hooks' own configuration does to the calls it gates, in doctor's findings.
const (
	configRefuses  hostsettings.Effect = "agent-hooks refuses every call it gates until this is fixed"
	configAllows   hostsettings.Effect = "agent-hooks lets every call through"
	configNeverRun hostsettings.Effect = "this hook never runs for the agents agent-hooks is installed for"
)

// doctorConfig checks agent-hooks' own configuration of the workspace as an agent's call loads it
// (every layer and format), and what it gates for each agent of installed (those whose settings
// run agent-hooks): its report has the agent "agent-hooks".
func (a *app) doctorConfig(workspace string, installed []agents.Agent) (*hostsettings.Report, error) {
	rep := &hostsettings.Report{Agent: hostsettings.Program, Files: []hostsettings.FileState{}, Findings: []hostsettings.Finding{}, Notes: []string{}}
	add := func(effect hostsettings.Effect, file string, line, col int, fix, format string, args ...any) {
		rep.Findings = append(rep.Findings, hostsettings.Finding{Agent: hostsettings.Program, Title: hostsettings.Program,
			File: file, Line: line, Col: col, Problem: fmt.Sprintf(format, args...), Effect: effect, Fix: fix})
	}
	r, err := a.newRunner()
	if err != nil {
		return nil, err
	}
	lenv, err := r.LoadEnv(workspace, "")
	if err != nil {
		return nil, err
	}
	project := filepath.Join(lenv.Workspace, ".autoagent", "config.json")
	// Loaded as each installed agent's calls load it (without the agent's own hook files, which
	// the agent runs itself), else as "agent-hooks run" does.
	loads := []string{""}
	if len(installed) > 0 {
		loads = nil
		for _, ag := range installed {
			loads = append(loads, ag.Name())
		}
	}
	configs := map[string]*hooks.Config{}
	seen := map[string]bool{}
	for _, name := range loads {
		lenv.Agent = name
		cfg, err := hooks.Load(r.NewRegistry(), lenv)
		var cerr *hooks.ConfigError
		switch {
		case errors.As(err, &cerr):
			for _, d := range cerr.Diagnostics {
				if !seen[d.String()] {
					seen[d.String()] = true
					add(configRefuses, d.File, d.Line, d.Col, "", "%s", d.Message)
				}
			}
			continue
		case err != nil:
			return nil, err
		}
		configs[name] = cfg
	}
	if len(rep.Findings) > 0 {
		return rep, nil
	}
	cfg := configs[loads[0]]
	for _, f := range cfg.Files {
		rep.Files = append(rep.Files, hostsettings.FileState{Path: f, Exists: true})
	}
	for _, w := range cfg.Warnings {
		rep.Notes = append(rep.Notes, w.String())
	}
	if cfg.Unprotected != "" {
		rep.Notes = append(rep.Notes, fmt.Sprintf(`%s: "protectConfig": false: the agents may rewrite their own gates`, cfg.Unprotected))
	}
	fired := map[string][]string{} // event → the titles of the installed agents that fire it
	for _, ag := range installed {
		var gates int
		for _, ev := range firedEvents(ag) {
			fired[ev] = append(fired[ev], ag.Title())
			for _, h := range configs[ag.Name()].Hooks[ev] {
				if h.Enabled && h.Name != hooks.ProtectRuleName && h.Source.Format != ag.Name() {
					gates++
				}
			}
		}
		if gates == 0 {
			add(configAllows, project, 0, 0, "agent-hooks init "+ag.Name()+" writes a starter configuration",
				"no hook or rule of agent-hooks runs on %s's events", ag.Title())
		}
	}
	if len(installed) == 0 {
		return rep, nil
	}
	var titles []string
	for _, ag := range installed {
		titles = append(titles, ag.Title())
	}
	// The built-in types that run on an event the agents fire: the same type on another event
	// (set-auto-commit's git-commit on PostExecutionEnd beside Stop) is there for a loop.
	coveredTypes := map[string]bool{}
	for ev := range fired {
		for _, h := range cfg.Hooks[ev] {
			if h.Enabled && h.Type != "command" {
				coveredTypes[h.Type] = true
			}
		}
	}
	for _, ev := range sortedKeys(cfg.Hooks) {
		if _, ok := fired[ev]; ok {
			continue
		}
		for _, h := range cfg.Hooks[ev] {
			// A seed format's hooks are its loop's, which fires their events itself.
			if !h.Enabled || h.Source.Format != "autoagent" || coveredTypes[h.Type] {
				continue
			}
			what := h.Type + " hook"
			if h.Name != h.Type {
				what = fmt.Sprintf("%s hook %q", h.Type, h.Name)
			}
			add(configNeverRun, h.Source.File, h.Source.Line, h.Source.Col,
				fmt.Sprintf("agents fire Stop when a turn ends; keep %s only if a loop runs \"agent-hooks run %s\"", ev, ev),
				"%s is on %s, which %s never fires", what, ev, joinOr(titles))
		}
	}
	return rep, nil
}

// firedEvents are the canonical events `agent-hooks hook` fires for ag: its installed events, and
// the git gates of its shell calls when it fires PreToolUse.
func firedEvents(ag agents.Agent) []string {
	var out []string
	for _, e := range ag.Settings().Events {
		canon, ok := ag.Event(e)
		if !ok {
			canon = e
		}
		if !slices.Contains(out, canon) {
			out = append(out, canon)
		}
		if canon == hooks.PreToolUse {
			out = append(out, hooks.PreGitCommit, hooks.PreGitPush)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// joinOr is "A", "A or B", "A, B or C".
func joinOr(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func (a *app) printDoctor(env hostsettings.Env, titles []string, reports []*hostsettings.Report) {
	problems := 0
	for i, rep := range reports {
		fmt.Fprintf(a.Stdout, "%s\n", titles[i])
		for _, f := range rep.Files {
			switch {
			case !f.Exists:
				fmt.Fprintf(a.Stdout, "  - %s (%s): none\n", shortPath(env, f.Path), f.Scope)
			case f.AgentHooks > 0:
				fmt.Fprintf(a.Stdout, "  - %s (%s): agent-hooks on %d events\n", shortPath(env, f.Path), f.Scope, f.AgentHooks)
			case f.Scope == "":
				fmt.Fprintf(a.Stdout, "  - %s\n", shortPath(env, f.Path))
			default:
				fmt.Fprintf(a.Stdout, "  - %s (%s)\n", shortPath(env, f.Path), f.Scope)
			}
		}
		for _, f := range rep.Findings {
			f.File = shortPath(env, f.File)
			fmt.Fprintf(a.Stdout, "  ✗ %s\n", f)
		}
		for _, n := range rep.Notes {
			fmt.Fprintf(a.Stdout, "  note: %s\n", n)
		}
		problems += len(rep.Findings)
	}
	switch problems {
	case 0:
		fmt.Fprintln(a.Stdout, "✓ no problem found")
	case 1:
		fmt.Fprintln(a.Stdout, "1 problem found")
	default:
		fmt.Fprintf(a.Stdout, "%d problems found\n", problems)
	}
}
