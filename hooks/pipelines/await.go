package pipelines

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/seedfmt"
)

// DefaultAwaitTimeout bounds an await hook that sets no timeout (await_poll's poll.timeout,
// await_webhook's receive.timeout, await_input's timeout): the seed's examples wait a day for a
// human.
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

// awaitWebhook is the `type: await_webhook` hook of the seed's "Blocking Hooks (await)":
//
//	on_approval_required:
//	  type: await_webhook
//	  send:
//	    url: "${APPROVAL_WEBHOOK_URL}"
//	    method: POST
//	    headers: {Authorization: "Bearer ${TOKEN}"}   # agent-hooks' addition
//	    body:
//	      session: "${SESSION}"
//	      approve_url: "${CALLBACK_URL}/approve"
//	      reject_url: "${CALLBACK_URL}/reject"
//	  receive:
//	    port: 8765             # default: a free port
//	    host: 127.0.0.1        # agent-hooks' addition; the default
//	    public_url: https://…  # agent-hooks' addition: where the callback reaches the server
//	    timeout: 86400         # seconds (default a day)
//	    timeout_action: continue  # continue | abort (default abort)
//	  response_var: APPROVAL_RESPONSE
//
// It becomes an approval hook with the callback provider: ${CALLBACK_URL} is the URL the
// provider makes for the request (with its token), the loop variables are bound to the payload,
// other ${VAR}s come from the environment.
type awaitWebhook struct {
	Send struct {
		URL     string            `yaml:"url"`
		Method  string            `yaml:"method"`
		Headers map[string]string `yaml:"headers"`
		Body    yaml.Node         `yaml:"body"`
	} `yaml:"send"`
	Receive struct {
		Port          int     `yaml:"port"`
		Host          string  `yaml:"host"`
		PublicURL     string  `yaml:"public_url"`
		Timeout       float64 `yaml:"timeout"`
		TimeoutAction string  `yaml:"timeout_action"`
	} `yaml:"receive"`
	ResponseVar string `yaml:"response_var"`
}

// awaitInput is the `type: await_input` hook ("wait for file/stdin input"), whose shape the seed
// leaves open; agent-hooks reads:
//
//	on_approval_required:
//	  type: await_input
//	  prompt: "Plan ready for ${SESSION}: approve?"
//	  file: ".claude/pipeline-runs/${SESSION}/approval"   # the answer file (optional)
//	  stdin: true            # read standard input (default: true without a file)
//	  timeout: 3600          # seconds (default a day)
//	  timeout_action: abort  # continue | abort (default abort)
//	  response_var: APPROVAL_RESPONSE
//
// It becomes an approval hook with the input provider.
type awaitInput struct {
	Prompt        string  `yaml:"prompt"`
	File          string  `yaml:"file"`
	Stdin         *bool   `yaml:"stdin"`
	Timeout       float64 `yaml:"timeout"`
	TimeoutAction string  `yaml:"timeout_action"`
	ResponseVar   string  `yaml:"response_var"`
}

// awaitKeys are the keys each structured hook type reads, by level ("" the hook itself); other
// keys are warned about.
var awaitKeys = map[string]map[string][]string{
	"await_poll":    {"": {"type", "poll"}, "poll": {"url", "interval", "timeout", "success_when", "abort_when", "timeout_action", "headers"}},
	"await_webhook": {"": {"type", "send", "receive", "response_var"}, "send": {"url", "method", "headers", "body"}, "receive": {"port", "host", "public_url", "timeout", "timeout_action"}},
	"await_input":   {"": {"type", "prompt", "file", "stdin", "timeout", "timeout_action", "response_var"}},
}

