package hooks

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// Template placeholders are {{key}} or {{a.b.c}} (spaces inside the braces are allowed).

// Lookup finds a dotted path ("a.b", "files.0") in the payload.
func Lookup(p Payload, path string) (any, bool) {
	var cur any = map[string]any(p)
	for _, part := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[part]
			if !ok {
				return nil, false
			}
			cur = next
		case Payload:
			next, ok := v[part]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// FormatValue renders a payload value as text: strings as they are, numbers and booleans as
// written in JSON, null as "", objects and arrays as compact JSON.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// ExpandMessage replaces placeholders with payload values verbatim: for commit messages, comments
// and notifications, never for shell commands. Unknown keys stay as written.
func ExpandMessage(tmpl string, p Payload) string {
	var b strings.Builder
	for {
		start, end, key, ok := nextPlaceholder(tmpl, 0)
		if !ok {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:start])
		if v, found := Lookup(p, key); found {
			b.WriteString(FormatValue(v))
		} else {
			b.WriteString(tmpl[start:end])
		}
		tmpl = tmpl[end:]
	}
}

// nextPlaceholder finds the first well-formed {{key}} at or after from.
func nextPlaceholder(s string, from int) (start, end int, key string, ok bool) {
	for i := from; i+1 < len(s); i++ {
		if s[i] != '{' || s[i+1] != '{' {
			continue
		}
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			return 0, 0, "", false
		}
		k := strings.TrimSpace(s[i+2 : i+2+j])
		if validKey(k) {
			return i, i + 2 + j + 2, k, true
		}
	}
	return 0, 0, "", false
}

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '.' || r == '-'):
		default:
			return false
		}
	}
	return !strings.HasSuffix(k, ".") && !strings.Contains(k, "..")
}

// Limits of the template values handed over in the environment: a value over maxEnvArg, or one
// that would take the values' total over maxEnvArgs, goes through a file instead. Linux refuses to
// start a process with one variable over 128 KiB, and every system bounds the whole environment.
const (
	maxEnvArg  = 32 << 10
	maxEnvArgs = 64 << 10
)

// Expansion is a command template bound to payload values (see ExpandCommand).
type Expansion struct {
	// Command is the shell text to run with sh -c: every placeholder is a quoted reference to a
	// variable holding its value.
	Command string
	env     []string  // AGENT_HOOKS_ARG_n=value, for the values the environment carries
	files   []argFile // the values it cannot carry
}

// argFile is a template value passed through a file: Command reads it into the variable name.
type argFile struct{ name, value string }

// ExpandCommand binds the placeholders of a shell command to payload values. No payload value
// ever becomes shell syntax: each placeholder is replaced by a quoted reference to a variable
// ("${AGENT_HOOKS_ARG_1}") that holds the value, and the shell substitutes it as data, whatever
// quotes, $(...), backticks or newlines it holds. The quoting follows the placeholder's position
// in the command (bare, inside '…', inside "…", in a here document), so the value lands as one
// word exactly as written. Inside comments and quoted here documents nothing is expanded; unknown
// keys stay as written.
//
// A value the environment cannot carry (over maxEnvArg, or past maxEnvArgs in all) is passed
// through a file: Command then starts by reading it into its variable, keeping every byte,
// trailing newlines included. A value with a NUL byte cannot be a shell word at all: that is an
// *InputError, and the hook must not run.
func ExpandCommand(tmpl string, p Payload) (Expansion, error) {
	if !strings.Contains(tmpl, "{{") {
		return Expansion{Command: tmpl}, nil
	}
	var (
		x     Expansion
		b     strings.Builder
		vars  = map[string]string{} // key -> variable name
		sc    = newShellScanner(tmpl)
		last  = 0
		index = 0
		inEnv = 0 // bytes of values in the environment
	)
	for {
		start, end, key, ok := nextPlaceholder(tmpl, index)
		if !ok {
			break
		}
		ctx := sc.contextAt(start)
		index = end
		v, found := Lookup(p, key)
		if !found || ctx == ctxInert {
			continue
		}
		name, seen := vars[key]
		if !seen {
			name = "AGENT_HOOKS_ARG_" + strconv.Itoa(len(vars)+1)
			vars[key] = name
			value := FormatValue(v)
			switch {
			case strings.IndexByte(value, 0) >= 0:
				return Expansion{}, &InputError{Err: fmt.Errorf("payload value {{%s}} contains a NUL byte, which no shell word can hold (the JSON payload on stdin carries it as \\u0000)", key)}
			case len(value) > maxEnvArg || inEnv+len(value) > maxEnvArgs:
				x.files = append(x.files, argFile{name: name, value: value})
			default:
				inEnv += len(value)
				x.env = append(x.env, name+"="+value)
			}
		}
		b.WriteString(tmpl[last:start])
		switch ctx {
		case ctxDouble, ctxHeredoc:
			b.WriteString("${" + name + "}")
		case ctxSingle:
			b.WriteString(`'"${` + name + `}"'`)
		default:
			b.WriteString(`"${` + name + `}"`)
		}
		last = end
	}
	b.WriteString(tmpl[last:])
	x.Command = readArgFiles(x.files) + b.String()
	return x, nil
}

