package babysitter

import (
	"path/filepath"

	"github.com/autoagent/agent-hooks/hooks"
)

// ConfigPaths implements hooks.ConfigPather: every hook location's folder, the user's included.
func (Format) ConfigPaths(env hooks.LoadEnv) []string {
	env.DisableUserHooks = false
	var paths []string
	for _, loc := range Locations(env) {
		paths = append(paths, loc.Dir+string(filepath.Separator))
	}
	return paths
}
