package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// ScopeManaged is the scope of the managed layer (LoadEnv.ManagedConfig).
const ScopeManaged = "managed"

// ruleSetRef is one name of a file's "ruleSets", with where it is written.
type ruleSetRef struct {
	name   string
	offset int
}

// ConfigPather is a Format that can name the files and folders it reads configuration from for a
// workspace, whether they exist yet or not: the agent agent-hooks gates may write none of them.
type ConfigPather interface {
	// ConfigPaths are the format's files, and its folders ending in a separator.
	ConfigPaths(env LoadEnv) []string
}

// ProtectRuleName is the name of the rule that keeps the agent from writing agent-hooks'
// configuration.
const ProtectRuleName = "protect-config"

// protect adds the rule that refuses every tool call writing what agent-hooks reads its
// configuration from (the native files of every layer, $AUTOAGENT_HOME, every format's files and
// folders, the hook scripts the configuration runs from the workspace), unless a layer says
// "protectConfig": false and the managed layer does not insist. It comes first on PreToolUse.
func protect(reg *Registry, cfg *Config, env LoadEnv, files []*nativeFile) []Diagnostic {
	managedOn := false
	for _, f := range files {
		if f.protectConfig == nil {
			continue
		}
		if f.scope == ScopeManaged && *f.protectConfig {
			managedOn = true
		}
		if !*f.protectConfig && !managedOn && cfg.Unprotected == "" {
			line, col := f.doc.LineCol(f.protectOffset)
			cfg.Unprotected = fmt.Sprintf("%s:%d:%d", f.path, line, col)
		}
	}
	if managedOn {
		cfg.Unprotected = ""
	}
	if cfg.Unprotected != "" {
		return nil
	}
	t, ok := reg.Type(TypeRule)
	if !ok {
		return nil // a registry without rules (some tests): nothing can decide
	}
	var paths []string
	add := func(p string, dir bool) {
		if p == "" {
			return
		}
		p = filepath.Clean(p)
		if dir {
			p += string(filepath.Separator) + "**"
		}
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	add(filepath.Join(env.Workspace, filepath.FromSlash(ProjectConfigPath)), false)
	add(filepath.Join(env.Workspace, ".autoagent", "hooks"), true)
	add(env.AutoagentHome, true)
	add(env.ManagedConfig, false)
	add(env.ExtraConfig, false)
	for _, f := range reg.Formats() {
		if cp, ok := f.(ConfigPather); ok {
			for _, p := range cp.ConfigPaths(env) {
				add(p, isDirPath(p))
			}
		}
	}
	var parser *syntax.Parser
	var read map[string]bool // the commands whose scripts were added: one is often configured again
	for _, event := range sortedKeys(cfg.Hooks) {
		for _, h := range cfg.Hooks[event] {
			if h.Type == TypeCommand && !read[h.Command] {
				if parser == nil {
					parser, read = syntax.NewParser(), map[string]bool{}
				}
				read[h.Command] = true
				for _, p := range scriptsOf(parser, h.Command, env.Workspace) {
					add(p, false)
				}
			}
			if h.Source.Format != "autoagent" && h.Source.File != "" && h.Type == TypeCommand {
				add(h.Source.File, false) // a seed format's hook file is the hook itself
			}
		}
	}
	cfg.Protected = paths
	globs := make([]string, len(paths))
	realWS := realPath(env.Workspace)
	for i, p := range paths {
		// A file's glob covers what is below it too ("p/**" matches p itself): a file replaced by a
		// folder of the same name stays protected, and no path has to be looked up to know which
		// it is (some forty stat calls on every tool call).
		if !strings.HasSuffix(p, string(filepath.Separator)+"**") {
			p += string(filepath.Separator) + "**"
		}
		globs[i] = protectGlob(p, env.Workspace, realWS)
	}
	h := &Hook{
		Name: ProtectRuleName, Type: TypeRule, Event: PreToolUse, Blocking: true, Enabled: true,
		Source: Source{Format: "built-in", Scope: ScopeManaged},
	}
	r, err := compileProtectRule(t, h, globs)
	if err != nil {
		return []Diagnostic{{Severity: SeverityError, Message: fmt.Sprintf("the %s rule: %v", ProtectRuleName, err)}}
	}
	h.runner = r
	cfg.Hooks[PreToolUse] = append([]*Hook{h}, cfg.Hooks[PreToolUse]...)
	return nil
}

// protectReason is the protect-config rule's reason.
const protectReason = "agent-hooks' configuration, its hook scripts and the agents' hook settings are protected from the agent they gate (a person changes them, or sets \"protectConfig\": false)"

// compileProtectRule compiles the protect-config rule, {"writes": globs, "decision": "deny",
// "reason": protectReason}, handing the rule type the object as its loader would parse it: no
// JSON is written and read back on every call, and a glob keeps a path's bytes as they are, valid
// UTF-8 or not.
func compileProtectRule(t Type, h *Hook, globs []string) (Task, error) {
	rt, ok := t.(RuleType)
	if !ok {
		opts, err := json.Marshal(map[string]any{"writes": globs, "decision": "deny", "reason": protectReason})
		if err != nil {
			return nil, err
		}
		h.Options = opts
		return t.Configure(h, opts)
	}
	values := make([]jsonpos.Value, len(globs)+3)
	list := &values[len(globs)]
	list.Kind, list.Elems = jsonpos.Array, make([]*jsonpos.Value, len(globs))
	for i, g := range globs {
		values[i] = jsonpos.Value{Kind: jsonpos.String, Str: g}
		list.Elems[i] = &values[i]
	}
	decision, reason := &values[len(globs)+1], &values[len(globs)+2]
	*decision = jsonpos.Value{Kind: jsonpos.String, Str: "deny"}
	*reason = jsonpos.Value{Kind: jsonpos.String, Str: protectReason}
	return rt.CompileRule(h, &jsonpos.Value{Kind: jsonpos.Object, Members: []jsonpos.Member{
		{Key: "writes", Value: list}, {Key: "decision", Value: decision}, {Key: "reason", Value: reason},
	}})
}

// isDirPath reports whether a format's path names a folder: it ends in a separator.
func isDirPath(p string) bool {
	return strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator))
}

