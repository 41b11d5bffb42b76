package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// DefaultOpenCodeModel is the model an OpenCode run asks its provider for unless it sets one.
const DefaultOpenCodeModel = "gpt-4o"

// DroidModel is the fake as Droid names its custom model: custom:<displayName>-<index>.
const DroidModel = "custom:agenttest-0"

// openCodeEnv keeps OpenCode on the fake and on 127.0.0.1: its configuration (the fake as an
// OpenAI-compatible provider, given in OPENCODE_CONFIG_CONTENT, so that the project holds no
// opencode.json of the harness's), its folders under Home, no update, model list, share, LSP
// download, default plugins or npm install of its plugin package, and a proxy on a closed port for whatever else it reaches for.
func (r *Run) openCodeEnv() []string {
	cfg, _ := json.Marshal(obj{
		"provider": obj{"agenttest": obj{"npm": "@ai-sdk/openai-compatible", "name": "agenttest",
			"options": obj{"baseURL": r.Server.URL, "apiKey": fakeKey},
			"models":  obj{defaultString(r.Model, DefaultOpenCodeModel): obj{"name": "agenttest", "tool_call": true}}}},
		"model":      "agenttest/" + defaultString(r.Model, DefaultOpenCodeModel),
		"autoupdate": false, "share": "disabled",
	})
	return []string{"TERM=dumb", "OPENCODE_CONFIG_CONTENT=" + string(cfg),
		"XDG_CONFIG_HOME=" + filepath.Join(r.Home, ".config"), "XDG_DATA_HOME=" + filepath.Join(r.Home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(r.Home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(r.Home, ".local", "state"),
		"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_SHARE=1",
		// OpenCode installs @opencode-ai/plugin into every configuration folder it loads plugins
		// from; offline, npm's retries would cost it a minute a run.
		"npm_config_offline=true", "npm_config_fetch_retries=0",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost",
	}
}

// droidSettings is the settings file of the run's Droid (`droid exec --settings`, merged over
// ~/.factory/settings.json for this process only), which Setup writes: the fake as a custom
// model on its Anthropic Messages API.
func (r *Run) droidSettings() string { return filepath.Join(r.Home, ".agenttest-droid-settings.json") }

func (r *Run) writeDroidSettings() error {
	b, err := json.Marshal(obj{"customModels": []obj{{"model": defaultString(r.Model, "claude-sonnet-4-5"), "displayName": "agenttest",
		"baseUrl": r.Server.URL, "apiKey": fakeKey, "provider": "anthropic"}}})
	if err != nil {
		return err
	}
	return os.WriteFile(r.droidSettings(), b, 0o600)
}
