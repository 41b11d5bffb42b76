// Package gitattr reads git attributes and applies what they say about storing a file: the
// attribute files are read and matched as git's attr.c does, and a file's content is turned into
// what git add stores (the "clean" conversion of convert.c: line endings, ident).
//
// Attribute files, lowest priority first: the built-in binary macro, the system file,
// core.attributesFile (default $XDG_CONFIG_HOME/git/attributes), .gitattributes from the top of
// the work tree down to the file's directory, then $GIT_DIR/info/attributes. Within a file a
// later line wins; within a line a later attribute wins; a macro set on a path sets its
// attributes where they are not yet decided.
package gitattr

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/autoagent/agent-hooks/gitops/internal/ignore"
)

// State is one attribute's value for a path.
type State struct {
	Set   bool   // "text"
	Unset bool   // "-text"
	Value string // "text=auto"; "" with neither Set nor Unset: unspecified ("!text" or absent)
}

// item is one attribute assignment of a line.
type item struct {
	name  string
	state State
}

// rule is one line: a pattern, or a macro definition ([attr]name).
type rule struct {
	pattern *ignore.Rule // nil for a macro
	macro   string
	items   []item
}

// File is the rules of one attributes file.
type File struct{ rules []rule }

// Builtin is git's built-in macro.
var Builtin = &File{rules: []rule{{macro: "binary", items: []item{
	{"diff", State{Unset: true}}, {"merge", State{Unset: true}}, {"text", State{Unset: true}},
}}}}

// ReadFile reads an attributes file whose patterns apply below domain; macros are allowed
// only outside the work tree's subdirectories, as in git. A missing file has no rules.
func ReadFile(path string, domain []string, macros bool) (*File, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read attributes %s: %w", path, err)
	}
	return Parse(b, domain, macros), nil
}

// Parse parses attribute lines; lines git ignores (negative patterns, macros where they are
// not allowed, malformed quoting) are skipped.
func Parse(b []byte, domain []string, macros bool) *File {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	f := &File{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimLeft(strings.TrimSuffix(sc.Text(), "\r"), " \t")
		if line == "" || line[0] == '#' {
			continue
		}
		var pat, rest string
		if line[0] == '"' {
			p, n, ok := unquoteC(line)
			if !ok {
				continue
			}
			pat, rest = p, line[n:]
		} else {
			i := strings.IndexAny(line, " \t")
			if i < 0 {
				i = len(line)
			}
			pat, rest = line[:i], line[i:]
		}
		var r rule
		if name, ok := strings.CutPrefix(pat, "[attr]"); ok {
			if !macros || name == "" {
				continue
			}
			r.macro = name
		} else {
			if strings.HasPrefix(pat, "!") {
				continue // "Negative patterns are ignored in git attributes"
			}
			if r.pattern = ignore.ParseRule(pat, domain); r.pattern == nil {
				continue
			}
		}
		if r.macro != "" && !validName(r.macro) {
			continue
		}
		valid := true
		for _, tok := range strings.Fields(rest) {
			// The name ends at '=' (git's parse_attr): "-text=x" unsets text, the value ignored.
			name, v, hasValue := strings.Cut(tok, "=")
			if name == "" {
				valid = false
				break
			}
			var it item
			switch name[0] {
			case '-':
				it = item{name[1:], State{Unset: true}}
			case '!':
				it = item{name: name[1:]}
			default:
				// An empty value ("eol=") means nothing to the attributes read here, as when
				// unspecified.
				it = item{name: name, state: State{Set: !hasValue, Value: v}}
			}
			if !validName(it.name) {
				valid = false // git ignores the whole line
				break
			}
			r.items = append(r.items, it)
		}
		if valid {
			f.rules = append(f.rules, r)
		}
	}
	return f
}

// unquoteC reads a C-quoted string at the start of s (as git quotes paths), returning it and the
// number of bytes read.
func unquoteC(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, true
		case '\\':
			i++
			if i >= len(s) {
				return "", 0, false
			}
			switch c = s[i]; c {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '"', '\\':
				b.WriteByte(c)
			case '0', '1', '2', '3':
				if i+2 >= len(s) {
					return "", 0, false
				}
				v, err := strconv.ParseUint(s[i:i+3], 8, 8)
				if err != nil {
					return "", 0, false
				}
				b.WriteByte(byte(v))
				i += 2
			default:
				return "", 0, false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// Stack is the attribute files that apply in a directory, lowest priority first, without
// $GIT_DIR/info/attributes (which the lookup puts on top).
type Stack []*File

// With returns the stack with f on top, sharing nothing appended later.
func (s Stack) With(f *File) Stack {
	if f == nil || len(f.rules) == 0 {
		return s
	}
	return append(s[:len(s):len(s)], f)
}

// Source is the attribute files of a repository outside its work tree.
type Source struct {
	Base Stack // built-in, system, global
	Info *File // $GIT_DIR/info/attributes
}

// Lookup returns the attributes of the file path (slash-separated, relative to the top) given
// the stack of its directory.
func (src *Source) Lookup(stack Stack, path string) map[string]State {
	files := make([]*File, 0, len(stack)+1)
	if src.Info != nil {
		files = append(files, src.Info)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		files = append(files, stack[i])
	}
	// Macro definitions: the one of highest priority wins.
	macros := map[string]*rule{}
	for _, f := range files {
		for i := len(f.rules) - 1; i >= 0; i-- {
			if r := &f.rules[i]; r.pattern == nil {
				if _, ok := macros[r.macro]; !ok {
					macros[r.macro] = r
				}
			}
		}
	}
	parts := strings.Split(path, "/")
	out := map[string]State{}
	decided := map[string]bool{}
	var fill func(items []item, depth int)
	fill = func(items []item, depth int) {
		for i := len(items) - 1; i >= 0; i-- {
			it := items[i]
			if decided[it.name] {
				continue
			}
			decided[it.name] = true
			out[it.name] = it.state
			if m, ok := macros[it.name]; ok && it.state.Set && depth < 16 {
				fill(m.items, depth+1)
			}
		}
	}
	for _, f := range files {
		for i := len(f.rules) - 1; i >= 0; i-- {
			r := &f.rules[i]
			if r.pattern != nil && r.pattern.Match(parts, false) == gitignore.Exclude {
				fill(r.items, 0)
			}
		}
	}
	return out
}

// validName is git's attr_name_valid: letters, digits, '-', '.', '_', not starting with '-'.
func validName(name string) bool {
	if name == "" || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '-' || c == '.' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
