package pipelines

import (
	"encoding/json"
	"path/filepath"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// WebhooksPath is the seed's webhook configuration, beside the global hooks file:
// $XDG_CONFIG_HOME/agent-pipelines/webhooks.yaml, else ~/.config/agent-pipelines/webhooks.yaml.
// It is "" when the project disables user hooks.
func WebhooksPath(env hooks.LoadEnv) string {
	global := GlobalPath(env)
	if global == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(global), "webhooks.yaml")
}

// webhookFormats are the formats of the webhook hook type an entry named after one (the seed's
// `slack:`, `discord:`, `teams:`) uses unless it says otherwise: `slack:` sends the plan's own
// template (send_slack_notification), the others agent-hooks' message, the plan having none.
var webhookFormats = map[string]string{"slack": "agent-pipelines-slack", "discord": "discord", "teams": "teams", "json": "json"}

// readWebhooks turns the seed's webhooks.yaml into webhook hooks, one per entry and event:
//
//	webhooks:
//	  slack:
//	    url: "https://hooks.slack.com/services/xxx"   # or "${SLACK_WEBHOOK}"
//	    events: [session_complete, error]
//
// Events are the seed's names with or without "on_" (session_complete, on_error) or any event
// name agent-hooks knows. The URL is a secret: it stays in the hook's options, never in a name or
// a message.
func readWebhooks(file string) ([]*hooks.Hook, []hooks.Diagnostic, error) {
	data, err := readUserFile(file)
	if data == nil || err != nil {
		return nil, nil, err
	}
	y := &seedfmt.YAMLFile{Path: file}
	root := y.Parse(data)
	if root == nil {
		return nil, y.Diags, nil
	}
	var out []*hooks.Hook
	y.Mapping(root, "expected a mapping with webhooks", func(k, v *yaml.Node) {
		if k.Value != "webhooks" {
			return // relay and other settings belong to the seed's own engine
		}
		y.Mapping(v, "webhooks: expected a mapping from name to {url, events}", func(name, entry *yaml.Node) {
			out = append(out, webhookHooks(y, name, entry)...)
		})
	})
	return out, y.Diags, nil
}

func webhookHooks(y *seedfmt.YAMLFile, name, entry *yaml.Node) []*hooks.Hook {
	var w struct {
		URL    string   `yaml:"url"`
		Events []string `yaml:"events"`
		Format string   `yaml:"format"`
	}
	if err := entry.Decode(&w); err != nil {
		y.Errorf(entry, "webhooks.%s: expected url and events: %v", name.Value, err)
		return nil
	}
	if w.URL == "" {
		y.Errorf(entry, "webhooks.%s: url is required", name.Value)
		return nil
	}
	format := w.Format
	if format == "" {
		format = "json"
		if f, ok := webhookFormats[name.Value]; ok {
			format = f
		}
	}
	if len(w.Events) == 0 {
		w.Events = []string{"session_complete", "error"}
	}
	opts, _ := json.Marshal(map[string]string{"url": loopTemplate(w.URL), "format": format})
	var out []*hooks.Hook
	seen := map[string]bool{}
	for _, e := range w.Events {
		event, ok := webhookEvent(e)
		if !ok {
			y.Errorf(entry, "webhooks.%s: %s", name.Value, seedfmt.UnknownPoint(Name, e, eventNames()))
			continue
		}
		if seen[event] {
			continue
		}
		seen[event] = true
		out = append(out, &hooks.Hook{
			Name:    "webhook " + name.Value,
			Type:    "webhook",
			Event:   event,
			Timeout: hooks.DefaultTimeout,
			Enabled: true,
			Source:  hooks.Source{Format: Name, Scope: "user", File: y.Path, Line: entry.Line, Col: entry.Column},
			Options: opts,
		})
	}
	return out
}

// webhookEvent resolves an event name of webhooks.yaml.
func webhookEvent(name string) (string, bool) {
	if e, ok := points.Event(name); ok {
		return e, true
	}
	if e, ok := points.Event("on_" + name); ok {
		return e, true
	}
	return hooks.Canonical(name, nil)
}

func eventNames() []string {
	names := map[string]bool{}
	for _, n := range points.Names() {
		names[n] = true
		names[n[len("on_"):]] = true
	}
	for _, n := range hooks.KnownEventNames() {
		names[n] = true
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
