//go:build unix

package iteratr_test

import (
	"path/filepath"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/iteratr"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

// TestUnreadableConfig: a .iteratr.hooks.yml that is a link to nothing used to read as "no
// config" (every hook silently off), and a FIFO hung the load; both are errors naming the file.
func TestUnreadableConfig(t *testing.T) {
	t.Parallel()
	w := seedtest.New(t, []hooks.Format{iteratr.New()})
	w.CheckUnreadableConfig(filepath.Join(w.Dir, iteratr.FileName))
}
