package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
)

// The hook types that report an event's outcome on the pull request.
const (
	TypeReview  = "github-review"
	TypeComment = "github-comment"
)

// An event's outcome is only known once all of its hooks ran, and the first block stops the
// remaining hooks, so github-review and github-comment cannot do their work in their turn: in
// their turn they only say they will report, and the Reporter extension posts when the event's
// hooks are done (blocked or not) and fills in their results.

// ReviewType is the github-review hook type: it posts the event's outcome as a pull-request
// review, APPROVE when it proceeds, REQUEST_CHANGES with the block reasons when it is blocked,
// COMMENT when a hook failed; "event" forces one of them.
type ReviewType struct{}

// CommentType is the github-comment hook type: one sticky comment per pull request and event,
// found again by its hidden marker and its author, updated in place with a table of the hooks'
// results.
type CommentType struct{}

type reviewConfig struct {
	Event string `json:"event"`
	Body  string `json:"body"`
}

type commentConfig struct {
	Message string `json:"message"`
}

// Configure implements hooks.Type.
func (ReviewType) Configure(h *hooks.Hook, options json.RawMessage) (hooks.Runner, error) {
	var c reviewConfig
	if err := decodeStrict(options, &c); err != nil {
		return nil, err
	}
	if _, err := reviewEvent(c.Event); err != nil {
		return nil, err
	}
	return deferred{}, nil
}

// Configure implements hooks.Type.
func (CommentType) Configure(h *hooks.Hook, options json.RawMessage) (hooks.Runner, error) {
	var c commentConfig
	if err := decodeStrict(options, &c); err != nil {
		return nil, err
	}
	return deferred{}, nil
}

// reviewEvent normalises the "event" option; "" and "auto" pick from the outcome.
func reviewEvent(s string) (string, error) {
	switch e := strings.ToUpper(strings.TrimSpace(s)); e {
	case "", "AUTO":
		return "", nil
	case "APPROVE", "REQUEST_CHANGES", "COMMENT":
		return e, nil
	default:
		return "", fmt.Errorf("event: %q is not APPROVE, REQUEST_CHANGES, COMMENT or auto", s)
	}
}

// deferred is the turn of a reporting hook: the Reporter does the work after the event.
type deferred struct{}

func (deferred) Run(context.Context, *hooks.Invocation) hooks.Outcome {
	return hooks.Outcome{Status: hooks.StatusOK, Details: map[string]any{"deferred": "posted when the event's hooks are done"}}
}

// Reporter is the extension that posts github-review and github-comment hooks after their event.
type Reporter struct {
	getenv   func(string) string
	messages io.Writer
	opts     Options
}

// NewReporter returns the extension; getenv is the environment the hooks run with (the token,
// GITHUB_API_URL, the Actions context) and messages receives a line per report posted or failed
// (nil: none).
func NewReporter(getenv func(string) string, messages io.Writer, o Options) *Reporter {
	return &Reporter{getenv: getenv, messages: messages, opts: o}
}

// BeforeEvent implements hooks.Extension.
func (*Reporter) BeforeEvent(context.Context, *hooks.EventInfo) error { return nil }

