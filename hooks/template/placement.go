package template

import (
	"fmt"
	"path"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"mvdan.cc/sh/v3/syntax"

	"github.com/autoagent/agent-hooks/internal/jsonpos"
)

// PlacementError is a {{key}} placeholder of a command template standing where the shell itself
// would run its value as code, or choose by it what to run: no quoting can make that safe, so
// the configuration is refused before anything runs (CheckPlacements).
type PlacementError struct {
	Key       string
	Offset    int    // byte offset of the placeholder in the command
	Line, Col int    // its position in the command (1-based; columns count runes)
	Placement string // where it stands and why that is refused
}

func (e *PlacementError) Error() string {
	return fmt.Sprintf("{{%s}} %s", e.Key, e.Placement)
}

// shells are the programs whose -c operand is a script and that read one from a file operand
// or stdin.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ksh93": true, "mksh": true,
	"ash": true, "yash": true, "posh": true, "busybox": true,
}

// codeVariables are variables whose value the shell itself evaluates (prompts, startup files).
var codeVariables = map[string]bool{"PS1": true, "PS2": true, "PS4": true, "PROMPT_COMMAND": true, "ENV": true, "BASH_ENV": true}

// wrappers run their operands as a command; the letters are their options that take an argument,
// and skip is how many operands come before the command (timeout's duration).
var wrappers = map[string]struct {
	argOpts string
	skip    int
}{
	"command": {}, "builtin": {}, "exec": {argOpts: "a"}, "nohup": {}, "setsid": {}, "unbuffer": {},
	"time": {argOpts: "fo"}, "nice": {argOpts: "n"}, "timeout": {argOpts: "sk", skip: 1},
	"stdbuf": {argOpts: "ioe"}, "env": {argOpts: "uSCP"}, "xargs": {argOpts: "adEeIiLlnPs"},
	"sudo": {argOpts: "CDghpRrTtUu"}, "doas": {argOpts: "Cu"}, "ionice": {argOpts: "cnp"},
	"chrt": {skip: 1}, "taskset": {skip: 1},
}

// CheckPlacements reports the first placeholder of a command template that stands where no
// quoting makes its value data (nil if there is none):
//
//   - inside arithmetic: $(( )), (( )), let, for (( )), ${x:offset:length}, an array index, and
//     [[ ]] — bash evaluates variables and array subscripts there as code;
//   - in a string a shell runs: the operand of sh -c (any shell named in the command, -c in any
//     option group, as with env sh -c, xargs sh -c or find -exec sh -c), the arguments of eval and
//     trap, an alias, su -c, ssh's remote command, a here document or here string given to a shell,
//     text piped into a shell, and the variables a shell evaluates (PS1, PS2, PS4, PROMPT_COMMAND,
//     ENV, BASH_ENV);
//   - where it would choose what runs: the command name (also after command, exec, env, sudo,
//     timeout, xargs and other wrappers), the script a shell or "." runs;
//   - where bash takes it as a variable name (and so evaluates an array subscript in it): a
//     name given to export, readonly, local, declare or typeset, the operands of read, unset,
//     mapfile and getopts, printf -v, test -v, a function or loop variable name, ${name};
//   - where shells disagree on what quotes mean, so that no quoting keeps the value whole in all
//     of them: a pattern (${x#…}, ${x%…}, ${x/…}) in a here document, '…' inside "${…}" or inside
//     ${…} in a here document, an extended glob, and right after a backslash.
//
// The command is parsed as bash (falling back to POSIX sh); one that does not parse is refused
// too, since where its placeholders stand cannot be told. Placeholders in comments and quoted
// here documents are not expanded and not checked.
func CheckPlacements(command string) *PlacementError {
	return compileTemplate(command).err
}

// quoting is how a placeholder's variable reference is written where it stands.
type quoting uint8

const (
	quoteInert  quoting = iota // not expanded: a comment, a quoted here document
	quoteWord                  // "${NAME}": unquoted text, $(…), a ${…} word
	quoteDouble                // ${NAME}: inside "…" or an unquoted here document
	quoteSingle                // '"${NAME}"': inside '…' (closed, reopened around the value)
	// quoteArg: a whole argument of a simple command (or word of a for loop's list), written
	// ${NAME:+"${NAME}"}: an empty value
	// is no argument at all and any other value one argument, as AutoAgent's and iteratr's
	// pasted text gives for a word-sized value; a list value is one argument per element
	// (Expansion builds that reference when it binds the list).
	quoteArg
)

