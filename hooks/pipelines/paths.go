package pipelines

import (
	"path/filepath"

	"github.com/autoagent/agent-hooks/hooks"
)

// ConfigPaths implements hooks.ConfigPather: the stage file (stage.yaml and loop.yaml, or the one
// --loop names), the global hooks.sh and webhooks.yaml.
func (Format) ConfigPaths(env hooks.LoadEnv) []string {
	paths := []string{filepath.Join(env.Workspace, StageFileName), filepath.Join(env.Workspace, LoopFileName)}
	if env.LoopFile != "" {
		paths = append(paths, LoopPath(env))
	}
	env.DisableUserHooks = false
	if g := GlobalPath(env); g != "" {
		paths = append(paths, g, WebhooksPath(env))
	}
	return paths
}