// AfterEvent implements hooks.Extension: it posts every reporting hook of the event that was
// not skipped, including those a block kept from their turn.
func (r *Reporter) AfterEvent(ctx context.Context, e *hooks.EventInfo, res *hooks.Result) error {
	if e.Config == nil {
		return nil
	}
	var client *Client
	for _, h := range e.Config.Hooks[e.Event] {
		if h.Type != TypeReview && h.Type != TypeComment || !h.Enabled {
			continue
		}
		i := resultIndex(res, h)
		if i >= 0 && res.Hooks[i].Status == hooks.StatusSkipped {
			continue
		}
		start := r.opts.now()
		var (
			details map[string]any
			err     error
		)
		if client == nil {
			client, err = NewClientFromEnv(r.getenv, r.opts)
		}
		if err == nil {
			details, err = r.post(ctx, client, e, h, res)
		}
		hr := hooks.HookResult{
			Name: h.Name, Type: h.Type, Source: h.Source.Scope, Format: h.Source.Format, File: h.Source.File,
			Status: hooks.StatusOK, Details: details,
		}
		if i >= 0 {
			hr = res.Hooks[i]
			hr.Details = details
		}
		hr.DurationMs += r.opts.now().Sub(start).Milliseconds()
		switch {
		case err != nil && h.Blocking && hooks.CanBlock(e.Event) && !res.Blocked:
			hr.Status, hr.ExitCode, hr.Reason = hooks.StatusError, 1, err.Error()
			res.Decision, res.Blocked = hooks.DecisionBlock, true
			res.Reason = fmt.Sprintf("blocking hook %s failed: %s", h.Name, err)
		case err != nil:
			hr.Status, hr.ExitCode, hr.Reason = hooks.StatusError, 1, err.Error()
			msg := fmt.Sprintf("hook %s failed: %s", h.Name, err)
			res.Warnings = append(res.Warnings, msg)
			progress(r.messages, "agent-hooks: warning: %s", msg)
		default:
			progress(r.messages, "%s: %s", h.Type, details["url"])
		}
		if i >= 0 {
			res.Hooks[i] = hr
		} else {
			res.Hooks = append(res.Hooks, hr)
		}
	}
	return nil
}

// resultIndex finds the result line of h, if it ran in its turn.
func resultIndex(res *hooks.Result, h *hooks.Hook) int {
	for i, hr := range res.Hooks {
		if hr.Name == h.Name && hr.Type == h.Type && hr.File == h.Source.File {
			return i
		}
	}
	return -1
}

func (r *Reporter) post(ctx context.Context, c *Client, e *hooks.EventInfo, h *hooks.Hook, res *hooks.Result) (map[string]any, error) {
	t, err := FindTarget(r.getenv, e.Workspace, e.Payload)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, max(h.Timeout, 10*time.Second))
	defer cancel()
	if h.Type == TypeReview {
		var cfg reviewConfig
		_ = json.Unmarshal(h.Options, &cfg) // validated when the config was loaded
		return r.review(ctx, c, t, e, cfg, res)
	}
	var cfg commentConfig
	_ = json.Unmarshal(h.Options, &cfg)
	return r.comment(ctx, c, t, e, cfg, res)
}

func (r *Reporter) review(ctx context.Context, c *Client, t Target, e *hooks.EventInfo, cfg reviewConfig, res *hooks.Result) (map[string]any, error) {
	event, _ := reviewEvent(cfg.Event)
	if event == "" {
		event = "APPROVE"
		switch {
		case res.Blocked:
			event = "REQUEST_CHANGES"
		case hasFailures(res):
			event = "COMMENT"
		}
	}
	body := OutcomeMarkdown(res, hooks.ExpandMessage(cfg.Body, e.Payload))
	rv, err := c.CreateReview(ctx, t, "", event, body)
	var apiErr *APIError
	if err != nil && event != "COMMENT" && errors.As(err, &apiErr) && apiErr.Status == http.StatusUnprocessableEntity {
		// GitHub refuses APPROVE and REQUEST_CHANGES from GITHUB_TOKEN by default, and on one's own
		// pull request; the outcome still belongs on the pull request.
		note := fmt.Sprintf("\n\n_Posted as a comment: GitHub refused %s (%s)._", event, apiErr.Msg)
		event = "COMMENT"
		rv, err = c.CreateReview(ctx, t, "", event, body+note)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"pullRequest": t.Number, "repository": t.Repository(), "review": rv.GetID(), "event": event, "url": rv.GetHTMLURL()}, nil
}