// readArgFiles is the start of a command that reads each value passed through a file into its
// variable. $(…) drops trailing newlines, so the file is read with a final "." that is then
// removed: the variable holds the file's bytes exactly. It ends with "; " rather than a newline,
// so that the command's own line numbers stay as written.
func readArgFiles(files []argFile) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, `%[1]s=$(cat < "${%[1]s_FILE}" && echo .) || exit 126; %[1]s=${%[1]s%%.}; `, f.name)
	}
	return b.String()
}

// Bind writes the values that go through files to private temporary files and returns the
// environment that binds every placeholder of Command; cleanup removes the files once the hook
// is done.
func (x Expansion) Bind() (env []string, cleanup func(), err error) {
	env = x.env
	if len(x.files) == 0 {
		return env, func() {}, nil
	}
	env = append(make([]string, 0, len(x.env)+len(x.files)), x.env...)
	var cleanups []func()
	cleanup = func() {
		for _, c := range cleanups {
			c()
		}
	}
	for _, f := range x.files {
		path, c, err := atomicfile.WriteTemp("", "agent-hooks-value-*", []byte(f.value))
		if err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("template value file: %w", err)
		}
		cleanups = append(cleanups, c)
		env = append(env, f.name+"_FILE="+path)
	}
	return env, cleanup, nil
}

// shell quoting contexts of a position in a command.
type shellContext int

const (
	ctxBare    shellContext = iota // unquoted (also inside $(…), `…`, ${…})
	ctxSingle                      // inside '…'
	ctxDouble                      // inside "…"
	ctxHeredoc                     // body of a here document with an unquoted delimiter
	ctxInert                       // comment or quoted here document: the shell expands nothing
)

// shellScanner walks a command once, left to right, and answers the context of increasing
// positions. It understands the quoting rules of POSIX sh well enough to place a parameter
// expansion; anything it misjudges can only yield a wrongly quoted value, never executed text,
// because values are referenced, not inserted.
type shellScanner struct {
	s        string
	pos      int
	stack    []frame
	wordInit bool     // at the start of a word (a '#' there begins a comment)
	pending  []string // here-document delimiters waiting for the end of the line (prefix ' = quoted)
	heredoc  *heredocState
}

type frame struct {
	kind  byte // 'b' bare/subshell, '\'' single, '"' double, '`' backtick, '{' brace, '#' comment
	depth int  // open parentheses inside a $( … ) frame
}

type heredocState struct {
	delim   string
	quoted  bool
	strip   bool
	midLine bool
}

func newShellScanner(s string) *shellScanner {
	return &shellScanner{s: s, stack: []frame{{kind: 'b'}}, wordInit: true}
}

func (sc *shellScanner) top() *frame { return &sc.stack[len(sc.stack)-1] }

func (sc *shellScanner) push(k byte) { sc.stack = append(sc.stack, frame{kind: k}) }

func (sc *shellScanner) pop() {
	if len(sc.stack) > 1 {
		sc.stack = sc.stack[:len(sc.stack)-1]
	}
}

// contextAt advances the scanner to pos (which must not decrease) and reports its context.
func (sc *shellScanner) contextAt(pos int) shellContext {
	for sc.pos < pos {
		sc.step()
	}
	if sc.heredoc != nil {
		if sc.heredoc.quoted {
			return ctxInert
		}
		return ctxHeredoc
	}
	switch sc.top().kind {
	case '\'':
		return ctxSingle
	case '"':
		return ctxDouble
	case '#':
		return ctxInert
	case '{':
		if sc.insideDouble() {
			return ctxDouble
		}
	}
	return ctxBare
}

func (sc *shellScanner) insideDouble() bool {
	for i := len(sc.stack) - 1; i >= 0; i-- {
		switch sc.stack[i].kind {
		case '"':
			return true
		case 'b', '`':
			if i > 0 {
				return false
			}
		}
	}
	return false
}

