package template

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/autoagent/agent-hooks/hooks/process"
)

// expand is ExpandCommand with its value files written (and removed when the test ends).
func expand(t testing.TB, tmpl string, p map[string]any) (command string, env []string) {
	t.Helper()
	x, err := ExpandCommand(tmpl, p)
	must(t, err)
	env, cleanup, err := x.Bind()
	must(t, err)
	if cleanup != nil {
		t.Cleanup(cleanup)
	}
	return x.Command, env
}

// runSh runs an expanded command with real sh and returns its stdout.
func runSh(t *testing.T, command string, env []string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sh -c %q: %v\n%s", command, err, out)
	}
	return string(out)
}

func TestExpandCommandKeepsValuesAsData(t *testing.T) {
	t.Parallel()
	evil := []string{
		`$(touch pwned)`, "`touch pwned`", `'; touch pwned; '`, `"; touch pwned; "`,
		"line1\ntouch pwned", `\`, `$HOME`, `*`, `a b  c`, `}'"$(touch pwned)"'{`, "",
	}
	templates := []struct{ name, tmpl, want string }{
		{"bare", `printf '%s|' {{v}}`, "V|"},
		{"double", `printf '%s|' "x {{v}} y"`, "x V y|"},
		{"single", `printf '%s|' 'x {{v}} y'`, "x V y|"},
		{"subshell", `printf '%s|' "$(printf '%s' {{v}})"`, "V|"},
		{"backtick", "printf '%s|' \"`printf '%s' {{v}}`\"", "V|"},
		{"param default", `printf '%s|' "${UNSET:-{{v}}}"`, "V|"},
		{"heredoc", "cat <<EOF\n<{{v}}>\nEOF", "<V>\n"},
		{"nested key", `printf '%s|' {{a.b}}`, "V|"},
	}
	for _, tc := range templates {
		for _, v := range evil {
			p := payload{"v": v, "a": map[string]any{"b": v}}
			cmd, env := expand(t, tc.tmpl, p)
			got := runSh(t, cmd, env)
			want := strings.ReplaceAll(tc.want, "V", v)
			if tc.name == "subshell" || tc.name == "backtick" {
				want = strings.ReplaceAll(tc.want, "V", strings.TrimRight(v, "\n")) // $(…) drops trailing newlines
			}
			if got != want {
				t.Errorf("%s with %q: got %q, want %q (command %q)", tc.name, v, got, want, cmd)
			}
		}
	}
}

func TestExpandCommandLeavesUnknownAndInert(t *testing.T) {
	t.Parallel()
	tests := []struct{ tmpl, want string }{
		{"echo {{missing}}", "echo {{missing}}"},
		{"echo {{ not a key }}", "echo {{ not a key }}"},
		{"echo hi # {{v}}", "echo hi # {{v}}"},
		{"cat <<'EOF'\n{{v}}\nEOF", "cat <<'EOF'\n{{v}}\nEOF"},
		{"echo {{v}}", `echo ${AGENT_HOOKS_ARG_1:+"${AGENT_HOOKS_ARG_1}"}`},
		{"echo {{ v }} {{v}}", `echo ${AGENT_HOOKS_ARG_1:+"${AGENT_HOOKS_ARG_1}"} ${AGENT_HOOKS_ARG_1:+"${AGENT_HOOKS_ARG_1}"}`},
		{"echo x{{v}}", `echo x"${AGENT_HOOKS_ARG_1}"`},
	}
	for _, tc := range tests {
		got, _ := expand(t, tc.tmpl, payload{"v": "x"})
		if got != tc.want {
			t.Errorf("ExpandCommand(%q) = %q, want %q", tc.tmpl, got, tc.want)
		}
	}
}

func TestExpandMessageIsVerbatim(t *testing.T) {
	t.Parallel()
	p := payload{"issueNumber": 42, "issueTitle": `Fix "login" $(x)`, "meta": map[string]any{"k": []any{"a"}}}
	got := ExpandMessage("Complete issue #{{issueNumber}}: {{issueTitle}} {{meta.k}} {{nope}}", p)
	want := `Complete issue #42: Fix "login" $(x) ["a"] {{nope}}`
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// dangerousNodes counts the parts of a parsed command that make the shell run or substitute
// something: command and process substitutions, parameter and arithmetic expansions, statements.
func dangerousNodes(t testing.TB, command string) (counts [4]int, ok bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(command), "")
	if err != nil {
		return counts, false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			counts[0]++
		case *syntax.ArithmExp:
			counts[1]++
		case *syntax.Stmt:
			counts[2]++
		case *syntax.CallExpr:
			counts[3]++
		}
		return true
	})
	return counts, true
}

