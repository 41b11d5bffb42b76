package gitcmd

import (
	"path"
	"strings"

	"github.com/autoagent/agent-hooks/internal/shellwalk"
)

// noVerify reads the command's arguments for the option that skips the repository's hooks: the
// last of --no-verify (or a prefix git accepts for it) and --verify wins; commit's -n also skips.
// Arguments after -- are paths.
func noVerify(spec gitCommand, valued options, args []shellwalk.Word) bool {
	skip := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Literal {
			continue
		}
		v := a.Value
		switch {
		case v == "--":
			return skip
		case strings.HasPrefix(v, "--"):
			name, _, hasValue := strings.Cut(v, "=")
			switch {
			case len(name) >= len("--no-veri") && strings.HasPrefix("--no-verify", name):
				skip = true
			case name == "--verify":
				skip = false
			case valued.long[name] && !hasValue:
				i++
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 'n' && spec.noVerifyN {
					skip = true
				}
				if strings.IndexByte(valued.short, c) >= 0 {
					if j == len(v)-1 {
						i++ // the value is the next word
					}
					break
				}
				if spec.noVerifyN && (c == 'u' || c == 'S') {
					break // commit's options with an optional value, attached
				}
			}
		}
	}
	return skip
}

// envMap is a command's environment, the last assignment of a name winning.
func envMap(env []shellwalk.Assign) map[string]shellwalk.Word {
	m := make(map[string]shellwalk.Word, len(env))
	for _, a := range env {
		m[a.Name] = a.Value
	}
	return m
}

// mentionsGit reports whether a command line whose program cannot be named has git's words in
// it: git itself, or the name of a command that commits or pushes.
func mentionsGit(ws []shellwalk.Word) bool {
	for _, w := range ws {
		for _, tok := range strings.FieldsFunc(w.Text(), func(r rune) bool {
			return !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) {
			if tok == "git" || strings.HasPrefix(tok, "git-") || gitWords()[tok] {
				return true
			}
		}
	}
	return false
}

// codeMentionsGit reports whether another language's code names git: "git" not inside another
// name and not .git.
func codeMentionsGit(code string) bool {
	for i := 0; ; {
		j := strings.Index(code[i:], "git")
		if j < 0 {
			return false
		}
		at := i + j
		end := at + 3
		before := at == 0 || !isNameByte(code[at-1]) && code[at-1] != '.'
		after := end == len(code) || !isNameByte(code[end]) || code[end] == '-'
		if before && after {
			return true
		}
		i = end
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// splitCmdline splits an alias's value into words as git does: at whitespace, with single and
// double quotes and backslashes.
func splitCmdline(s string) []shellwalk.Word {
	var out []shellwalk.Word
	var b strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && quote != '\'':
			i++
			b.WriteByte(s[i])
			in = true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, shellwalk.Lit(b.String()))
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, shellwalk.Lit(b.String()))
	}
	return out
}

// parseConfigParameters reads GIT_CONFIG_PARAMETERS: 'key'='value' pairs (or 'key=value'),
// single-quoted as git writes them, separated by spaces.
func parseConfigParameters(s string) ([][2]string, bool) {
	var out [][2]string
	sq := func(i int) (string, int, bool) {
		if i >= len(s) || s[i] != '\'' {
			return "", i, false
		}
		var b strings.Builder
		i++
		for i < len(s) {
			if s[i] == '\'' {
				// 'a'\''b': a quote inside
				if strings.HasPrefix(s[i:], `'\''`) {
					b.WriteByte('\'')
					i += 4
					continue
				}
				return b.String(), i + 1, true
			}
			b.WriteByte(s[i])
			i++
		}
		return "", i, false
	}
	for i := 0; i < len(s); {
		if s[i] == ' ' {
			i++
			continue
		}
		key, next, ok := sq(i)
		if !ok {
			return nil, false
		}
		i = next
		if i < len(s) && s[i] == '=' {
			value, next, ok := sq(i + 1)
			if !ok {
				return nil, false
			}
			out = append(out, [2]string{key, value})
			i = next
			continue
		}
		k, v, _ := strings.Cut(key, "=")
		out = append(out, [2]string{k, v})
	}
	return out, true
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// joinWords joins words with spaces, as a shell runs `"$*"`; literal is false when one is not.
func joinWords(ws []shellwalk.Word) (string, bool) {
	parts := make([]string, len(ws))
	literal := true
	for i, w := range ws {
		parts[i] = w.Text()
		literal = literal && w.Literal
	}
	return strings.Join(parts, " "), literal
}

func sourceText(ws []shellwalk.Word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.Source
	}
	return strings.Join(parts, " ")
}

func sources(ws []shellwalk.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Text()
	}
	return out
}

func joinDirs(dirs []string) string {
	dir := ""
	for _, d := range dirs {
		if path.IsAbs(d) || dir == "" {
			dir = d
		} else {
			dir = path.Join(dir, d)
		}
	}
	return dir
}
