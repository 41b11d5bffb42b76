package codex

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
)

// TrustResult is what TrustCodex changed.
type TrustResult struct {
	Project bool     // the project was marked trusted
	Hooks   []string // the keys of the hooks marked trusted
}

// TrustCodex makes Codex run agent-hooks' hooks of the file install wrote: the project
// (workspace) trusted when the file is the project's, then each of agent-hooks' hooks in it
// that Codex does not trust yet, with the hash Codex reports; Codex writes its own
// config.toml. bin is the codex binary, procEnv the environment it runs with (its HOME and
// CODEX_HOME). It checks afterwards that Codex trusts every one of them.
func TrustCodex(ctx context.Context, bin string, procEnv []string, workspace string, file hostsettings.File) (*TrustResult, error) {
	app, err := StartCodexApp(ctx, bin, workspace, procEnv)
	if err != nil {
		return nil, err
	}
	defer app.Close()
	res := &TrustResult{}
	if file.Scope == hostsettings.Project {
		list, err := app.Hooks(workspace)
		if err != nil {
			return nil, err
		}
		if len(ours(list.Hooks, file.Path)) == 0 {
			// Codex lists no hook of an untrusted project.
			if err := app.TrustProject(workspace); err != nil {
				return nil, err
			}
			res.Project = true
		}
	}
	list, err := app.Hooks(workspace)
	if err != nil {
		return nil, err
	}
	var untrusted []CodexHook
	for _, h := range ours(list.Hooks, file.Path) {
		if h.TrustStatus != "trusted" && h.TrustStatus != "managed" {
			untrusted = append(untrusted, h)
			res.Hooks = append(res.Hooks, h.Key)
		}
	}
	if err := app.TrustHooks(untrusted); err != nil {
		return nil, err
	}
	list, err = app.Hooks(workspace)
	if err != nil {
		return nil, err
	}
	got := ours(list.Hooks, file.Path)
	if len(got) == 0 {
		return res, fmt.Errorf("codex lists none of agent-hooks' hooks of %s (%s)", file.Path, strings.Join(append(list.Warnings, list.Errors...), "; "))
	}
	for _, h := range got {
		if h.TrustStatus != "trusted" && h.TrustStatus != "managed" {
			return res, fmt.Errorf("codex still does not trust %s (%s)", h.Key, h.TrustStatus)
		}
	}
	return res, nil
}

// ours are agent-hooks' Codex hooks from the file at path (Codex may name it by its real
// path: /tmp under /private on macOS).
func ours(hooks []CodexHook, path string) []CodexHook {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	var out []CodexHook
	for _, h := range hooks {
		if (h.SourcePath == path || h.SourcePath == real) && settings().Owns(h.Command) {
			out = append(out, h)
		}
	}
	return out
}