// unquotedRefs lists the references to template variables in a command that the shell would
// split, glob or match as a pattern: every one must be inside "…", or in an unquoted here
// document outside a pattern.
// argumentRef reports whether pe is a whole argument's reference, ${X:+"${X}"}.
func argumentRef(pe *syntax.ParamExp) bool {
	if pe.Exp == nil || pe.Exp.Op != syntax.AlternateUnsetOrNull || pe.Exp.Word == nil || len(pe.Exp.Word.Parts) != 1 {
		return false
	}
	dq, ok := pe.Exp.Word.Parts[0].(*syntax.DblQuoted)
	if !ok || len(dq.Parts) != 1 {
		return false
	}
	inner, ok := dq.Parts[0].(*syntax.ParamExp)
	return ok && inner.Param != nil && inner.Param.Value == pe.Param.Value && inner.Exp == nil
}

func unquotedRefs(t testing.TB, command string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		var err2 error
		if f, err2 = syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(command), ""); err2 != nil {
			t.Fatalf("expanded command does not parse: %v\n%s", err, command)
		}
	}
	var bad []string
	var stack []syntax.Node
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		pe, ok := n.(*syntax.ParamExp)
		if !ok || pe.Param == nil || !strings.HasPrefix(pe.Param.Value, "AGENT_HOOKS_ARG_") || strings.HasSuffix(pe.Param.Value, "_FILE") {
			return true
		}
		if argumentRef(pe) {
			return true // ${X:+"${X}"}: the value, if any, is the quoted word inside
		}
		for j := len(stack) - 2; j >= 0; j-- {
			switch a := stack[j].(type) {
			case *syntax.DblQuoted:
				return true
			case *syntax.Redirect:
				if a.Hdoc != nil && stack[j+1] == syntax.Node(a.Hdoc) {
					return true
				}
			case *syntax.ParamExp:
				if a.Param != nil && strings.HasPrefix(a.Param.Value, "AGENT_HOOKS_ARG_") {
					continue // ${AGENT_HOOKS_ARG_1%.}, the file reader's own
				}
				bad = append(bad, pe.Param.Value+" in a ${…} word")
				return true
			case *syntax.CmdSubst, *syntax.ProcSubst:
				bad = append(bad, pe.Param.Value)
				return true
			}
		}
		bad = append(bad, pe.Param.Value)
		return true
	})
	return bad
}

// FuzzExpandCommand: whatever the template and the value, a template CheckPlacements refuses
// never expands; otherwise the expanded command never contains the value, parses into the same
// statements, substitutions and calls as the same template expanded with a harmless value (a
// payload value cannot add shell syntax), and every reference to a value is quoted.
func FuzzExpandCommand(f *testing.F) {
	seeds := []struct{ tmpl, v string }{
		{"echo {{v}}", "$(id)"},
		{"echo '{{v}}'", "'; id; '"},
		{`echo "{{v}}"`, `"; id; "`},
		{"echo `echo {{v}}`", "`id`"},
		{"echo \"`echo \\\"{{v}}\\\"`\"", "`id`"},
		{"cat <<EOF\n{{v}}\nEOF\nid", "EOF\nid"},
		{"cat <<-'E'\n\t{{v}}\nE", "x"},
		{"cat <<EOF\n$(echo {{v}}) ${X:-{{v}}}\nEOF", "a b"},
		{"cat <<EOF\n${X#{{v}}}\nEOF", "*"},
		{"echo ${X:-{{v}}}", "}; id; ${"},
		{`echo "${X:-'{{v}}'}"`, "'"},
		{`echo "${X#{{v}}}" ${X%%{{v}}}`, "*"},
		{"echo $(( {{v}} + 1 ))", "1)); id; ((1"},
		{"(( {{v}} )); let {{v}}; echo ${x:{{v}}} ${a[{{v}}]}", "a[$(id)]"},
		{"case {{v}} in {{v}}) echo hit;; esac", "*"},
		{"sh -c 'echo {{v}}'", "'; id; '"},
		{`bash -c "echo {{v}}" && sh -c 'echo "$1"' sh {{v}}`, "$(id)"},
		{"eval echo {{v}}", "$(id)"},
		{"# {{v}}\necho ok", "\nid"},
		{"echo {{v}} && echo {{w}}", "a\nb"},
		{"a='{{v}}' b=\"{{v}}\" c={{v}}", "\\"},
		{"echo \\{{v}} \\\\{{v}}", "x"},
		{"{{v}} arg", "id"},
	}
	for _, s := range seeds {
		f.Add(s.tmpl, s.v)
	}
	f.Fuzz(func(t *testing.T, tmpl, v string) {
		p := payload{"v": v, "w": v}
		x, err := ExpandCommand(tmpl, p)
		if refused := CheckPlacements(tmpl); refused != nil {
			if err == nil {
				t.Fatalf("refused template expanded: %v", refused)
			}
			return
		}
		if err != nil {
			var input *process.InputError
			if !errors.As(err, &input) || !strings.Contains(v, "\x00") {
				t.Fatalf("ExpandCommand: %v", err)
			}
			return
		}
		if len(v) < 4 || strings.Contains(tmpl, v) {
			return // a value that is part of the template proves nothing either way
		}
		got, env := x.Command, x.env
		if strings.Contains(got, "{{v}}") && !strings.Contains(tmpl, "{{v}}") {
			t.Fatalf("placeholder appeared from nowhere")
		}
		if strings.Contains(got, v) {
			t.Fatalf("expanded command contains the payload value %q:\n%s", v, got)
		}
		for _, kv := range env {
			if !strings.HasPrefix(kv, "AGENT_HOOKS_ARG_") {
				t.Fatalf("unexpected env %q", kv)
			}
		}
		harmless, err := ExpandCommand(tmpl, payload{"v": "zz", "w": "zz"})
		must(t, err)
		want, ok1 := dangerousNodes(t, harmless.Command)
		have, ok2 := dangerousNodes(t, got)
		if ok1 != ok2 || want != have {
			t.Fatalf("value changed the command's structure: %v vs %v\n%s\n%s", want, have, harmless, got)
		}
		if got == tmpl {
			return // nothing expanded (no placeholder, or only inert ones)
		}
		if bad := unquotedRefs(t, got); len(bad) > 0 {
			t.Fatalf("unquoted references %v in\n%s", bad, got)
		}
	})
}