func (sc *shellScanner) step() {
	s, i := sc.s, sc.pos
	c := s[i]
	if sc.heredoc != nil {
		sc.stepHeredoc()
		return
	}
	f := sc.top()
	switch f.kind {
	case '#':
		if c == '\n' {
			sc.pop()
			sc.endLine()
		}
		sc.pos++
		return
	case '\'':
		if c == '\'' {
			sc.pop()
		}
		sc.pos++
		return
	case '"':
		switch {
		case c == '\\' && i+1 < len(s):
			sc.pos += 2
		case c == '"':
			sc.pop()
			sc.pos++
		case c == '`':
			sc.push('`')
			sc.wordInit = true
			sc.pos++
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			sc.push('b')
			sc.wordInit = true
			sc.pos += 2
		case c == '$' && i+1 < len(s) && s[i+1] == '{':
			sc.push('{')
			sc.pos += 2
		default:
			sc.pos++
		}
		return
	}
	// bare-like frames: 'b' (top level or $( … )), '`', '{'
	wordInit := sc.wordInit
	sc.wordInit = false
	switch {
	case c == '\\' && i+1 < len(s):
		sc.pos += 2
		return
	case c == '\'':
		sc.push('\'')
	case c == '"':
		sc.push('"')
	case c == '`':
		if f.kind == '`' {
			sc.pop()
		} else {
			sc.push('`')
			sc.wordInit = true
		}
	case c == '$' && i+1 < len(s) && s[i+1] == '(':
		sc.push('b')
		sc.wordInit = true
		sc.pos += 2
		return
	case c == '$' && i+1 < len(s) && s[i+1] == '{':
		sc.push('{')
		sc.pos += 2
		return
	case c == '(' && f.kind == 'b':
		f.depth++
		sc.wordInit = true
	case c == ')' && f.kind == 'b' && len(sc.stack) > 1:
		if f.depth == 0 {
			sc.pop()
		} else {
			f.depth--
		}
	case c == '}' && f.kind == '{':
		sc.pop()
	case c == '#' && wordInit && f.kind != '{':
		sc.push('#')
	case c == '<' && i+1 < len(s) && s[i+1] == '<' && !(i+2 < len(s) && s[i+2] == '<') && f.kind != '{':
		sc.pos = sc.readHeredocOperator(i + 2)
		return
	case c == '\n':
		sc.wordInit = true
		if len(sc.stack) == 1 || f.kind == 'b' {
			sc.pos++
			sc.endLine()
			return
		}
	case c == ' ' || c == '\t' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>':
		sc.wordInit = true
	}
	sc.pos++
}

// readHeredocOperator parses the delimiter after "<<" (or "<<-") and returns the position after it.
func (sc *shellScanner) readHeredocOperator(i int) int {
	s := sc.s
	strip := false
	if i < len(s) && s[i] == '-' {
		strip = true
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	var delim strings.Builder
	quoted := false
	for i < len(s) {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')' {
			break
		}
		switch c {
		case '\'', '"':
			quoted = true
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				delim.WriteString(s[i+1:])
				return len(s)
			}
			delim.WriteString(s[i+1 : i+1+j])
			i += j + 2
			continue
		case '\\':
			quoted = true
			if i+1 < len(s) {
				delim.WriteByte(s[i+1])
			}
			i += 2
			continue
		}
		delim.WriteByte(c)
		i++
	}
	if delim.Len() > 0 {
		p := delim.String()
		if quoted {
			p = "'" + p
		}
		if strip {
			p = "-" + p
		}
		sc.pending = append(sc.pending, p)
	}
	sc.wordInit = true
	return i
}

// endLine starts the first pending here document, if any, after a newline.
func (sc *shellScanner) endLine() {
	if len(sc.pending) == 0 {
		return
	}
	p := sc.pending[0]
	sc.pending = sc.pending[1:]
	h := &heredocState{}
	if strings.HasPrefix(p, "-") {
		h.strip, p = true, p[1:]
	}
	if strings.HasPrefix(p, "'") {
		h.quoted, p = true, p[1:]
	}
	h.delim = p
	sc.heredoc = h
}

// stepHeredoc consumes here-document body text: a whole line when it is the delimiter line,
// else one byte (so that contextAt can stop inside the body).
func (sc *shellScanner) stepHeredoc() {
	s, h := sc.s, sc.heredoc
	if h.midLine {
		if s[sc.pos] == '\n' {
			h.midLine = false
		}
		sc.pos++
		return
	}
	line, next := s[sc.pos:], len(s)
	if end := strings.IndexByte(line, '\n'); end >= 0 {
		line, next = line[:end], sc.pos+end+1
	}
	if h.strip {
		line = strings.TrimLeft(line, "\t")
	}
	if line == h.delim {
		sc.heredoc = nil
		sc.pos = next
		sc.wordInit = true
		sc.endLine()
		return
	}
	if s[sc.pos] != '\n' {
		h.midLine = true
	}
	sc.pos++
}
