package process

import (
	"os"
	"testing"
)

// TestMain runs the tests as agent-hooks runs: adopting the orphans of hook processes.
func TestMain(m *testing.M) {
	AdoptOrphans()
	os.Exit(m.Run())
}
