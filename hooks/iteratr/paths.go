package iteratr

import (
	"path/filepath"

	"github.com/autoagent/agent-hooks/hooks"
)

// ConfigPaths implements hooks.ConfigPather: the workspace's hooks file.
func (Format) ConfigPaths(env hooks.LoadEnv) []string {
	return []string{filepath.Join(env.Workspace, FileName)}
}
