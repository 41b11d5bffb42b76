package rules

import (
	"errors"
	"fmt"
	"math/bits"
	"path"
	"regexp"
	"strings"

	"github.com/autoagent/agent-hooks/toolcall"
)

// A commandPattern is a rule's "command": a program, the short flags and long options it must be
// given, and globs over its other arguments, matched against every simple command a shell call
// runs (toolcall.Command, after wrappers and nested scripts are unwrapped by the shell walker).
//
//	"rm -rf"            rm with the flags r and f, however written (-rf, -fr, -r -f, --recursive --force)
//	"git push --force"  git with an argument push and the option --force
//	"curl * | sh"       not a pattern: one program per pattern
//
// The program matches by base name (/bin/rm is rm), as a glob. Flags and options may come in any
// order, among other arguments; the further words are globs that must match the remaining
// arguments in order (not necessarily adjacent). A word after "--" is never a flag.
type commandPattern struct {
	source  string
	program *glob
	short   flagSet      // flags that must be present (normalized through the program's synonyms)
	long    []longOption // long options that must be present, each name once
	args    []*glob      // globs over the other arguments, in order
}

// longOption is a long option a pattern requires, with a glob over its value (nil: any).
type longOption struct {
	name  string
	value *glob
}

// flagSet is a set of short flags (bytes): a pattern names a few, and a map for them was most of
// what a rule allocated.
type flagSet [4]uint64

func (s *flagSet) add(f byte) { s[f>>6] |= 1 << (f & 63) }
func (s *flagSet) missingFrom(o *flagSet) (n int) {
	for i := range s {
		n += bits.OnesCount64(s[i] &^ o[i])
	}
	return n
}

// parseCommandPattern parses a "command" pattern.
func parseCommandPattern(src string) (*commandPattern, error) {
	words, err := splitWords(src)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, errors.New("empty command pattern")
	}
	if strings.HasPrefix(words[0], "-") {
		return nil, fmt.Errorf("command pattern %q: the first word must be a program, not a flag", src)
	}
	for _, w := range words {
		if strings.ContainsAny(w, "|&;<>()`$") {
			return nil, fmt.Errorf("command pattern %q: one simple command per pattern (no pipes, lists, redirections or expansions: %q); write one rule per program", src, w)
		}
	}
	p := &commandPattern{source: src}
	prog := words[0]
	if strings.Contains(prog, "/") {
		prog = path.Base(prog)
	}
	if p.program, err = compileGlob(prog); err != nil {
		return nil, fmt.Errorf("command pattern %q: %v", src, err)
	}
	syn := synonymsOf(prog)
	endOfFlags := false
	for _, w := range words[1:] {
		switch {
		case endOfFlags || w == "-" || !strings.HasPrefix(w, "-"):
			g, err := compileGlob(w)
			if err != nil {
				return nil, fmt.Errorf("command pattern %q: %v", src, err)
			}
			p.args = append(p.args, g)
		case w == "--":
			endOfFlags = true
		case strings.HasPrefix(w, "--"):
			name, value, hasValue := strings.Cut(w[2:], "=")
			if short, ok := syn.long[name]; ok && !hasValue {
				p.short.add(short)
				continue
			}
			var g *glob
			if hasValue {
				if g, err = compileGlob(value); err != nil {
					return nil, fmt.Errorf("command pattern %q: %v", src, err)
				}
			}
			p.requireLong(name, g)
		default:
			for i := 1; i < len(w); i++ {
				p.short.add(syn.short(w[i]))
			}
		}
	}
	return p, nil
}

// requireLong adds a long option the pattern requires; a name given twice keeps its last value.
func (p *commandPattern) requireLong(name string, value *glob) {
	for i := range p.long {
		if p.long[i].name == name {
			p.long[i].value = value
			return
		}
	}
	p.long = append(p.long, longOption{name, value})
}