// parseAwait turns a structured hook (a mapping with a type) into an approval hook.
func (p *parser) parseAwait(point, event string, v *yaml.Node) {
	typ := ""
	for j := 0; j+1 < len(v.Content); j += 2 {
		if v.Content[j].Value == "type" {
			typ = v.Content[j+1].Value
		}
	}
	keys, ok := awaitKeys[typ]
	if !ok {
		if typ == "" {
			p.Errorf(v, "hooks.%s: a structured hook needs a type (await_webhook, await_input or await_poll)", point)
		} else {
			p.Errorf(v, "hooks.%s: %s", point, seedfmt.UnknownKey("hook type", typ, []string{"await_webhook", "await_input", "await_poll"}))
		}
		return
	}
	p.warnUnknownKeys(point, v, keys)
	var (
		opts    map[string]any
		timeout time.Duration
		err     error
	)
	switch typ {
	case "await_poll":
		opts, timeout, err = p.awaitPoll(v)
	case "await_webhook":
		opts, timeout, err = p.awaitWebhook(v)
	case "await_input":
		opts, timeout, err = p.awaitInput(v)
	}
	if err != nil {
		p.Errorf(v, "hooks.%s: %s %v", point, typ, err)
		return
	}
	raw, err := json.Marshal(opts)
	if err != nil {
		p.Errorf(v, "hooks.%s: %s: %v", point, typ, err)
		return
	}
	if timeout <= 0 {
		timeout = DefaultAwaitTimeout
	}
	p.loop.Hooks = append(p.loop.Hooks, &hooks.Hook{
		Name:    point + " (" + typ + ")",
		Type:    "approval",
		Event:   event,
		Timeout: timeout,
		Enabled: true,
		Source:  hooks.Source{Format: Name, Scope: "project", File: p.Path, Line: v.Line, Col: v.Column},
		Options: raw,
	})
}

// warnUnknownKeys warns about the keys of a structured hook that agent-hooks does not read.
func (p *parser) warnUnknownKeys(point string, v *yaml.Node, keys map[string][]string) {
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, val := v.Content[j], v.Content[j+1]
		if !slices.Contains(keys[""], k.Value) {
			p.Warnf(k, "hooks.%s: %s", point, seedfmt.UnknownKey("key", k.Value, keys[""]))
			continue
		}
		sub, ok := keys[k.Value]
		if !ok || val.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(val.Content); i += 2 {
			if kk := val.Content[i]; !slices.Contains(sub, kk.Value) {
				p.Warnf(kk, "hooks.%s.%s: %s", point, k.Value, seedfmt.UnknownKey("key", kk.Value, sub))
			}
		}
	}
}

func (p *parser) awaitPoll(v *yaml.Node) (map[string]any, time.Duration, error) {
	var a awaitPoll
	if err := v.Decode(&a); err != nil {
		return nil, 0, err
	}
	switch {
	case a.Poll.URL == "":
		return nil, 0, errors.New("needs poll.url")
	case a.Poll.SuccessWhen == "" && a.Poll.AbortWhen == "":
		return nil, 0, errors.New("needs poll.success_when or poll.abort_when")
	case a.Poll.Interval < 0 || a.Poll.Timeout < 0:
		return nil, 0, errors.New("interval and timeout are positive numbers of seconds")
	}
	action, err := timeoutAction(a.Poll.TimeoutAction)
	if err != nil {
		return nil, 0, err
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
		opts["headers"] = loopTemplates(a.Poll.Headers)
	}
	return opts, seconds(a.Poll.Timeout), nil
}

