package hooks

import (
	"os"
	"testing"

	"github.com/autoagent/agent-hooks/hooks/process"
)

// TestMain runs the tests as agent-hooks runs: adopting the orphans of hook processes.
func TestMain(m *testing.M) {
	process.AdoptOrphans()
	os.Exit(m.Run())
}