// protectGlob is a protected path as a rule's "writes" glob: relative to the workspace inside it
// (the form calls carry), absolute outside, with glob characters escaped.
func protectGlob(p, workspace, realWorkspace string) string {
	for _, ws := range []string{workspace, realWorkspace} {
		if ws == "" {
			continue
		}
		if rel, ok := strings.CutPrefix(p, ws+string(filepath.Separator)); ok {
			p = rel
			break
		}
	}
	p = filepath.ToSlash(p)
	star := strings.HasSuffix(p, "/**")
	if star {
		p = strings.TrimSuffix(p, "/**")
	}
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\!`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if star {
		out += "/**"
	}
	if !strings.Contains(out, "/") {
		out = "./" + out // a name alone would match it in every folder
	}
	return out
}

func realPath(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// scriptsOf are the files inside the workspace a hook's command runs or reads by name (its
// program, or an argument naming a file that exists: `bash .autoagent/hooks/check.sh`), the
// command read by parser (a parser is reused from one command to the next).
func scriptsOf(parser *syntax.Parser, command, workspace string) []string {
	if workspace == "" {
		return nil
	}
	f, err := parser.Parse(strings.NewReader(command), "")
	if err != nil {
		return nil
	}
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok {
			return true
		}
		lit := w.Lit()
		if lit == "" {
			// a quoted literal ('…' or "…" without expansions)
			var b strings.Builder
			for _, part := range w.Parts {
				switch p := part.(type) {
				case *syntax.SglQuoted:
					b.WriteString(p.Value)
				case *syntax.DblQuoted:
					if len(p.Parts) == 1 {
						if l, ok := p.Parts[0].(*syntax.Lit); ok {
							b.WriteString(l.Value)
							continue
						}
					}
					return true
				case *syntax.Lit:
					b.WriteString(p.Value)
				default:
					return true
				}
			}
			lit = b.String()
		}
		if lit == "" || strings.HasPrefix(lit, "-") {
			return true
		}
		p := lit
		if !filepath.IsAbs(p) {
			p = filepath.Join(workspace, p)
		}
		p = filepath.Clean(p)
		if !strings.HasPrefix(p, filepath.Clean(workspace)+string(filepath.Separator)) {
			return true
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
		return true
	})
	return out
}
