package template

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostile are payload values that would run code, split, glob, end a quote, a here document or
// an arithmetic expression if any reached the shell as syntax.
var hostile = []string{
	`$(touch pwned)`, "`touch pwned`", `'; touch pwned; '`, `"; touch pwned; "`, "a\ntouch pwned",
	`\`, `*`, "a*", `a b  c`, `}'"$(touch pwned)"'{`, "", "-n", `a[$(touch pwned)]`,
	"EOF\ntouch pwned", "x\n", `${HOME}`, "x", "!", "'", `"`, "\\\n", "1",
}

// placements is where a {{v}} may stand in a command. want is the output for a value v, or nil
// when the placement must be refused when the config is loaded (CheckPlacements); bashOnly
// marks syntax that dash has not.
var placements = []struct {
	name, tmpl string
	want       func(v string) string
	bashOnly   bool
}{
	{name: "bare", tmpl: `printf '%s|' {{v}}`, want: bar},
	{name: "double quotes", tmpl: `printf '%s|' "x {{v}} y"`, want: func(v string) string { return "x " + v + " y|" }},
	{name: "single quotes", tmpl: `printf '%s|' 'x {{v}} y'`, want: func(v string) string { return "x " + v + " y|" }},
	{name: "adjacent quotes", tmpl: `printf '%s|' a{{v}}b"c{{v}}d"'e{{v}}f'`, want: func(v string) string { return "a" + v + "bc" + v + "de" + v + "f|" }},
	{name: "escaped quotes", tmpl: `printf '%s|' "\"{{v}}\""`, want: func(v string) string { return `"` + v + `"|` }},
	{name: "command substitution", tmpl: `printf '%s|' "$(printf '%s' {{v}})"`, want: trimmedBar},
	{name: "command substitution quoted", tmpl: `printf '%s|' "$(printf '%s' "{{v}}")"`, want: trimmedBar},
	{name: "nested command substitution", tmpl: `printf '%s|' "$(printf '%s' "$(printf '%s' {{v}})")"`, want: trimmedBar},
	{name: "backticks", tmpl: "printf '%s|' \"`printf '%s' {{v}}`\"", want: trimmedBar},
	{name: "backticks unquoted", tmpl: "x=`printf '%s' {{v}}`; printf '%s|' \"$x\"", want: trimmedBar},
	{name: "subshell", tmpl: `( printf '%s|' {{v}} )`, want: bar},
	{name: "brace group", tmpl: `{ printf '%s|' {{v}}; }`, want: bar},
	{name: "function argument", tmpl: `f() { printf '%s|' "$1"; }; f {{v}}`, want: bar},
	{name: "pipeline", tmpl: `printf '%s' {{v}} | cat; printf '|'`, want: bar},
	{name: "default, bare", tmpl: `printf '%s|' ${UNSET:-{{v}}}`, want: bar},
	{name: "default, double quotes", tmpl: `printf '%s|' "${UNSET:-{{v}}}"`, want: bar},
	{name: "default, nested double quotes", tmpl: `printf '%s|' "${UNSET:-"{{v}}"}"`, want: bar},
	{name: "alternative", tmpl: `printf '%s|' "${HOME:+{{v}}}"`, want: bar},
	{name: "prefix pattern", tmpl: `x=abcabc; printf '%s|' "${x#{{v}}}"`, want: func(v string) string { return strings.TrimPrefix("abcabc", v) + "|" }},
	{name: "prefix pattern, bare", tmpl: `x=abcabc; printf '%s|' ${x#{{v}}}`, want: func(v string) string { return strings.TrimPrefix("abcabc", v) + "|" }},
	{name: "suffix pattern", tmpl: `x=abcabc; printf '%s|' "${x%%{{v}}}"`, want: func(v string) string { return strings.TrimSuffix("abcabc", v) + "|" }},
	{name: "here document", tmpl: "cat <<EOF\n<{{v}}>\nEOF", want: func(v string) string { return "<" + v + ">\n" }},
	{name: "here document, tabs stripped", tmpl: "cat <<-EOF\n\t<{{v}}>\n\tEOF", want: func(v string) string { return "<" + v + ">\n" }},
	{name: "here document, quoted", tmpl: "cat <<'EOF'\n<{{v}}>\nEOF", want: func(string) string { return "<{{v}}>\n" }},
	{name: "here document, substitution", tmpl: "cat <<EOF\n$(printf '%s' {{v}})\nEOF", want: func(v string) string { return strings.TrimRight(v, "\n") + "\n" }},
	{name: "here document, default", tmpl: "cat <<EOF\n${UNSET:-{{v}}}\nEOF", want: func(v string) string { return v + "\n" }},
	{name: "case word", tmpl: `case {{v}} in x) printf 'x|';; *) printf 'other|';; esac`, want: func(v string) string { return map[bool]string{true: "x|", false: "other|"}[v == "x"] }},
	{name: "case pattern", tmpl: `case x in {{v}}) printf 'hit|';; *) printf 'miss|';; esac`, want: func(v string) string { return map[bool]string{true: "hit|", false: "miss|"}[v == "x"] }},
	{name: "assignment", tmpl: `x={{v}}; printf '%s|' "$x"`, want: bar},
	{name: "assignment before a command", tmpl: `X={{v}} sh -c 'printf "%s|" "$X"'`, want: bar},
	{name: "export with a value", tmpl: `export X={{v}}; sh -c 'printf "%s|" "$X"'`, want: bar},
	{name: "for list", tmpl: `for i in {{v}}; do printf '%s|' "$i"; done`, want: wordOrNone}, // as pasted text: no word when empty
	{name: "argument of a function", tmpl: `f() { printf '%s|' "$#"; }; f {{v}}`, want: func(v string) string { return map[bool]string{true: "0|", false: "1|"}[v == ""] }},
	{name: "sh -c positional argument", tmpl: `sh -c 'printf "%s|" "$1"' sh {{v}}`, want: bar},
	{name: "bash -c positional argument", tmpl: `bash -c 'printf "%s|" "$1"' bash "{{v}}"`, want: bar},
	{name: "test", tmpl: `[ {{v}} = x ] && printf 'eq|' || printf 'ne|'`, want: func(v string) string { return map[bool]string{true: "eq|", false: "ne|"}[v == "x"] }},
	{name: "test -n", tmpl: `if [ -n {{v}} ]; then printf 'set|'; else printf 'empty|'; fi`, want: func(v string) string { return map[bool]string{true: "set|", false: "empty|"}[v != ""] }},
	{name: "test -eq", tmpl: `[ {{v}} -eq 1 ] 2>/dev/null && printf 'one|' || printf 'no|'`, want: func(v string) string { return map[bool]string{true: "one|", false: "no|"}[v == "1"] }},
	{name: "comment", tmpl: "printf 'ok|' # {{v}}", want: func(string) string { return "ok|" }},
	{name: "ANSI-C quotes", tmpl: `printf '%s|' $'a{{v}}b'`, want: func(v string) string { return "a" + v + "b|" }, bashOnly: true},
	{name: "here string", tmpl: `cat <<< {{v}}`, want: func(v string) string { return v + "\n" }, bashOnly: true},
	{name: "array", tmpl: `a=({{v}}); printf '%s|' "${a[0]}"`, want: bar, bashOnly: true},
	{name: "process substitution", tmpl: `cat <(printf '%s' {{v}}); printf '|'`, want: bar, bashOnly: true},

	{name: "arithmetic", tmpl: `printf '%s|' $(( {{v}} + 1 ))`},
	{name: "arithmetic in double quotes", tmpl: `printf '%s|' "$(({{v}}))"`},
	{name: "arithmetic in a here document", tmpl: "cat <<EOF\n$(( {{v}} ))\nEOF"},
	{name: "arithmetic command", tmpl: `(( {{v}} > 1 )) && echo yes`},
	{name: "let", tmpl: `let x={{v}}+1`},
	{name: "for (( ))", tmpl: `for (( i = 0; i < {{v}}; i++ )); do :; done`},
	{name: "substring offset", tmpl: `x=abc; printf '%s|' "${x:{{v}}}"`},
	{name: "array index", tmpl: `a=(1 2); printf '%s|' "${a[{{v}}]}"`},
	{name: "array index assignment", tmpl: `a[{{v}}]=1`},
	{name: "[[ == ]]", tmpl: `[[ {{v}} == x ]] && echo yes`},
	{name: "[[ -eq ]]", tmpl: `[[ "{{v}}" -eq 1 ]] && echo yes`},
	{name: "eval in double quotes", tmpl: `eval "printf '%s|' {{v}}"`},
	{name: "eval arguments", tmpl: `eval printf "'%s|'" {{v}}`},
	{name: "eval of a substitution", tmpl: `eval "$(printf 'echo %s' {{v}})"`},
	{name: "eval inside a substitution", tmpl: `printf '%s|' "$(eval {{v}})"`},
	{name: "sh -c double quotes", tmpl: `sh -c "printf '%s|' {{v}}"`},
	{name: "sh -c single quotes", tmpl: `sh -c 'printf "%s|" {{v}}'`},
	{name: "sh -c with positional", tmpl: `sh -c 'printf "%s|" {{v}}' sh x`},
	{name: "bash -c", tmpl: `bash -c 'printf "%s|" "{{v}}"'`},
	{name: "/bin/sh -ec", tmpl: `/bin/sh -ec 'echo {{v}}'`},
	{name: "sh -c substitution", tmpl: `sh -c "$(printf '%s' {{v}})"`},
	{name: "env sh -c", tmpl: `env FOO=1 sh -c 'echo {{v}}'`},
	{name: "timeout bash -c", tmpl: `timeout 5 bash -c 'echo {{v}}'`},
	{name: "find -exec sh -c", tmpl: `find . -maxdepth 0 -exec sh -c 'echo {{v}}' \;`},
	{name: "xargs sh -c", tmpl: `xargs sh -c 'echo {{v}}' </dev/null`},
	{name: "$SHELL -c", tmpl: `"$SHELL" -c 'echo {{v}}'`},
	{name: "busybox sh -c", tmpl: `busybox sh -c 'echo {{v}}'`},
	{name: "sh -c in a substitution", tmpl: `printf '%s|' "$(sh -c 'echo {{v}}')"`},
	{name: "here document to sh", tmpl: "sh <<EOF\necho {{v}}\nEOF"},
	{name: "here string to bash", tmpl: `bash <<< {{v}}`},
	{name: "piped into sh", tmpl: `printf '%s\n' {{v}} | sh`},
	{name: "piped into bash -s", tmpl: `echo {{v}} | tr a b | bash -s`},
	{name: "script from a file", tmpl: `sh < {{v}}`},
	{name: "trap", tmpl: `trap 'echo {{v}}' EXIT`},
	{name: "alias", tmpl: `alias x='echo {{v}}'`},
	{name: "PS4", tmpl: `PS4={{v}}; set -x; :`},
	{name: "su -c", tmpl: `su -c 'echo {{v}}' nobody`},
	{name: "ssh remote command", tmpl: `ssh -p 22 host 'echo {{v}}'`},
	{name: "command name", tmpl: `{{v}} --version`},
	{name: "command name from a substitution", tmpl: `$(printf '%s' {{v}}) --version`},
	{name: "exec", tmpl: `exec {{v}}`},
	{name: "env wrapper", tmpl: `env X=1 {{v}}`},
	{name: "sudo -u wrapper", tmpl: `sudo -u nobody {{v}}`},
	{name: "dot", tmpl: `. {{v}}`},
	{name: "sh script", tmpl: `sh {{v}}`},
	{name: "read", tmpl: `read {{v}} </dev/null`},
	{name: "printf -v", tmpl: `printf -v {{v}} x`},
	{name: "export name", tmpl: `export {{v}}`},
	{name: "declare name", tmpl: `declare {{v}}=1`},
	{name: "unset", tmpl: `unset {{v}}`},
	{name: "test -v", tmpl: `[ -v {{v}} ]`},
	{name: "function name", tmpl: `f{{v}}() { :; }`},
	{name: "loop variable", tmpl: `for {{v}} in a; do :; done`},
	{name: "parameter name", tmpl: `printf '%s|' ${{v}}`},
	{name: "does not parse", tmpl: `printf '%s|' "{{v}}`},
}

