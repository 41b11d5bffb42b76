package pipelines

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// DefaultAwaitTimeout bounds an await_poll hook that sets no poll.timeout: the seed's examples
// wait a day for a human.
const DefaultAwaitTimeout = 24 * time.Hour

// awaitPoll is the `type: await_poll` hook of the seed's "Blocking Hooks (await)":
//
//	on_approval_required:
//	  type: await_poll
//	  poll:
//	    url: "${APPROVAL_API}/status/${SESSION}"
//	    interval: 30          # seconds
//	    timeout: 86400        # seconds
//	    success_when: ".status == 'approved'"
//	    abort_when: ".status == 'rejected'"
//	    timeout_action: abort # continue | abort (default abort)
//
// It becomes an approval hook with the http-poll provider, so the same code polls for every
// format; the loop variables in the URL (${SESSION}, ${ITERATION}, …) are bound to the payload
// like everywhere else, other ${VAR}s come from the environment.
type awaitPoll struct {
	Type string `yaml:"type"`
	Poll struct {
		URL           string            `yaml:"url"`
		Interval      float64           `yaml:"interval"`
		Timeout       float64           `yaml:"timeout"`
		SuccessWhen   string            `yaml:"success_when"`
		AbortWhen     string            `yaml:"abort_when"`
		TimeoutAction string            `yaml:"timeout_action"`
		Headers       map[string]string `yaml:"headers"`
	} `yaml:"poll"`
}

// parseAwait turns a structured hook (a mapping with a type) into a hook, or warns that its type
// is not run.
func (p *parser) parseAwait(point, event string, v *yaml.Node) {
	typ := "structured"
	for j := 0; j+1 < len(v.Content); j += 2 {
		if v.Content[j].Value == "type" {
			typ = v.Content[j+1].Value
		}
	}
	if typ != "await_poll" {
		p.Warnf(v, "hooks.%s: %s hooks are not run from the stage file; use an approval or webhook hook in .autoagent/config.json", point, typ)
		return
	}
	var a awaitPoll
	if err := v.Decode(&a); err != nil {
		p.Errorf(v, "hooks.%s: await_poll: %v", point, err)
		return
	}
	switch {
	case a.Poll.URL == "":
		p.Errorf(v, "hooks.%s: await_poll needs poll.url", point)
		return
	case a.Poll.SuccessWhen == "" && a.Poll.AbortWhen == "":
		p.Errorf(v, "hooks.%s: await_poll needs poll.success_when or poll.abort_when", point)
		return
	case a.Poll.Interval < 0 || a.Poll.Timeout < 0:
		p.Errorf(v, "hooks.%s: await_poll: interval and timeout are positive numbers of seconds", point)
		return
	}
	action := hooks.DecisionBlock
	switch a.Poll.TimeoutAction {
	case "", "abort":
	case "continue":
		action = hooks.DecisionApprove
	default:
		p.Errorf(v, "hooks.%s: await_poll: timeout_action %q is not continue or abort", point, a.Poll.TimeoutAction)
		return
	}
	opts := map[string]any{
		"provider":      "http-poll",
		"url":           loopTemplate(a.Poll.URL),
		"timeoutAction": action,
	}
	if a.Poll.Interval > 0 {
		opts["interval"] = strconv.FormatFloat(a.Poll.Interval, 'f', -1, 64) + "s"
	}
	if a.Poll.SuccessWhen != "" {
		opts["successWhen"] = a.Poll.SuccessWhen
	}
	if a.Poll.AbortWhen != "" {
		opts["abortWhen"] = a.Poll.AbortWhen
	}
	if len(a.Poll.Headers) > 0 {
		headers := map[string]string{}
		for k, h := range a.Poll.Headers {
			headers[k] = loopTemplate(h)
		}
		opts["headers"] = headers
	}
	raw, err := json.Marshal(opts)
	if err != nil {
		p.Errorf(v, "hooks.%s: await_poll: %v", point, err)
		return
	}
	timeout := DefaultAwaitTimeout
	if a.Poll.Timeout > 0 {
		timeout = time.Duration(a.Poll.Timeout * float64(time.Second))
	}
	p.loop.Hooks = append(p.loop.Hooks, &hooks.Hook{
		Name:    point + " (await_poll)",
		Type:    "approval",
		Event:   event,
		Timeout: timeout,
		Enabled: true,
		Source:  hooks.Source{Format: Name, Scope: "project", File: p.Path, Line: v.Line, Col: v.Column},
		Options: raw,
	})
}

var loopVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*)\}`) })

// loopTemplate rewrites the loop variables of a URL or header (${SESSION}, ${ITERATION},
// ${LOOP_ITERATION}, …) as payload placeholders ({{sessionId}}, {{iteration}}, …), through the
// one mapping of package seedfmt; any other ${VAR} stays for the environment.
func loopTemplate(s string) string {
	return loopVar().ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		if name == "SESSION" || name == "LOOP_SESSION" {
			return "{{sessionId}}"
		}
		for _, v := range seedfmt.Table {
			if v.Loop != "" && (name == v.Loop || name == v.LoopShell) {
				return fmt.Sprintf("{{%s}}", v.Keys[0])
			}
		}
		return m
	})
}