// template is a command template analysed once: where each placeholder stands and what it
// becomes.
type template struct {
	placeholders []placeholder
	names        []string        // the variable of each distinct key, AGENT_HOOKS_ARG_n
	err          *PlacementError // why the template is refused
}

type placeholder struct {
	start, end int
	key        string
	quote      quoting
	arg        int    // index in names (expanded placeholders only)
	ref        string // the reference that replaces it, quoted for where it stands
}

// templates caches the analysis of the command templates seen (they come from configuration,
// so there are few; past maxTemplates, more are analysed each time, not kept).
var (
	templates      sync.Map // string -> *template
	templatesCount atomic.Int32
)

const maxTemplates = 4096

// compileTemplate analyses a command template (cached: a hook runs the same template many times).
func compileTemplate(command string) *template {
	if t, ok := templates.Load(command); ok {
		return t.(*template)
	}
	t := analyse(command)
	if templatesCount.Load() < maxTemplates {
		if _, loaded := templates.LoadOrStore(command, t); !loaded {
			templatesCount.Add(1)
		}
	}
	return t
}

func analyse(command string) *template {
	t := &template{}
	for i := 0; ; {
		start, end, key, ok := nextPlaceholder(command, i)
		if !ok {
			break
		}
		t.placeholders = append(t.placeholders, placeholder{start: start, end: end, key: key})
		i = end
	}
	if len(t.placeholders) == 0 {
		return t
	}
	// Each placeholder becomes a name-like sentinel, which parses wherever a word or a variable
	// name may stand, so that the parser shows where it is.
	prefix := "agenthooksph"
	for strings.Contains(command, prefix) {
		prefix += "x"
	}
	var b strings.Builder
	last := 0
	for i, p := range t.placeholders {
		b.WriteString(command[last:p.start])
		b.WriteString(prefix + strconv.Itoa(i) + "z")
		last = p.end
	}
	b.WriteString(command[last:])

	refuse := func(i int, why string) {
		p := t.placeholders[i]
		line, col := jsonpos.LineCol([]byte(command), p.start)
		why = strings.ReplaceAll(why, "{{key}}", "{{"+p.key+"}}")
		t.err = &PlacementError{Key: p.key, Offset: p.start, Line: line, Col: col, Placement: why}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(b.String()), "")
	if err != nil {
		var err2 error
		if f, err2 = syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(b.String()), ""); err2 != nil {
			refuse(0, fmt.Sprintf("cannot be checked: the command does not parse as shell (%v)", err))
			return t
		}
	}
	c := &placementChecker{prefix: prefix, hits: map[int]string{}, quotes: map[int]quoting{}, args: map[int]bool{}}
	syntax.Walk(f, c.visit)
	for i := range t.placeholders {
		p := &t.placeholders[i]
		p.quote = c.quotes[i] // quoteInert when the parser did not see it: a comment
		if p.quote == quoteWord && c.args[i] {
			p.quote = quoteArg
		}
		if why, bad := c.hits[i]; bad {
			refuse(i, why)
			return t
		}
		if p.quote != quoteInert && p.quote != quoteSingle && oddBackslashes(command[:p.start]) {
			refuse(i, "follows a backslash, which would escape the expansion instead of the value; remove the backslash")
			return t
		}
	}
	args := map[string]int{}
	for i := range t.placeholders {
		p := &t.placeholders[i]
		if p.quote == quoteInert {
			continue
		}
		arg, seen := args[p.key]
		if !seen {
			arg = len(t.names)
			args[p.key] = arg
			t.names = append(t.names, "AGENT_HOOKS_ARG_"+strconv.Itoa(arg+1))
		}
		p.arg = arg
		switch name := t.names[arg]; p.quote {
		case quoteDouble:
			p.ref = "${" + name + "}"
		case quoteSingle:
			p.ref = `'"${` + name + `}"'`
		case quoteArg:
			p.ref = argRef(name)
		default:
			p.ref = `"${` + name + `}"`
		}
	}
	return t
}