func bar(v string) string { return v + "|" }
func wordOrNone(v string) string {
	if v == "" {
		return ""
	}
	return bar(v)
}
func trimmedBar(v string) string { return strings.TrimRight(v, "\n") + "|" } // $(…) drops trailing newlines

// TestPlacements: wherever a placeholder stands, it is refused when the config is loaded, or the
// value arrives verbatim and runs nothing, under dash and bash as sh (macOS) — and bash for bash
// syntax. Each shell runs the expanded command once per hostile value, in a subshell of its own
// (one process per placement and shell, to keep the test fast), with the value in the variable the
// command refers to.
func TestPlacements(t *testing.T) {
	t.Parallel()
	var shells [][]string
	for _, sh := range [][]string{{"dash"}, {"bash", "--posix"}, {"bash"}} {
		if testing.Short() && sh[0] != "dash" {
			continue
		}
		if _, err := exec.LookPath(sh[0]); err == nil {
			shells = append(shells, sh)
		}
	}
	if len(shells) == 0 {
		t.Skip("no dash or bash")
	}
	for _, pl := range placements {
		t.Run(pl.name, func(t *testing.T) {
			t.Parallel()
			perr := CheckPlacements(pl.tmpl)
			if pl.want == nil {
				if perr == nil {
					t.Fatalf("%q: accepted, want refused", pl.tmpl)
				}
				if perr.Key != "v" || pl.tmpl[perr.Offset:perr.Offset+5] != "{{v}}" {
					t.Errorf("%q: error points at %d: %v", pl.tmpl, perr.Offset, perr)
				}
				if _, err := ExpandCommand(pl.tmpl, payload{"v": "x"}); err == nil {
					t.Errorf("%q: refused but expands", pl.tmpl)
				}
				return
			}
			if perr != nil {
				t.Fatalf("%q: refused: %v", pl.tmpl, perr)
			}
			command, env := expand(t, pl.tmpl, payload{"v": "x"})
			if len(env) > 1 || len(env) == 1 && !strings.HasPrefix(env[0], "AGENT_HOOKS_ARG_1=") { // none: not expanded
				t.Fatalf("env %q", env)
			}
			for _, sh := range shells {
				if name := strings.Join(sh, " "); pl.bashOnly && name == "dash" || !pl.bashOnly && name == "bash" {
					continue
				}
				dir := t.TempDir()
				var script strings.Builder
				env := []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "D=" + dir}
				for i, v := range hostile {
					if c, _ := expand(t, pl.tmpl, payload{"v": v}); c != command {
						t.Fatalf("the command depends on the value: %q", c)
					}
					env = append(env, fmt.Sprintf("V%d=%s", i, v))
					must(t, os.Mkdir(filepath.Join(dir, fmt.Sprintf("w%d", i)), 0o700))
					fmt.Fprintf(&script, "(cd \"$D/w%[1]d\" || exit 99; AGENT_HOOKS_ARG_1=$V%[1]d; export AGENT_HOOKS_ARG_1\n%[2]s\n) >\"$D/o%[1]d\" 2>/dev/null </dev/null\n", i, command)
				}
				cmd := exec.Command(sh[0], append(sh[1:], "-c", script.String())...)
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						t.Fatal(err)
					}
					_ = out // a command may fail for a value (test -eq): its output is what counts
				}
				for i, v := range hostile {
					if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("w%d", i), "pwned")); err == nil {
						t.Errorf("%s: %q with %q ran code", sh, pl.tmpl, v)
					}
					out, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("o%d", i)))
					must(t, err)
					if got, want := string(out), pl.want(v); got != want {
						t.Errorf("%s: %q with %q: got %q, want %q", sh, pl.tmpl, v, got, want)
					}
				}
			}
		})
	}
}
