package agenttest

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScriptCommands runs the scripts of testdata/script: the testscript commands without an
// agent (the real agents drive them in cmd/agent-hooks' scripts).
func TestScriptCommands(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:  "testdata/script",
		Cmds: ScriptCmds(),
		Condition: func(cond string) (bool, error) {
			_, ok, err := ScriptCondition(cond)
			return ok, err
		},
	})
}