func (p *parser) awaitWebhook(v *yaml.Node) (map[string]any, time.Duration, error) {
	var a awaitWebhook
	if err := v.Decode(&a); err != nil {
		return nil, 0, err
	}
	r := a.Receive
	switch {
	case a.Send.URL == "":
		return nil, 0, errors.New("needs send.url")
	case r.Port < 0 || r.Port > 65535:
		return nil, 0, fmt.Errorf("receive.port %d is not a port", r.Port)
	case r.Timeout < 0:
		return nil, 0, errors.New("receive.timeout is a positive number of seconds")
	}
	action, err := timeoutAction(r.TimeoutAction)
	if err != nil {
		return nil, 0, fmt.Errorf("receive.%w", err)
	}
	host := r.Host
	if host == "" {
		host = "127.0.0.1"
	}
	opts := map[string]any{
		"provider":      "callback",
		"message":       "Approve {{eventName}} of agent-pipelines session {{sessionId}}?",
		"url":           loopTemplate(a.Send.URL),
		"listen":        joinHostPort(host, strconv.Itoa(r.Port)),
		"timeoutAction": action,
	}
	if a.Send.Method != "" {
		opts["method"] = a.Send.Method
	}
	if len(a.Send.Headers) > 0 {
		opts["headers"] = loopTemplates(a.Send.Headers)
	}
	if r.PublicURL != "" {
		opts["publicUrl"] = r.PublicURL
	}
	if !a.Send.Body.IsZero() && !seedfmt.IsNull(&a.Send.Body) {
		var body any
		if err := a.Send.Body.Decode(&body); err != nil {
			return nil, 0, fmt.Errorf("send.body: %w", err)
		}
		body, err := bodyTemplate(body)
		if err != nil {
			return nil, 0, fmt.Errorf("send.body: %w", err)
		}
		opts["body"] = body
	}
	if a.ResponseVar != "" {
		opts["responseVar"] = a.ResponseVar
		p.loop.Vars = append(p.loop.Vars, a.ResponseVar)
	}
	return opts, seconds(r.Timeout), nil
}

func (p *parser) awaitInput(v *yaml.Node) (map[string]any, time.Duration, error) {
	var a awaitInput
	if err := v.Decode(&a); err != nil {
		return nil, 0, err
	}
	if a.Timeout < 0 {
		return nil, 0, errors.New("timeout is a positive number of seconds")
	}
	action, err := timeoutAction(a.TimeoutAction)
	if err != nil {
		return nil, 0, err
	}
	opts := map[string]any{"provider": "input", "timeoutAction": action}
	if a.Prompt != "" {
		opts["message"] = loopTemplate(a.Prompt)
	}
	if a.File != "" {
		opts["file"] = loopTemplate(a.File)
	}
	if a.Stdin != nil {
		opts["stdin"] = *a.Stdin
	}
	if a.ResponseVar != "" {
		opts["responseVar"] = a.ResponseVar
		p.loop.Vars = append(p.loop.Vars, a.ResponseVar)
	}
	return opts, seconds(a.Timeout), nil
}

// timeoutAction maps the seed's timeout_action onto the approval's: continue approves, abort (the
// default: an await nobody answered does not let the loop on) blocks.
func timeoutAction(s string) (string, error) {
	switch s {
	case "", "abort":
		return hooks.DecisionBlock, nil
	case "continue":
		return hooks.DecisionApprove, nil
	}
	return "", fmt.Errorf("timeout_action %q is not continue or abort", s)
}

// seconds is a timeout of the seed's, in seconds (0: none given).
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func loopTemplates(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = loopTemplate(v)
	}
	return out
}

// bodyTemplate rewrites the strings of an await_webhook body for the callback provider:
// ${CALLBACK_URL} becomes its {{callbackUrl}}, the loop variables payload placeholders
// (loopTemplate); other ${VAR}s stay for the environment.
func bodyTemplate(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return loopTemplate(strings.ReplaceAll(x, "${CALLBACK_URL}", "{{callbackUrl}}")), nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			t, err := bodyTemplate(e)
			if err != nil {
				return nil, err
			}
			out[k] = t
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			t, err := bodyTemplate(e)
			if err != nil {
				return nil, err
			}
			out[i] = t
		}
		return out, nil
	case map[any]any:
		return nil, errors.New("a mapping with a key that is not a string")
	}
	return v, nil
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

// joinHostPort is net.JoinHostPort, written out: this package is part of the lean program, which
// links no network package for one string function.
func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}
