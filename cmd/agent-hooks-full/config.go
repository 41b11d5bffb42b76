package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/cli"
)

func (a *app) newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show, validate and change the hook configuration",
		Example: `  agent-hooks config show
  agent-hooks config validate
  agent-hooks config set-auto-commit true`,
	}
	cmd.AddCommand(a.newConfigShowCmd(), a.newConfigValidateCmd(), a.newSetAutoCmd("commit"), a.newSetAutoCmd("push"))
	return cmd
}

type shownHook struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Format    string `json:"format"`
	Scope     string `json:"scope"`
	File      string `json:"file"`
	Line      int    `json:"line,omitempty"`
	Command   string `json:"command,omitempty"`
	Blocking  bool   `json:"blocking"`
	Parallel  bool   `json:"parallel,omitempty"`
	Enabled   bool   `json:"enabled"`
	TimeoutMs int64  `json:"timeoutMs"`
}

type shownConfig struct {
	Workspace string   `json:"workspace"`
	Files     []string `json:"files"`
	// Protected are the files and folders the agent may not write; Unprotected the
	// "protectConfig": false that turned that off.
	Protected   []string               `json:"protected"`
	Unprotected string                 `json:"unprotected,omitempty"`
	Events      map[string][]shownHook `json:"events"`
	Warnings    []hooks.Diagnostic     `json:"warnings,omitempty"`
}

