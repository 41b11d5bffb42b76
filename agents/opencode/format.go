package opencode

import (
	"path/filepath"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
	"github.com/autoagent/agent-hooks/hooks"
)

// format is OpenCode's own hook files as a format (format "opencode"). They are plugins, code
// OpenCode runs in its own process with its own objects, which agent-hooks cannot run: the
// format loads no hook. It names the files that decide what OpenCode runs (its plugin folders
// and its opencode.json), so that the agent agent-hooks gates may not write them: a plugin of
// the agent's own could undo the gate, and deleting agent-hooks.js would remove it.
type format struct{}

// Format implements agents.Agent.
func (Agent) Format() hooks.Format { return format{} }

// Name implements hooks.Format.
func (format) Name() string { return settings().Name }

// Load implements hooks.Format: OpenCode's plugins run only in OpenCode.
func (format) Load(hooks.LoadEnv) (hooks.Loaded, error) { return hooks.Loaded{}, nil }

// ConfigPaths implements hooks.ConfigPather: the plugin folders and the configuration files of
// the project and the user.
func (format) ConfigPaths(env hooks.LoadEnv) []string {
	henv := hostsettings.Env{Workspace: env.Workspace, Home: env.UserHome, Getenv: env.Getenv}
	var out []string
	for _, f := range folders(henv) {
		if f.Scope == hostsettings.User && env.UserHome == "" {
			continue
		}
		out = append(out, f.Path+string(filepath.Separator)) // a folder of plugins
	}
	for _, name := range []string{"opencode.json", "opencode.jsonc"} {
		out = append(out, filepath.Join(env.Workspace, name), filepath.Join(env.Workspace, ".opencode", name))
		if env.UserHome != "" {
			out = append(out, filepath.Join(ConfigDir(henv), name))
		}
	}
	return out
}