func (r *Reporter) comment(ctx context.Context, c *Client, t Target, e *hooks.EventInfo, cfg commentConfig, res *hooks.Result) (map[string]any, error) {
	marker := fmt.Sprintf("<!-- agent-hooks:comment event=%q -->", markerKey(e.Event))
	body := marker + "\n" + OutcomeMarkdown(res, hooks.ExpandMessage(cfg.Message, e.Payload))
	comments, err := c.Comments(ctx, t, time.Time{})
	if err != nil {
		return nil, err
	}
	for i := len(comments) - 1; i >= 0; i-- {
		cm := comments[i]
		if !strings.HasPrefix(cm.GetBody(), marker) {
			continue
		}
		if self, err := c.IsSelf(ctx, cm.GetUser()); err != nil {
			return nil, err
		} else if !self {
			continue
		}
		if cm.GetBody() != body {
			if cm, err = c.EditComment(ctx, t, cm.GetID(), body); err != nil {
				return nil, err
			}
		}
		return map[string]any{"pullRequest": t.Number, "repository": t.Repository(), "comment": cm.GetID(), "updated": true, "url": cm.GetHTMLURL()}, nil
	}
	cm, err := c.CreateComment(ctx, t, body)
	if err != nil {
		return nil, err
	}
	return map[string]any{"pullRequest": t.Number, "repository": t.Repository(), "comment": cm.GetID(), "updated": false, "url": cm.GetHTMLURL()}, nil
}

func hasFailures(res *hooks.Result) bool {
	for _, h := range res.Hooks {
		if h.Status == hooks.StatusError || h.Status == hooks.StatusTimeout {
			return true
		}
	}
	return false
}

// OutcomeMarkdown is the body of a review, a sticky comment or a step summary: the event's
// outcome, a message, the block reason and the table of hooks.
func OutcomeMarkdown(res *hooks.Result, message string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### agent-hooks · %s: %s\n\n", res.Event, OutcomeWord(res))
	if message != "" {
		b.WriteString(message + "\n\n")
	}
	if res.Blocked && res.Reason != "" {
		fmt.Fprintf(&b, "**Blocked:** %s\n\n", cell(res.Reason, 2000))
	}
	if res.Feedback != "" {
		fmt.Fprintf(&b, "**Feedback:** %s\n\n", cell(res.Feedback, 2000))
	}
	b.WriteString(ResultsTable(res))
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "\n> ⚠️ %s", cell(w, 500))
	}
	if res.SessionID != "" {
		fmt.Fprintf(&b, "\n\n<sub>session `%s`</sub>", cell(res.SessionID, 100))
	}
	return b.String()
}

// OutcomeWord is how an event ended: "proceeds", "blocked" or "skipped".
func OutcomeWord(res *hooks.Result) string {
	switch {
	case res.Blocked:
		return "⛔ blocked"
	case res.Decision == hooks.DecisionSkip:
		return "⏭️ skip requested"
	}
	return "✅ proceeds"
}

var statusIcon = map[hooks.Status]string{
	hooks.StatusOK: "✅", hooks.StatusBlocked: "⛔", hooks.StatusError: "❌", hooks.StatusTimeout: "⌛", hooks.StatusSkipped: "⏭️",
}

// ResultsTable renders the hooks of an event as a markdown table (hook, type, status, duration,
// reason); the reporting hooks themselves are left out. Cells cannot break the table or carry
// HTML.
func ResultsTable(res *hooks.Result) string {
	var b strings.Builder
	b.WriteString("| Hook | Type | Status | Duration | Reason |\n|---|---|---|---:|---|\n")
	n := 0
	for _, h := range res.Hooks {
		if h.Type == TypeReview || h.Type == TypeComment {
			continue
		}
		n++
		fmt.Fprintf(&b, "| %s | %s | %s %s | %s | %s |\n", cell(h.Name, 200), cell(h.Type, 50), statusIcon[h.Status], h.Status,
			(time.Duration(h.DurationMs) * time.Millisecond).String(), cell(h.Reason, 300))
	}
	if n == 0 {
		b.WriteString("| _no hooks ran_ | | | | |\n")
	}
	return b.String()
}

// cell makes text safe for one markdown table cell: no pipes, no line breaks, no HTML (and so no
// hidden markers), at most limit characters.
func cell(s string, limit int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;", "`", "'").Replace(s)
}