// TestExpandCommandEmptyAndListArguments: a whole argument that is empty is no argument and a list
// is one argument per element, as AutoAgent's pasted text gives (its hook-manager test
// "should handle array values in interpolation": "Modified: {{filesModified}}" →
// "Modified: src/auth.ts test/auth.test.ts"); elsewhere a list is one word of its elements joined
// by spaces. Values stay data throughout.
func TestExpandCommandEmptyAndListArguments(t *testing.T) {
	t.Parallel()
	files := []any{"src/auth.ts", "test/auth.test.ts"}
	tests := []struct {
		tmpl string
		v    any
		want string
	}{
		{`printf '[%s]' {{v}} end`, "", "[end]"},
		{`printf '[%s]' {{v}} end`, "a b", "[a b][end]"},
		{`printf '[%s]' x{{v}} end`, "", "[x][end]"},
		{`printf '[%s]' "{{v}}" end`, "", "[][end]"},
		{`printf '[%s]' '{{v}}' end`, "", "[][end]"},
		{`echo "Modified: {{v}}"`, files, "Modified: src/auth.ts test/auth.test.ts\n"},
		{`printf '[%s]' {{v}}`, files, "[src/auth.ts][test/auth.test.ts]"},
		{`printf '[%s]' {{v}} "{{v}}" '{{v}}'`, files, "[src/auth.ts][test/auth.test.ts][src/auth.ts test/auth.test.ts][src/auth.ts test/auth.test.ts]"},
		{`printf '[%s]' x {{v}} y`, []any{}, "[x][y]"},
		{`printf '[%s]' {{v}}`, []any{"$(touch pwned)", "a b", "*", nil, 2.5, true}, "[$(touch pwned)][a b][*][2.5][true]"},
		{`printf '[%s]' {{v}}`, []string{"one", "two"}, "[one][two]"},
		{`printf '[%s]' "$(printf '<%s>' {{v}})"`, files, "[<src/auth.ts><test/auth.test.ts>]"},
		{`printf '[%s]' --f={{v}}`, files, "[--f=src/auth.ts test/auth.test.ts]"},
		{`for f in {{v}}; do printf '<%s>' "$f"; done`, files, "<src/auth.ts><test/auth.test.ts>"},
		{`for f in {{v}}; do printf '<%s>' "$f"; done; echo end`, []any{}, "end\n"},
		{`for f in x {{v}}; do printf '<%s>' "$f"; done`, "", "<x>"},
	}
	for _, tc := range tests {
		cmd, env := expand(t, tc.tmpl, payload{"v": tc.v})
		if got := runSh(t, cmd, env); got != tc.want {
			t.Errorf("%s with %v: got %q, want %q (command %q)", tc.tmpl, tc.v, got, tc.want, cmd)
		}
	}
}

// TestLookupReadsNamedMaps: a value inside the payload may be a map of a named type over
// map[string]any (a hooks.Payload a built-in put there); a dotted path reads into it as into any
// map, and into nothing else.
func TestLookupReadsNamedMaps(t *testing.T) {
	t.Parallel()
	p := payload{
		"named":   payload{"k": "v", "list": []any{payload{"x": 1}}},
		"plain":   map[string]any{"k": "w"},
		"strings": map[string]string{"k": "s"},
	}
	for _, tc := range []struct {
		path  string
		want  any
		found bool
	}{
		{"named.k", "v", true},
		{"named.list.0.x", 1, true},
		{"named.missing", nil, false},
		{"plain.k", "w", true},
		{"strings.k", nil, false}, // not a map of payload values
		{"named.k.deeper", nil, false},
	} {
		got, found := Lookup(p, tc.path)
		if found != tc.found || got != tc.want {
			t.Errorf("Lookup(%q) = %v, %v; want %v, %v", tc.path, got, found, tc.want, tc.found)
		}
	}
	if got := ExpandMessage("{{named.k}} {{named.list.0.x}}", p); got != "v 1" {
		t.Errorf("ExpandMessage = %q", got)
	}
}
