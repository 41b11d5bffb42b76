//go:build unix

package pipelines_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUnreadableConfig: loop.yaml, the global hooks.sh or webhooks.yaml as a link to nothing used
// to read as "no config" (their hooks silently off), and a FIFO hung the load; both are errors
// naming the file.
func TestUnreadableConfig(t *testing.T) {
	t.Parallel()
	for _, rel := range []string{"loop.yaml", "~/.config/agent-pipelines/hooks.sh", "~/.config/agent-pipelines/webhooks.yaml"} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, "", "")
			file := filepath.Join(w.Dir, rel)
			if home, ok := strings.CutPrefix(rel, "~/"); ok {
				file = filepath.Join(w.Home, home)
			}
			w.CheckUnreadableConfig(file)
		})
	}
}