// argRef is the reference of a whole argument: no word when the variable is empty, else one.
func argRef(name string) string { return "${" + name + `:+"${` + name + `}"}` }

func oddBackslashes(s string) bool {
	n := len(s) - len(strings.TrimRight(s, `\`))
	return n%2 == 1
}

type placementChecker struct {
	prefix string
	hits   map[int]string  // placeholder index -> why it is refused (the outermost reason)
	quotes map[int]quoting // placeholder index -> how its reference is written
	args   map[int]bool    // placeholder index -> it is a whole word of a command's arguments or a for list
	stack  []syntax.Node   // the ancestors of the node being visited
}

const (
	whyArith   = "stands inside arithmetic ($(( )), (( )), let, ${x:offset}, an array index), where the shell evaluates the value as code; check it is a number first: n={{key}}; case $n in ''|*[!0-9]*) exit 1;; esac"
	whyTest    = "stands inside [[ ]], where bash evaluates operands as code (arithmetic, -v); use [ ] or test"
	whyName    = "stands where bash takes it as a variable or function name, and evaluates an array subscript in it as code"
	whyCommand = "is the command name: the payload would choose the program to run"
)

// refuse records why the placeholders in n are refused, unless an outer reason came first.
func (c *placementChecker) refuse(n syntax.Node, why string) {
	if n == nil || reflect.ValueOf(n).IsNil() {
		return
	}
	for _, i := range c.sentinels(n) {
		if _, done := c.hits[i]; !done {
			c.hits[i] = why
		}
	}
}

// sentinels lists the placeholders in n's subtree, except in quoted here documents (not expanded).
func (c *placementChecker) sentinels(n syntax.Node) []int {
	var found []int
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Lit:
			found = c.scan(n.Value, found)
		case *syntax.SglQuoted:
			found = c.scan(n.Value, found)
		case *syntax.Redirect:
			if quotedHeredoc(n) {
				if n.N != nil {
					found = c.scan(n.N.Value, found)
				}
				found = append(found, c.sentinels(n.Word)...)
				return false
			}
		}
		return true
	})
	return found
}

func (c *placementChecker) scan(s string, found []int) []int {
	for {
		i := strings.Index(s, c.prefix)
		if i < 0 {
			return found
		}
		s = s[i+len(c.prefix):]
		j := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j > 0 && j < len(s) && s[j] == 'z' {
			n, _ := strconv.Atoi(s[:j])
			found = append(found, n)
		}
		s = s[j:]
	}
}

func quotedHeredoc(r *syntax.Redirect) bool {
	if r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc || r.Word == nil {
		return false
	}
	for _, p := range r.Word.Parts {
		if l, ok := p.(*syntax.Lit); !ok || strings.Contains(l.Value, `\`) {
			return true
		}
	}
	return false
}

func (c *placementChecker) visit(n syntax.Node) bool {
	if n == nil {
		c.stack = c.stack[:len(c.stack)-1]
		return true
	}
	c.stack = append(c.stack, n)
	switch n := n.(type) {
	case *syntax.Lit:
		for _, i := range c.scan(n.Value, nil) {
			c.quotes[i] = c.quoting(false)
			if c.args[i] && !c.unquotedContext() {
				delete(c.args, i)
			}
		}
	case *syntax.SglQuoted:
		for _, i := range c.scan(n.Value, nil) {
			c.quotes[i] = c.quoting(true)
		}
	case *syntax.ExtGlob:
		c.refuse(n.Pattern, "stands in an extended glob pattern, where shells differ on quoting")
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
		c.refuse(n, whyArith)
	case *syntax.TestClause:
		c.refuse(n, whyTest)
	case *syntax.ParamExp:
		if n.Param != nil {
			c.refuse(n.Param, whyName)
		}
		c.refuse(n.Index, whyArith)
		if n.Slice != nil {
			c.refuse(n.Slice.Offset, whyArith)
			c.refuse(n.Slice.Length, whyArith)
		}
	case *syntax.Assign:
		if n.Name != nil {
			c.refuse(n.Name, whyName)
			if codeVariables[n.Name.Value] {
				c.refuse(n.Value, "is assigned to "+n.Name.Value+", whose value the shell runs as code")
			}
		}
		c.refuse(n.Index, whyArith)
	case *syntax.ArrayElem:
		c.refuse(n.Index, whyArith)
	case *syntax.DeclClause:
		for _, a := range n.Args {
			if a.Naked {
				c.refuse(a.Value, whyName)
			}
		}
	case *syntax.FuncDecl:
		c.refuse(n.Name, whyName)
	case *syntax.WordIter:
		c.refuse(n.Name, whyName)
		c.wholeWords(n.Items)
	case *syntax.Stmt:
		if call, ok := n.Cmd.(*syntax.CallExpr); ok && stdinShell(call) != "" {
			for _, r := range n.Redirs {
				if quotedHeredoc(r) {
					continue // not expanded: the shell gets {{key}} as written
				}
				switch r.Op {
				case syntax.Hdoc, syntax.DashHdoc:
					c.refuse(r.Hdoc, "is in a here document that "+stdinShell(call)+" runs as a script")
				case syntax.WordHdoc:
					c.refuse(r.Word, "is in a here string that "+stdinShell(call)+" runs as a script")
				case syntax.RdrIn:
					c.refuse(r.Word, "names the script "+stdinShell(call)+" runs: the payload would choose the code")
				}
			}
		}
	case *syntax.BinaryCmd:
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			stages := pipeline(n, nil)
			for k := len(stages) - 1; k > 0; k-- {
				if call, ok := stages[k].Cmd.(*syntax.CallExpr); ok && stdinShell(call) != "" {
					for _, s := range stages[:k] {
						c.refuse(s, "is piped into "+stdinShell(call)+", which runs it as a script")
					}
					break
				}
			}
		}
	case *syntax.CallExpr:
		c.call(n)
	}
	return true
}

// quoting is how a placeholder found in the node on top of the stack (a literal, or the
// contents of '…' when single) must be written: it depends on the nearest enclosing quoting
// context. Where no writing is right in every shell, the placeholder is refused.
func (c *placementChecker) quoting(single bool) quoting {
	inParam, pattern := false, false
	for j := len(c.stack) - 2; j >= 0; j-- {
		switch n := c.stack[j].(type) {
		case *syntax.ParamExp:
			if !inParam {
				inParam, pattern = true, isPattern(n, c.stack[j+1])
			}
		case *syntax.DblQuoted:
			switch {
			case single && inParam:
				c.refuseTop("stands inside '…' within \"${…}\", where shells disagree whether the quotes are quotes")
			case single:
				return quoteSingle // '…' cannot be inside "…" otherwise: $'…' in bash
			case inParam:
				return quoteWord
			}
			return quoteDouble
		case *syntax.Redirect:
			if n.Hdoc == nil || j+1 >= len(c.stack) || c.stack[j+1] != syntax.Node(n.Hdoc) {
				continue
			}
			switch {
			case quotedHeredoc(n):
				return quoteInert
			case single && inParam:
				c.refuseTop("stands inside '…' within ${…} in a here document, where shells disagree whether the quotes are quotes")
			case inParam && pattern:
				c.refuseTop("stands in a pattern (${x#…}, ${x%…}, ${x/…}) in a here document, where shells disagree whether it is matched literally")
			case inParam:
				return quoteWord
			}
			return quoteDouble
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.File:
			if single {
				return quoteSingle
			}
			return quoteWord
		}
	}
	return quoteWord
}

// unquotedContext reports whether the node on top of the stack is outside any "…", here
// document and `…` (or inside a $(…) within them), where a whole argument's reference (${NAME:+"${NAME}"}) nests quotes the
// same way in every shell.
func (c *placementChecker) unquotedContext() bool {
	for j := len(c.stack) - 1; j >= 0; j-- {
		switch n := c.stack[j].(type) {
		case *syntax.DblQuoted, *syntax.Redirect:
			return false
		case *syntax.CmdSubst:
			return !n.Backquotes // $(…) starts afresh, even inside "…"
		}
	}
	return true
}

// isPattern reports whether child (a word of pe) is matched as a pattern.
func isPattern(pe *syntax.ParamExp, child syntax.Node) bool {
	if pe.Repl != nil {
		return child == syntax.Node(pe.Repl.Orig)
	}
	if pe.Exp == nil || child != syntax.Node(pe.Exp.Word) {
		return false
	}
	switch pe.Exp.Op {
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix,
		syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		return true
	}
	return false
}

// refuseTop refuses the placeholders of the node on top of the stack.
func (c *placementChecker) refuseTop(why string) {
	c.refuse(c.stack[len(c.stack)-1], why)
}

func pipeline(b *syntax.BinaryCmd, stages []*syntax.Stmt) []*syntax.Stmt {
	for _, s := range []*syntax.Stmt{b.X, b.Y} {
		if inner, ok := s.Cmd.(*syntax.BinaryCmd); ok && (inner.Op == syntax.Pipe || inner.Op == syntax.PipeAll) && len(s.Redirs) == 0 {
			stages = pipeline(inner, stages)
		} else {
			stages = append(stages, s)
		}
	}
	return stages
}

// call applies the rules of a simple command.
func (c *placementChecker) call(call *syntax.CallExpr) {
	args := call.Args
	// any shell in the command with -c: its first operand is a script (env sh -c, find -exec sh -c)
	for i := range args {
		if shellName(args[i]) == "" {
			continue
		}
		if sh := shellScript(args[i:]); sh.cflag && sh.operand > 0 {
			c.refuse(args[i+sh.operand], "is in the command string of "+shellName(args[i])+" -c, which that shell runs as code; pass the value as an argument after it instead: sh -c '… \"$1\" …' sh {{key}}")
		}
	}
	eff := commandIndex(args)
	if eff < len(args) && !testCommands[path.Base(args[eff].Lit())] { // [ -n ] is true: an absent operand changes what test tests
		c.wholeWords(args[eff+1:])
	}
	if eff >= len(args) {
		return
	}
	c.refuse(args[eff], whyCommand)
	name := path.Base(args[eff].Lit())
	operands := args[eff+1:]
	switch name {
	case "eval":
		for _, w := range operands {
			c.refuse(w, "is an argument of eval, which runs its arguments as shell code")
		}
	case "trap":
		for _, w := range operands {
			c.refuse(w, "is an argument of trap, whose action the shell runs as code")
		}
	case "alias":
		for _, w := range operands {
			c.refuse(w, "is in an alias, whose definition the shell runs as code")
		}
	case ".", "source":
		if len(operands) > 0 {
			c.refuse(operands[0], "names the script "+name+" runs: the payload would choose the code")
		}
	case "let":
		for _, w := range operands {
			c.refuse(w, whyArith)
		}
	case "read", "unset", "mapfile", "readarray", "getopts":
		for _, w := range operands {
			c.refuse(w, whyName)
		}
	case "export", "readonly", "local", "declare", "typeset":
		for _, w := range operands {
			c.refuseNamePart(w)
		}
	case "printf", "test", "[":
		flag := "-v"
		for k, w := range operands {
			if w.Lit() == flag && k+1 < len(operands) {
				c.refuse(operands[k+1], whyName)
			}
		}
	case "su", "runuser":
		for k, w := range operands {
			if lit := w.Lit(); (lit == "-c" || lit == "--command") && k+1 < len(operands) {
				c.refuse(operands[k+1], "is in the command string of "+name+" -c, which a shell runs as code")
			}
		}
	case "ssh":
		if dest := operandAfterOptions(operands, "BbcDEeFIiJLlmOopQRSWw"); dest >= 0 {
			for _, w := range operands[dest+1:] {
				c.refuse(w, "is in the remote command of ssh, which a shell on the remote host runs as code")
			}
		}
	}
	if shellName(args[eff]) != "" {
		if sh := shellScript(args[eff:]); !sh.cflag && !sh.sflag && sh.operand > 0 {
			c.refuse(args[eff+sh.operand], "names the script "+name+" runs: the payload would choose the code")
		}
	}
}

// testCommands take their operands as an expression, where an empty operand must stay one.
var testCommands = map[string]bool{"test": true, "[": true}

// wholeWords marks the placeholders that are whole words of words, the arguments of a command or
// the list of a for loop: places where the shell splits pasted text into words.
func (c *placementChecker) wholeWords(words []*syntax.Word) {
	for _, w := range words {
		if len(w.Parts) != 1 {
			continue
		}
		if l, ok := w.Parts[0].(*syntax.Lit); ok {
			if found := c.scan(l.Value, nil); len(found) == 1 && l.Value == c.prefix+strconv.Itoa(found[0])+"z" {
				c.args[found[0]] = true
			}
		}
	}
}

// refuseNamePart refuses placeholders in the NAME part of a NAME=value operand.
func (c *placementChecker) refuseNamePart(w *syntax.Word) {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			if i := strings.IndexByte(l.Value, '='); i >= 0 {
				c.refuse(&syntax.Lit{Value: l.Value[:i]}, whyName)
				return
			}
		}
		c.refuse(p, whyName)
	}
}

// shellName is the name of the shell a word names (a literal such as /bin/sh, or $SHELL), or "".
func shellName(w *syntax.Word) string {
	if lit := w.Lit(); lit != "" {
		if base := path.Base(lit); shells[base] {
			return base
		}
		return ""
	}
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) == 1 {
		if pe, ok := parts[0].(*syntax.ParamExp); ok && pe.Param != nil && (pe.Param.Value == "SHELL" || pe.Param.Value == "BASH") {
			return "$" + pe.Param.Value
		}
	}
	return ""
}

type shellArgs struct {
	cflag, sflag bool
	operand      int // index (in the words from the shell's name) of the first operand; 0 if none
}

// shellScript reads a shell's options (args[0] names the shell).
func shellScript(args []*syntax.Word) shellArgs {
	var sh shellArgs
	i := 1
	if path.Base(args[0].Lit()) == "busybox" {
		i++ // busybox sh …
	}
	for ; i < len(args); i++ {
		lit := args[i].Lit()
		if lit == "--" || lit == "-" {
			i++
			break
		}
		if len(lit) < 2 || lit[0] != '-' && lit[0] != '+' {
			break
		}
		if strings.HasPrefix(lit, "--") {
			continue // --login, --norc, …
		}
		sh.cflag = sh.cflag || strings.ContainsRune(lit[1:], 'c')
		sh.sflag = sh.sflag || strings.ContainsRune(lit[1:], 's')
		if strings.ContainsAny(lit[len(lit)-1:], "oO") {
			i++ // -o option
		}
	}
	if i < len(args) {
		sh.operand = i
	}
	return sh
}

// stdinShell is the name of the shell a command runs that reads its script from stdin, or "".
func stdinShell(call *syntax.CallExpr) string {
	eff := commandIndex(call.Args)
	if eff >= len(call.Args) {
		return ""
	}
	name := shellName(call.Args[eff])
	if name == "" {
		return ""
	}
	if sh := shellScript(call.Args[eff:]); !sh.cflag && (sh.sflag || sh.operand == 0) {
		return name
	}
	return ""
}

// commandIndex is the index of the word naming the program a simple command runs, past
// wrappers such as command, env, sudo or timeout and their options; len(args) if there is none.
func commandIndex(args []*syntax.Word) int {
	i := 0
	for i < len(args) {
		name := path.Base(args[i].Lit())
		wr, ok := wrappers[name]
		if !ok {
			return i
		}
		i++
		for i < len(args) {
			lit := args[i].Lit()
			if lit == "--" {
				i++
				break
			}
			if name == "env" && strings.Contains(lit, "=") && !strings.HasPrefix(lit, "-") {
				i++
				continue
			}
			if len(lit) < 2 || lit[0] != '-' {
				break
			}
			i++
			if !strings.HasPrefix(lit, "--") && strings.ContainsAny(lit[len(lit)-1:], wr.argOpts) && len(lit) == 2 {
				i++ // the option's argument
			}
		}
		i += wr.skip
	}
	return i
}

// operandAfterOptions is the index of the first operand after options (argOpts take an
// argument), or -1.
func operandAfterOptions(args []*syntax.Word, argOpts string) int {
	for i := 0; i < len(args); i++ {
		lit := args[i].Lit()
		if lit == "--" {
			if i+1 < len(args) {
				return i + 1
			}
			return -1
		}
		if len(lit) < 2 || lit[0] != '-' {
			return i
		}
		if strings.ContainsAny(lit[len(lit)-1:], argOpts) && len(lit) == 2 {
			i++
		}
	}
	return -1
}
