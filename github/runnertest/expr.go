package runnertest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// The expression language of ${{ }} (docs.github.com, "Evaluate expressions in workflows and
// actions"), as much of it as actions use: literals, context properties, ! == != < <= > >= && ||,
// and the functions below. Anything else — hashFiles() included, which the runner evaluates
// against the workspace only — is an error, so that an action.yml relying on it fails its test.

// status is what the status functions of an if: see.
type status struct{ failed bool }

type evaluator struct {
	contexts map[string]any // github, inputs, steps, runner, env, job, …
	status   status
}

// interpolate replaces every ${{ expr }} in s with the value of expr as a string.
func (ev *evaluator) interpolate(s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unterminated ${{ in %q", s)
		}
		b.WriteString(s[:i])
		v, err := ev.eval(s[i+3 : i+j])
		if err != nil {
			return "", err
		}
		b.WriteString(toString(v))
		s = s[i+j+2:]
	}
}

// condition evaluates an if: the way the runner does: ${{ }} optional, and success() && (…) unless
// the condition calls a status function itself.
func (ev *evaluator) condition(cond string) (bool, error) {
	cond = strings.TrimSpace(cond)
	if strings.HasPrefix(cond, "${{") && strings.HasSuffix(cond, "}}") {
		cond = cond[3 : len(cond)-2]
	}
	if cond == "" {
		cond = "success()"
	}
	lower := strings.ToLower(cond)
	if !strings.Contains(lower, "success(") && !strings.Contains(lower, "failure(") &&
		!strings.Contains(lower, "always(") && !strings.Contains(lower, "cancelled(") {
		cond = "success() && (" + cond + ")"
	}
	v, err := ev.eval(cond)
	return truthy(v), err
}

func (ev *evaluator) eval(src string) (any, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, fmt.Errorf("expression %q: %w", src, err)
	}
	p := &parser{toks: toks, ev: ev}
	v, err := p.or()
	if err == nil && p.pos < len(p.toks) {
		err = fmt.Errorf("unexpected %q", p.toks[p.pos].text)
	}
	if err != nil {
		return nil, fmt.Errorf("expression %q: %w", src, err)
	}
	return v, nil
}

type token struct {
	kind string // "num", "str", "ident", "op"
	text string
	num  float64
}

func tokenize(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(s) {
					return nil, fmt.Errorf("unterminated string")
				}
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(s[j])
				j++
			}
			toks = append(toks, token{kind: "str", text: b.String()})
			i = j + 1
		case c >= '0' && c <= '9' || c == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'x' || s[j] >= 'a' && s[j] <= 'f' || s[j] == 'e' || s[j] == 'E') {
				j++
			}
			n, err := strconv.ParseFloat(s[i:j], 64)
			if err != nil {
				return nil, fmt.Errorf("bad number %q", s[i:j])
			}
			toks = append(toks, token{kind: "num", text: s[i:j], num: n})
			i = j
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] == '-' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			toks = append(toks, token{kind: "ident", text: s[i:j]})
			i = j
		default:
			for _, op := range []string{"==", "!=", "<=", ">=", "&&", "||", "!", "<", ">", "(", ")", "[", "]", ".", ",", "*"} {
				if strings.HasPrefix(s[i:], op) {
					toks = append(toks, token{kind: "op", text: op})
					i += len(op)
					goto next
				}
			}
			return nil, fmt.Errorf("unexpected %q", s[i:i+1])
		next:
		}
	}
	return toks, nil
}

type parser struct {
	toks []token
	pos  int
	ev   *evaluator
}

func (p *parser) peek(op string) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].kind == "op" && p.toks[p.pos].text == op
}

func (p *parser) expect(op string) error {
	if !p.peek(op) {
		return fmt.Errorf("want %q", op)
	}
	p.pos++
	return nil
}

func (p *parser) or() (any, error) {
	v, err := p.and()
	for err == nil && p.peek("||") {
		p.pos++
		var r any
		if r, err = p.and(); err == nil && !truthy(v) {
			v = r
		}
	}
	return v, err
}

func (p *parser) and() (any, error) {
	v, err := p.cmp()
	for err == nil && p.peek("&&") {
		p.pos++
		var r any
		if r, err = p.cmp(); err == nil && truthy(v) {
			v = r
		}
	}
	return v, err
}

