// Package template binds {{key}} placeholders to payload values: verbatim in messages
// (ExpandMessage), and in shell commands as quoted references to variables that hold the values,
// so that no value ever becomes shell syntax (ExpandCommand); and the placement check, which
// refuses a command whose placeholders stand where the shell would run a value as code
// (CheckPlacements). The native format and the seed formats expand their commands with it; the
// built-in types their messages.
package template

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/autoagent/agent-hooks/hooks/process"
	"github.com/autoagent/agent-hooks/internal/atomicfile"
)

// Template placeholders are {{key}} or {{a.b.c}} (spaces inside the braces are allowed).
//
// A payload is a map[string]any: hooks.Payload is one, and passes as it is. A value inside it may
// be a map of another named type over map[string]any (a hooks.Payload that a built-in put
// there): Lookup reads into it as into a map[string]any. This package does not import hooks,
// which imports it, so it cannot name hooks.Payload.

// Lookup finds a dotted path ("a.b", "files.0") in the payload.
func Lookup(p map[string]any, path string) (any, bool) {
	var cur any = p
	for rest, more := path, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ".")
		switch v := cur.(type) {
		case map[string]any:
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
			m, ok := asMap(v)
			if !ok {
				return nil, false
			}
			next, ok := m[part]
			if !ok {
				return nil, false
			}
			cur = next
		}
	}
	return cur, true
}

var mapType = reflect.TypeFor[map[string]any]()

// asMap is v as a map[string]any when its type is a named type over one (hooks.Payload).
func asMap(v any) (map[string]any, bool) {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Map || t.Key() != mapType.Key() || t.Elem() != mapType.Elem() {
		return nil, false
	}
	return reflect.ValueOf(v).Convert(mapType).Interface().(map[string]any), true
}

// FormatValue renders a payload value as text: strings as they are, numbers and booleans as
// written in JSON, null as "", objects and arrays as compact JSON. (A command template renders a
// list differently: see ExpandCommand.)
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
func ExpandMessage(tmpl string, p map[string]any) string {
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
// in the command, as the shell parser sees it (bare, inside '…', inside "…", in ${…}, in a here
// document), so the value lands exactly as written. A placeholder that is a whole argument of a
// command gives what the pasted text gives in AutoAgent and iteratr for a word-sized value: no
// argument when the value is empty, one argument otherwise, and one argument per element of a list
// (elsewhere a list is one word, its elements joined by spaces). Inside comments and quoted here documents
// nothing is expanded; unknown keys stay as written. A template whose placeholders stand where the
// shell would run a value as code is refused (CheckPlacements; the loaders report it).
//
// A value the environment cannot carry (over maxEnvArg, or past maxEnvArgs in all) is passed
// through a file: Command then starts by reading it into its variable, keeping every byte,
// trailing newlines included. A value with a NUL byte cannot be a shell word at all: that is an
// *process.InputError, and the hook must not run.
func ExpandCommand(tmpl string, p map[string]any) (Expansion, error) {
	if !strings.Contains(tmpl, "{{") {
		return Expansion{Command: tmpl}, nil
	}
	t := compileTemplate(tmpl)
	if t.err != nil {
		return Expansion{}, fmt.Errorf("command template: %w", t.err)
	}
	var (
		x     Expansion
		b     strings.Builder
		last  = 0
		inEnv = 0 // bytes of values in the environment
		// per variable: 0 not looked up yet, 1 bound, 2 not in the payload
		stateBuf [8]uint8
		state    = stateBuf[:0]
		lists    map[int]string // per variable holding a list: the reference of its elements as arguments
	)
	if len(t.names) <= len(stateBuf) {
		state = stateBuf[:len(t.names)]
	} else {
		state = make([]uint8, len(t.names))
	}
	bind := func(key, name, value string) error {
		switch {
		case strings.IndexByte(value, 0) >= 0:
			return &process.InputError{Err: fmt.Errorf("payload value {{%s}} contains a NUL byte, which no shell word can hold (the JSON payload on stdin carries it as \\u0000)", key)}
		case len(value) > maxEnvArg || inEnv+len(value) > maxEnvArgs:
			x.files = append(x.files, argFile{name: name, value: value})
		default:
			inEnv += len(value)
			if x.env == nil {
				x.env = make([]string, 0, len(t.names))
			}
			x.env = append(x.env, name+"="+value)
		}
		return nil
	}
	b.Grow(len(tmpl) + 24*len(t.placeholders))
	for _, ph := range t.placeholders {
		if ph.quote == quoteInert {
			continue
		}
		switch state[ph.arg] {
		case 2:
			continue
		case 0:
			v, found := Lookup(p, ph.key)
			if !found {
				state[ph.arg] = 2
				continue
			}
			state[ph.arg] = 1
			name := t.names[ph.arg]
			elems, isList := listElements(v)
			value := FormatValue(v)
			if isList {
				value = strings.Join(elems, " ")
			}
			if err := bind(ph.key, name, value); err != nil {
				return Expansion{}, err
			}
			if isList && t.listArgs(ph.arg) {
				if lists == nil {
					lists = map[int]string{}
				}
				refs := make([]string, len(elems))
				for k, el := range elems {
					en := name + "_" + strconv.Itoa(k+1)
					if err := bind(ph.key, en, el); err != nil {
						return Expansion{}, err
					}
					refs[k] = argRef(en)
				}
				lists[ph.arg] = strings.Join(refs, " ")
			}
		}
		b.WriteString(tmpl[last:ph.start])
		if ref, ok := lists[ph.arg]; ok && ph.quote == quoteArg {
			b.WriteString(ref)
		} else {
			b.WriteString(ph.ref)
		}
		last = ph.end
	}
	b.WriteString(tmpl[last:])
	x.Command = readArgFiles(x.files) + b.String()
	return x, nil
}

// listElements returns the text of each element of a list value (as FormatValue renders it), and
// whether v is a list at all. A list stands in a command as AutoAgent's reference pastes it, its
// elements joined by spaces: one argument per element where it is a whole argument, and one word
// of the joined elements anywhere else.
func listElements(v any) ([]string, bool) {
	switch l := v.(type) {
	case []any:
		out := make([]string, len(l))
		for i, el := range l {
			out[i] = FormatValue(el)
		}
		return out, true
	case []string:
		return l, true
	}
	return nil, false
}

// listArgs reports whether a placeholder of variable arg is a whole argument somewhere.
func (t *template) listArgs(arg int) bool {
	for _, ph := range t.placeholders {
		if ph.arg == arg && ph.quote == quoteArg {
			return true
		}
	}
	return false
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
// environment that binds every placeholder of Command; cleanup, nil when there is no file,
// removes the files once the hook is done.
func (x Expansion) Bind() (env []string, cleanup func(), err error) {
	env = x.env
	if len(x.files) == 0 {
		return env, nil, nil
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
