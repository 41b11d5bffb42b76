package rules

import (
	"errors"
	"fmt"
	"sync"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/vm"
)

// expression is a rule's "when": a boolean expression over the payload (its fields by the names
// the hooks get: toolName, toolInput.command, toolCall.writes, eventName, …), in
// github.com/expr-lang/expr. A field the payload does not have is nil (use ?? for a default).
type expression struct {
	source  string
	program *vm.Program
}

// maxNodes bounds an expression's size: a rule is a condition, not a program.
const maxNodes = 2000

// exprConfig is the one compiler configuration of every rule: expr.Compile would build it anew
// for each expression (its table of built-in functions), which was most of a rule's load time,
// and agent-hooks loads every rule on every tool call.
var exprConfig = sync.OnceValue(func() *conf.Config {
	c := conf.CreateNew()
	for _, op := range []expr.Option{expr.AllowUndefinedVariables(), expr.AsBool(), expr.MaxNodes(maxNodes)} {
		op(c)
	}
	c.Check()
	return c
})

// compileMu serializes compiles: the configuration keeps a cache.
var compileMu sync.Mutex

// compile is expr.Compile with the shared configuration.
func compile(src string) (*vm.Program, error) {
	compileMu.Lock()
	defer compileMu.Unlock()
	c := exprConfig()
	tree, err := checker.ParseCheck(src, c)
	if err != nil {
		return nil, err
	}
	if err := optimizer.Optimize(&tree.Node, c); err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, fe.Bind(tree.Source)
		}
		return nil, err
	}
	return compiler.Compile(tree, c)
}

func compileWhen(src string) (*expression, error) {
	p, err := compile(src)
	if err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("%s (at column %d of the expression)", fe.Message, fe.Column+1)
		}
		return nil, err
	}
	return &expression{source: src, program: p}, nil
}

// eval runs the expression on a payload.
func (e *expression) eval(p hooks.Payload) (bool, error) {
	out, err := expr.Run(e.program, map[string]any(p))
	if err != nil {
		return false, err
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("the expression gave %T, not true or false", out)
	}
	return b, nil
}