func (a *app) newConfigShowCmd() *cobra.Command {
	var workspace, loop string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "List the effective hooks of every event with their source file and format",
		Example: `  agent-hooks config show
  agent-hooks config show --json | jq '.events.PreExecutionEnd'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			env, err := r.LoadEnv(workspace, loop)
			if err != nil {
				return err
			}
			cfg, err := r.LoadConfig(env)
			if err != nil {
				return err
			}
			shown := shownConfig{Workspace: env.Workspace, Files: cfg.Files, Events: map[string][]shownHook{}, Warnings: cfg.Warnings,
				Protected: append([]string{}, cfg.Protected...), Unprotected: cfg.Unprotected}
			for _, ev := range eventOrder(cfg) {
				for _, h := range cfg.Hooks[ev] {
					t := h.Timeout
					if t == 0 {
						t = hooks.DefaultTimeout
					}
					shown.Events[ev] = append(shown.Events[ev], shownHook{
						Name: h.Name, Type: h.Type, Format: h.Source.Format, Scope: h.Source.Scope,
						File: h.Source.File, Line: h.Source.Line, Command: h.Command, Blocking: h.Blocking,
						Parallel: h.Parallel, Enabled: h.Enabled, TimeoutMs: t.Milliseconds(),
					})
				}
			}
			if asJSON {
				return cli.WriteJSON(a.Stdout, shown)
			}
			return printShown(a, cfg, shown)
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory")
	cmd.Flags().StringVar(&loop, "loop", "", "agent-pipelines stage file (stage.yaml, formerly loop.yaml)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printShown(a *app, cfg *hooks.Config, shown shownConfig) error {
	fmt.Fprintf(a.Stdout, "workspace: %s\n", shown.Workspace)
	if shown.Unprotected != "" {
		fmt.Fprintf(a.Stdout, "protection of the configuration from the agent: off (\"protectConfig\": false at %s)\n", shown.Unprotected)
	} else {
		fmt.Fprintf(a.Stdout, "protected from the agent: %d files and folders (--json lists them)\n", len(shown.Protected))
	}
	if len(shown.Events) == 0 {
		fmt.Fprintln(a.Stdout, "no hooks configured")
		return nil
	}
	tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	for _, ev := range eventOrder(cfg) {
		fmt.Fprintf(tw, "\n%s\n", ev)
		for _, h := range shown.Events[ev] {
			flags := []string{}
			if h.Blocking {
				flags = append(flags, "blocking")
			}
			if h.Parallel {
				flags = append(flags, "parallel")
			}
			if !h.Enabled {
				flags = append(flags, "disabled")
			}
			loc := h.File
			if h.Line > 0 {
				loc = fmt.Sprintf("%s:%d", h.File, h.Line)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s/%s\t%s\t%s\n", h.Name, h.Type, h.Format, h.Scope, time.Duration(h.TimeoutMs)*time.Millisecond, strings.Join(append(flags, loc), " "))
		}
	}
	return tw.Flush()
}

// eventOrder lists the configured events: canonical ones in SPEC order, then custom ones.
func eventOrder(cfg *hooks.Config) []string {
	var out []string
	seen := map[string]bool{}
	for _, ev := range append(hooks.CanonicalEvents(), cfg.CustomEvents...) {
		if len(cfg.Hooks[ev]) > 0 && !seen[ev] {
			out = append(out, ev)
			seen[ev] = true
		}
	}
	return out
}

// countHooks counts the configured hooks and rules (a rule once, whatever its events).
func countHooks(cfg *hooks.Config) (hookCount, ruleCount int) {
	rules := map[hooks.Source]map[string]bool{}
	for _, hs := range cfg.Hooks {
		for _, h := range hs {
			if h.Type != hooks.TypeRule {
				hookCount++
				continue
			}
			if rules[h.Source] == nil {
				rules[h.Source] = map[string]bool{}
			}
			rules[h.Source][h.Name] = true
		}
	}
	for _, names := range rules {
		ruleCount += len(names)
	}
	return hookCount, ruleCount
}

// validation is the result of `config validate --json`.
type validation struct {
	Valid       bool                   `json:"valid"`
	Workspace   string                 `json:"workspace"`
	Files       []string               `json:"files"`
	Hooks       int                    `json:"hooks"`
	Rules       int                    `json:"rules"`
	Diagnostics []validationDiagnostic `json:"diagnostics"`
}

// validationDiagnostic is a hooks.Diagnostic with every key present (line and col 0 when the
// problem has no position), for programs that read it.
type validationDiagnostic struct {
	File     string         `json:"file"`
	Line     int            `json:"line"`
	Col      int            `json:"col"`
	Severity hooks.Severity `json:"severity"`
	Message  string         `json:"message"`
}

func (a *app) newConfigValidateCmd() *cobra.Command {
	var workspace, loop string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check every hook configuration in the workspace (all formats); exit 1 on errors",
		Long: `Check every hook configuration of the workspace, in every format, and print each problem
as file:line:col: severity: message on stderr. Exit 1 when there is an error (warnings alone
exit 0). --json prints {"valid", "workspace", "files", "hooks", "diagnostics": [{"file", "line",
"col", "severity", "message"}]} on stdout instead, with the same exit code.`,
		Example: `  agent-hooks config validate
  agent-hooks config validate --workspace ./repo
  agent-hooks config validate --json | jq -r '.diagnostics[] | "\(.file):\(.line): \(.message)"'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.newRunner()
			if err != nil {
				return err
			}
			env, err := r.LoadEnv(workspace, loop)
			if err != nil {
				return err
			}
			out := validation{Workspace: env.Workspace, Files: []string{}, Diagnostics: []validationDiagnostic{}}
			var diags []hooks.Diagnostic
			cfg, err := hooks.Load(a.Registry(), env)
			var cerr *hooks.ConfigError
			switch {
			case errors.As(err, &cerr):
				diags = cerr.Diagnostics
			case err != nil:
				return err
			default:
				out.Valid = true
				diags = cfg.Warnings
				out.Files = append(out.Files, cfg.Files...)
				out.Hooks, out.Rules = countHooks(cfg)
			}
			for _, d := range diags {
				out.Diagnostics = append(out.Diagnostics, validationDiagnostic{File: d.File, Line: d.Line, Col: d.Col, Severity: d.Severity, Message: d.Message})
			}
			if asJSON {
				if err := cli.WriteJSON(a.Stdout, out); err != nil {
					return err
				}
			} else {
				for _, d := range diags {
					fmt.Fprintln(a.Stderr, d)
				}
				if out.Valid {
					fmt.Fprintf(a.Stdout, "ok: %d hooks, %d rules, %d warnings\n", out.Hooks, out.Rules, len(diags))
				}
			}
			if !out.Valid {
				return &cli.SilentError{Code: cli.ExitFailure}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory")
	cmd.Flags().StringVar(&loop, "loop", "", "agent-pipelines stage file (stage.yaml, formerly loop.yaml)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result and every diagnostic as JSON")
	return cmd
}