// codexTrust adds what Codex's trust keeps from running: the project's hooks.json in a project
// config.toml does not trust, and (asking codex) every hook it does not trust.
func doctorTrust(ctx context.Context, env hostsettings.Env, opt hostsettings.DoctorOptions, rep *hostsettings.Report) error {
	var project *hostsettings.FileState
	for i := range rep.Files {
		if rep.Files[i].Scope == hostsettings.Project && rep.Files[i].Exists {
			project = &rep.Files[i]
		}
	}
	const trustFix = "agent-hooks install codex --trust, or start codex in the project and trust it"
	if project != nil {
		level, err := ProjectTrust(env, env.Workspace)
		if err != nil {
			return err
		}
		if level != "trusted" {
			problem := fmt.Sprintf("the project %s is not trusted in %s", env.Workspace, ConfigFile(env))
			if level != "" {
				problem = fmt.Sprintf("the project %s is marked %q in %s", env.Workspace, level, ConfigFile(env))
			}
			rep.Findings = append(rep.Findings, hostsettings.Finding{Agent: settings().Name, Title: settings().Title, File: project.Path,
				Problem: problem, Effect: hostsettings.FileIgnored, Fix: trustFix})
		}
	}
	if opt.AgentBin == "" {
		rep.Notes = append(rep.Notes, "codex not found on PATH: whether Codex trusts each hook was not checked")
		return nil
	}
	app, err := StartCodexApp(ctx, opt.AgentBin, env.Workspace, opt.ProcEnv)
	if err != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("could not ask codex about its hooks: %v", err))
		return nil
	}
	defer app.Close()
	list, err := app.Hooks(env.Workspace)
	if err != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("could not ask codex about its hooks: %v", err))
		return nil
	}
	ignored := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Effect == hostsettings.FileIgnored {
			ignored[f.File] = true
		}
	}
	for _, w := range append(list.Warnings, list.Errors...) {
		if mentionsAny(w, ignored) {
			continue // already reported
		}
		effect := hostsettings.Misconfigured
		if strings.Contains(w, "failed to parse") {
			effect = hostsettings.FileIgnored
		}
		rep.Findings = append(rep.Findings, hostsettings.Finding{Agent: settings().Name, Title: settings().Title, Problem: "codex says: " + w, Effect: effect})
	}
	for _, hk := range list.Hooks {
		switch {
		case !hk.Enabled:
			rep.Findings = append(rep.Findings, hostsettings.Finding{Agent: settings().Name, Title: settings().Title, File: hk.SourcePath,
				Problem: fmt.Sprintf("hook %s (%s) is disabled in Codex", hk.Key, hk.Command), Effect: hostsettings.NeverRuns})
		case hk.TrustStatus == "untrusted" || hk.TrustStatus == "modified":
			what := "is not trusted"
			if hk.TrustStatus == "modified" {
				what = "changed since it was trusted"
			}
			rep.Findings = append(rep.Findings, hostsettings.Finding{Agent: settings().Name, Title: settings().Title, File: hk.SourcePath,
				Problem: fmt.Sprintf("hook %s (%s) %s", hk.Key, hk.Command, what), Effect: hostsettings.NeverRuns, Fix: trustFix})
		}
	}
	return nil
}

func mentionsAny(s string, paths map[string]bool) bool {
	for p := range paths {
		if strings.Contains(s, p) {
			return true
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && strings.Contains(s, real) {
			return true
		}
	}
	return false
}

// TrustProgram implements agents.Truster.
func (Agent) TrustProgram() string { return "codex" }

// Trust implements agents.Truster: Codex runs a project's hooks only in a trusted project, and
// any hook only once it is trusted; with trust, codex records both in its config.toml.
func (Agent) Trust(ctx context.Context, w io.Writer, env hostsettings.Env, file hostsettings.File, bin string, procEnv []string, trust bool) error {
	if !trust {
		fmt.Fprintf(w, "Codex runs these hooks only once it trusts them")
		if file.Scope == hostsettings.Project {
			if level, err := ProjectTrust(env, env.Workspace); err == nil && level != "trusted" {
				fmt.Fprintf(w, " and the project")
			}
		}
		fmt.Fprintf(w, ": run agent-hooks install codex --trust, or start codex here and choose to trust them.\n")
		return nil
	}
	if bin == "" {
		return fmt.Errorf("codex not found on PATH (give it with --codex)")
	}
	res, err := TrustCodex(ctx, bin, procEnv, env.Workspace, file)
	if err != nil {
		return err
	}
	cfg := hostsettings.Short(env, ConfigFile(env))
	if res.Project {
		fmt.Fprintf(w, "✓ Codex trusts the project %s (%s)\n", env.Workspace, cfg)
	}
	if len(res.Hooks) > 0 {
		fmt.Fprintf(w, "✓ Codex trusts agent-hooks' %d hooks (%s)\n", len(res.Hooks), cfg)
	} else {
		fmt.Fprintf(w, "Codex already trusts agent-hooks' hooks\n")
	}
	return nil
}
