package fresher

import (
	"path/filepath"

	"github.com/autoagent/agent-hooks/hooks"
)

// ConfigPaths implements hooks.ConfigPather: .fresher/config.toml and the hooks folder.
func (Format) ConfigPaths(env hooks.LoadEnv) []string {
	return []string{filepath.Join(env.Workspace, ConfigFile), filepath.Join(env.Workspace, ".fresher", "hooks") + string(filepath.Separator)}
}
