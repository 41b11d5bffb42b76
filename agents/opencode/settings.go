package opencode

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/autoagent/agent-hooks/agents/hostsettings"
)

// pluginJS is the plugin install writes, below its header line; ARGV and TIMEOUT_SECONDS are
// the command it runs and that command's --timeout.
//
//go:embed plugin.js
var pluginJS string

// PluginFile is the plugin's file name in a plugin folder.
const PluginFile = "agent-hooks.js"

// settings are OpenCode's plugin folders as agent-hooks installs into them: OpenCode loads
// {plugin,plugins}/*.{js,ts} of each configuration directory (1.18.33); install writes
// agent-hooks.js into .opencode/plugins/ (--user: ~/.config/opencode/plugins/, or
// $XDG_CONFIG_HOME/opencode/plugins/).
var settings = sync.OnceValue(func() *hostsettings.Spec {
	return &hostsettings.Spec{
		Name:   "opencode",
		Title:  "OpenCode",
		Events: eventList,
		Known:  eventList,
		Plugin: &hostsettings.Plugin{Name: PluginFile, Source: pluginSource},
		Files:  folders,
		InstallFiles: func(env hostsettings.Env) (user, project hostsettings.File) {
			return hostsettings.File{Scope: hostsettings.User, Path: filepath.Join(ConfigDir(env), "plugins")},
				hostsettings.File{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".opencode", "plugins")}
		},
		InstalledNotes: []string{
			"OpenCode cannot be kept from stopping: a Stop gate only records (the plugin reports session.idle when the agent has finished)",
			"the plugin refuses every tool call and prompt while agent-hooks cannot be run: keep agent-hooks on the PATH OpenCode runs with",
		},
		Help: hostsettings.Help{
			Install: "OpenCode: a plugin, .opencode/plugins/" + PluginFile + " (--user: ~/.config/opencode/plugins/), that hands every event to \"agent-hooks hook opencode\" and refuses what it refuses, or when it cannot be run; --timeout is the plugin's wait for it.",
			Hook:    fmt.Sprintf("OpenCode's plugin waits --timeout (default %s) for agent-hooks, then refuses; it reads {\"decision\": \"deny\", \"reason\": …} as a refusal of a tool call or a prompt.", DefaultTimeout),
			Example: `# .opencode/plugins/` + PluginFile + ` (OpenCode), written by: agent-hooks install opencode
` + hostsettings.PluginHeader("opencode", "agent-hooks hook opencode --timeout 600") + `import { spawn } from "node:child_process" …`,
		},
		Vars: [][2]string{{"XDG_CONFIG_HOME", "where OpenCode's user configuration is (default ~/.config): its plugins are in opencode/plugins/ there"}, {"OPENCODE_CONFIG_DIR", "one more configuration directory OpenCode loads plugins from"}},
	}
})

// Settings implements agents.Agent.
func (Agent) Settings() *hostsettings.Spec { return settings() }

// Title implements agents.Agent.
func (Agent) Title() string { return settings().Title }

// ConfigDir is OpenCode's user configuration directory: $XDG_CONFIG_HOME/opencode, else
// ~/.config/opencode.
func ConfigDir(env hostsettings.Env) string {
	if d := env.Var("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "opencode")
	}
	return filepath.Join(env.Home, ".config", "opencode")
}

// folders are the plugin folders OpenCode loads, the user's first: both spellings in the user's
// configuration directory, $OPENCODE_CONFIG_DIR's, and the project's .opencode.
func folders(env hostsettings.Env) []hostsettings.File {
	out := []hostsettings.File{
		{Scope: hostsettings.User, Path: filepath.Join(ConfigDir(env), "plugins")},
		{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".opencode", "plugins")},
		{Scope: hostsettings.User, Path: filepath.Join(ConfigDir(env), "plugin")},
		{Scope: hostsettings.Project, Path: filepath.Join(env.Workspace, ".opencode", "plugin")},
	}
	if d := env.Var("OPENCODE_CONFIG_DIR"); d != "" {
		out = append(out, hostsettings.File{Scope: hostsettings.User, Path: filepath.Join(d, "plugins")},
			hostsettings.File{Scope: hostsettings.User, Path: filepath.Join(d, "plugin")})
	}
	return out
}

// pluginSource is the plugin that runs command (`agent-hooks hook opencode --timeout N`).
func pluginSource(command string) []byte {
	_, _, timeout, _ := hostsettings.OwnCommand(command)
	if timeout <= 0 {
		timeout = DefaultTimeout.Seconds()
	}
	argv, _ := json.Marshal(strings.Fields(command))
	body := strings.NewReplacer("ARGV", string(argv), "TIMEOUT_SECONDS", strconv.FormatFloat(timeout, 'f', -1, 64)).Replace(pluginJS)
	return []byte(hostsettings.PluginHeader("opencode", command) + body)
}