// match reports whether the command matches the pattern: yes, no, or "could" when the command
// has words agent-hooks cannot read (a program or arguments named by an expansion) that could make
// it match. why says what could not be read.
func (p *commandPattern) match(c toolcall.Command) (m matchResult, why string) {
	if c.Unread != "" {
		return couldMatch, "that part (" + c.Unread + ")"
	}
	if len(c.Argv) == 0 {
		return noMatch, ""
	}
	could := false
	var unread []string
	if c.IsDynamic(0) {
		could = true
		unread = append(unread, "the program "+c.Argv[0])
	} else if !p.program.match(path.Base(c.Argv[0])) {
		return noMatch, ""
	}
	prog := path.Base(c.Argv[0])
	if c.IsDynamic(0) {
		prog = p.program.literal
	}
	syn := synonymsOf(prog)

	var short flagSet
	var long [][2]string // the command's long options as it gives them: name, value (noValue: none)
	var args []string
	wild := 0 // dynamic words: each could stand for any one missing flag, option or argument
	unbounded := false
	endOfFlags := false
	for i := 1; i < len(c.Argv); i++ {
		w := c.Argv[i]
		if c.IsDynamic(i) {
			wild++
			if c.IsSplit(i) {
				unbounded = true
			}
			unread = append(unread, w)
			continue
		}
		switch {
		case endOfFlags || w == "-" || !strings.HasPrefix(w, "-"):
			args = append(args, w)
		case w == "--":
			endOfFlags = true
		case strings.HasPrefix(w, "--"):
			name, value, hasValue := strings.Cut(w[2:], "=")
			if s, ok := syn.long[name]; ok {
				short.add(s)
			}
			if !hasValue {
				value = noValue
			}
			long = append(long, [2]string{name, value})
		default:
			for j := 1; j < len(w); j++ {
				short.add(syn.short(w[j]))
			}
		}
	}
	if c.MoreArgs {
		unbounded = true
		unread = append(unread, "arguments read from "+c.Via)
	}
	missing := p.short.missingFrom(&short)
	for _, want := range p.long {
		ok := false
		for _, given := range long {
			if name, v := given[0], given[1]; name == want.name && (want.value == nil || v != noValue && want.value.match(v)) {
				ok = true
				break
			}
		}
		if !ok {
			missing++
		}
	}
	// The positional globs, in order, as a subsequence of the arguments.
	k := 0
	for _, a := range args {
		if k < len(p.args) && p.args[k].match(a) {
			k++
		}
	}
	missing += len(p.args) - k
	switch {
	case missing == 0 && !could:
		return matched, ""
	case missing == 0 || unbounded || missing <= wild:
		return couldMatch, strings.Join(unread, ", ")
	}
	return noMatch, ""
}

// noValue stands for a long option given without "=value".
const noValue = "\x00"

type matchResult int

const (
	noMatch matchResult = iota
	matched
	couldMatch
)

// synonyms are a program's spellings of the same flag: long options that are one of its short
// flags, and short flags that are another (rm -R is rm -r), so that "rm -rf" is not walked around
// by "rm --recursive --force" or "rm -Rf".
type synonyms struct {
	long  map[string]byte
	alias map[byte]byte
}

func (s synonyms) short(f byte) byte {
	if a, ok := s.alias[f]; ok {
		return a
	}
	return f
}

// knownSynonyms holds the programs whose flags users gate on most (GNU and BSD spellings).
var knownSynonyms = map[string]synonyms{
	"rm":    {long: map[string]byte{"recursive": 'r', "force": 'f', "dir": 'd', "verbose": 'v', "interactive": 'i'}, alias: map[byte]byte{'R': 'r'}},
	"cp":    {long: map[string]byte{"recursive": 'r', "force": 'f', "archive": 'a', "link": 'l', "symbolic-link": 's'}, alias: map[byte]byte{'R': 'r'}},
	"mv":    {long: map[string]byte{"force": 'f', "no-clobber": 'n', "interactive": 'i'}},
	"chmod": {long: map[string]byte{"recursive": 'R'}},
	"chown": {long: map[string]byte{"recursive": 'R'}},
	"chgrp": {long: map[string]byte{"recursive": 'R'}},
	"git":   {long: map[string]byte{"force": 'f'}}, // push, clean, add, checkout, branch: -f is --force
	"curl":  {long: map[string]byte{"output": 'o', "remote-name": 'O', "insecure": 'k', "location": 'L'}},
	"sed":   {long: map[string]byte{"in-place": 'i'}},
	"find":  {},
	"shred": {long: map[string]byte{"remove": 'u', "force": 'f'}},
}

func synonymsOf(program string) synonyms { return knownSynonyms[program] }

// glob is a shell-style pattern over a whole word: * is any run of characters (slashes too), ? one
// character, [...] a class.
type glob struct {
	literal string // the pattern as written
	plain   bool   // no metacharacters: compare
	re      *regexp.Regexp
}

func compileGlob(p string) (*glob, error) {
	g := &glob{literal: p}
	if !strings.ContainsAny(p, "*?[") {
		g.plain = true
		return g, nil
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				return nil, fmt.Errorf("glob %q: [ without ]", p)
			}
			class := p[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("glob %q: %v", p, err)
	}
	g.re = re
	return g, nil
}

func (g *glob) match(s string) bool {
	if g.plain {
		return g.literal == s
	}
	return g.re.MatchString(s)
}

// splitWords splits a pattern into words as a shell would, quotes removed (no expansions).
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("command pattern %q: unterminated %c quote", s, c)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
