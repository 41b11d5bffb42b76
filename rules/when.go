package rules

import (
	"errors"
	"fmt"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
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

func compileWhen(src string) (*expression, error) {
	p, err := expr.Compile(src, expr.AllowUndefinedVariables(), expr.AsBool(), expr.MaxNodes(maxNodes))
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