func (p *parser) cmp() (any, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if p.peek(op) {
			p.pos++
			r, err := p.unary()
			if err != nil {
				return nil, err
			}
			return compare(op, l, r), nil
		}
	}
	return l, nil
}

func (p *parser) unary() (any, error) {
	if p.peek("!") {
		p.pos++
		v, err := p.unary()
		return !truthy(v), err
	}
	return p.postfix()
}

func (p *parser) postfix() (any, error) {
	v, err := p.primary()
	for err == nil {
		switch {
		case p.peek("."):
			p.pos++
			if p.pos >= len(p.toks) || p.toks[p.pos].kind != "ident" {
				return nil, fmt.Errorf("want a property name after the dot")
			}
			v = property(v, p.toks[p.pos].text)
			p.pos++
		case p.peek("["):
			p.pos++
			var key any
			if key, err = p.or(); err == nil {
				err = p.expect("]")
				v = property(v, toString(key))
			}
		default:
			return v, nil
		}
	}
	return nil, err
}

func (p *parser) primary() (any, error) {
	if p.pos >= len(p.toks) {
		return nil, fmt.Errorf("unexpected end")
	}
	t := p.toks[p.pos]
	p.pos++
	switch t.kind {
	case "num":
		return t.num, nil
	case "str":
		return t.text, nil
	case "op":
		if t.text == "(" {
			v, err := p.or()
			if err == nil {
				err = p.expect(")")
			}
			return v, err
		}
		return nil, fmt.Errorf("unexpected %q", t.text)
	}
	switch strings.ToLower(t.text) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if p.peek("(") {
		p.pos++
		var args []any
		for !p.peek(")") {
			a, err := p.or()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if !p.peek(")") {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
		}
		p.pos++
		return p.ev.call(strings.ToLower(t.text), args)
	}
	ctx, ok := p.ev.contexts[strings.ToLower(t.text)]
	if !ok {
		return nil, fmt.Errorf("unknown context %q", t.text)
	}
	return ctx, nil
}

func (ev *evaluator) call(name string, args []any) (any, error) {
	str := func(i int) string {
		if i < len(args) {
			return toString(args[i])
		}
		return ""
	}
	switch name {
	case "success":
		return !ev.status.failed, nil
	case "failure":
		return ev.status.failed, nil
	case "always":
		return true, nil
	case "cancelled":
		return false, nil
	case "contains":
		return strings.Contains(strings.ToLower(str(0)), strings.ToLower(str(1))), nil
	case "startswith":
		return strings.HasPrefix(strings.ToLower(str(0)), strings.ToLower(str(1))), nil
	case "endswith":
		return strings.HasSuffix(strings.ToLower(str(0)), strings.ToLower(str(1))), nil
	case "format":
		out := str(0)
		for i := 1; i < len(args); i++ {
			out = strings.ReplaceAll(out, "{"+strconv.Itoa(i-1)+"}", str(i))
		}
		return strings.NewReplacer("{{", "{", "}}", "}").Replace(out), nil
	case "tojson":
		b, err := json.MarshalIndent(args[0], "", "  ")
		return string(b), err
	}
	return nil, fmt.Errorf("function %s() is not emulated", name)
}

// property looks name up in an object, case-insensitively as the runner does; anything else has
// no properties (null).
func property(v any, name string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if x, ok := m[name]; ok {
		return x
	}
	for k, x := range m {
		if strings.EqualFold(k, name) {
			return x
		}
	}
	return nil
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

func toString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func toNumber(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		if strings.TrimSpace(x) == "" {
			return 0
		}
		if n, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return n
		}
	}
	return math.NaN()
}

// compare is the runner's loose comparison: strings case-insensitively, mixed types as numbers.
func compare(op string, l, r any) bool {
	ls, lok := l.(string)
	rs, rok := r.(string)
	var c int
	switch {
	case lok && rok:
		c = strings.Compare(strings.ToLower(ls), strings.ToLower(rs))
	case l == nil && r == nil:
		c = 0
	default:
		a, b := toNumber(l), toNumber(r)
		if math.IsNaN(a) || math.IsNaN(b) {
			return op == "!="
		}
		switch {
		case a < b:
			c = -1
		case a > b:
			c = 1
		}
	}
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}
