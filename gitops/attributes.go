package gitops

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Attributes are read and matched as git's attr.c does, for the attributes that change what is
// stored when a file is added (see convert.go). Lowest priority first: the built-in binary macro,
// the system file, core.attributesFile (default $XDG_CONFIG_HOME/git/attributes), .gitattributes
// from the top of the work tree down to the file's directory, then $GIT_DIR/info/attributes.
// Within a file a later line wins; within a line a later attribute wins; a macro set on a path
// sets its attributes where they are not yet decided.

// attrState is one attribute's value for a path.
type attrState struct {
	set   bool   // "text"
	unset bool   // "-text"
	value string // "text=auto"; "" with neither set nor unset: unspecified ("!text" or absent)
}

// attrItem is one attribute assignment of a line.
type attrItem struct {
	name  string
	state attrState
}

// attrRule is one line: a pattern, or a macro definition ([attr]name).
type attrRule struct {
	pattern *ignoreRule // nil for a macro
	macro   string
	items   []attrItem
}

// attrFile is the rules of one attributes file.
type attrFile struct{ rules []attrRule }

// builtinAttrs is git's built-in macro.
var builtinAttrs = &attrFile{rules: []attrRule{{macro: "binary", items: []attrItem{
	{"diff", attrState{unset: true}}, {"merge", attrState{unset: true}}, {"text", attrState{unset: true}},
}}}}

// readAttrFile reads an attributes file whose patterns apply below domain; macros are allowed
// only outside the work tree's subdirectories, as in git. A missing file has no rules.
func readAttrFile(path string, domain []string, macros bool) (*attrFile, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read attributes %s: %w", path, err)
	}
	return parseAttrs(b, domain, macros), nil
}

// parseAttrs parses attribute lines; lines git ignores (negative patterns, macros where they are
// not allowed, malformed quoting) are skipped.
func parseAttrs(b []byte, domain []string, macros bool) *attrFile {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	f := &attrFile{}
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
		var r attrRule
		if name, ok := strings.CutPrefix(pat, "[attr]"); ok {
			if !macros || name == "" {
				continue
			}
			r.macro = name
		} else {
			if strings.HasPrefix(pat, "!") {
				continue // "Negative patterns are ignored in git attributes"
			}
			if r.pattern = parseIgnoreRule(pat, domain); r.pattern == nil {
				continue
			}
		}
		if r.macro != "" && !validAttrName(r.macro) {
			continue
		}
		valid := true
		for _, tok := range strings.Fields(rest) {
			var it attrItem
			switch tok[0] {
			case '-':
				it = attrItem{tok[1:], attrState{unset: true}}
			case '!':
				it = attrItem{name: tok[1:]}
			default:
				// An empty value ("eol=") means nothing to the attributes read here, as when
				// unspecified.
				name, v, hasValue := strings.Cut(tok, "=")
				it = attrItem{name: name, state: attrState{set: !hasValue, value: v}}
			}
			if !validAttrName(it.name) {
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

// attrStack is the attribute files that apply in a directory, lowest priority first, without
// $GIT_DIR/info/attributes (which the lookup puts on top).
type attrStack []*attrFile

// with returns the stack with f on top, sharing nothing appended later.
func (s attrStack) with(f *attrFile) attrStack {
	if f == nil || len(f.rules) == 0 {
		return s
	}
	return append(s[:len(s):len(s)], f)
}

// attrSource is the attribute files of a repository outside its work tree.
type attrSource struct {
	base attrStack // built-in, system, global
	info *attrFile // $GIT_DIR/info/attributes
}

// loadAttrSource reads the system, global and info attributes files.
func (r *Repo) loadAttrSource() (*attrSource, error) {
	src := &attrSource{base: attrStack{builtinAttrs}}
	var files []string
	if r.env.getenv("GIT_ATTR_NOSYSTEM") == "" {
		files = append(files, "/etc/gitattributes")
	}
	global := r.cfg.get("core", "", "attributesfile")
	if global != "" {
		global = r.env.expandHome(global)
	} else if x := r.env.xdgConfigHome(); x != "" {
		global = filepath.Join(x, "git", "attributes")
	}
	if global != "" {
		files = append(files, global)
	}
	for _, p := range files {
		f, err := readAttrFile(p, nil, true)
		if err != nil {
			return nil, err
		}
		src.base = src.base.with(f)
	}
	info, err := readAttrFile(filepath.Join(r.CommonDir, "info", "attributes"), nil, true)
	if err != nil {
		return nil, err
	}
	src.info = info
	return src, nil
}

// readDirAttrs reads the .gitattributes of dir (slash-separated, "" for the top): the work tree's
// when inWorkTree (it is a regular file there), else the blob of fallback, the index entry git
// reads instead (nil: none).
func (r *Repo) readDirAttrs(dir string, inWorkTree bool, fallback *entry) (*attrFile, error) {
	var domain []string
	if dir != "" {
		domain = strings.Split(dir, "/")
	}
	if inWorkTree {
		return readAttrFile(filepath.Join(r.Root, filepath.FromSlash(dir), ".gitattributes"), domain, dir == "")
	}
	if fallback == nil || fallback.mode&0o170000 != 0o100000 {
		return nil, nil
	}
	b, err := r.readBlob(fallback.hash)
	if err != nil {
		return nil, err
	}
	return parseAttrs(b, domain, dir == ""), nil
}

// lookup returns the attributes of the file path (slash-separated, relative to the top) given
// the stack of its directory.
func (src *attrSource) lookup(stack attrStack, path string) map[string]attrState {
	files := make([]*attrFile, 0, len(stack)+1)
	if src.info != nil {
		files = append(files, src.info)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		files = append(files, stack[i])
	}
	// Macro definitions: the one of highest priority wins.
	macros := map[string]*attrRule{}
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
	out := map[string]attrState{}
	decided := map[string]bool{}
	var fill func(items []attrItem, depth int)
	fill = func(items []attrItem, depth int) {
		for i := len(items) - 1; i >= 0; i-- {
			it := items[i]
			if decided[it.name] {
				continue
			}
			decided[it.name] = true
			out[it.name] = it.state
			if m, ok := macros[it.name]; ok && it.state.set && depth < 16 {
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

// validAttrName is git's attr_name_valid: letters, digits, '-', '.', '_', not starting with '-'.
func validAttrName(name string) bool {
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
