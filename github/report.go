package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// The hook types that report an event's outcome on the pull request.
const (
	TypeReview  = "github-review"
	TypeComment = "github-comment"
)

// An event's outcome is only known once its hooks ran, and the first block stops the remaining
// hooks, so github-review and github-comment are hooks.OutcomeReporters: the engine runs them after
// the event's other hooks, blocked or not, with the outcome in Invocation.Result.

// ReviewType is the github-review hook type: it posts the event's outcome as a pull-request
// review, APPROVE when it proceeds, REQUEST_CHANGES with the block reasons when it is blocked,
// COMMENT when a hook failed; "event" forces one of them.
type ReviewType struct{ Options Options }

// CommentType is the github-comment hook type: one sticky comment per pull request and event
// (or per "header", so that several workflows or jobs keep one each), found again by its hidden
// marker and its author, updated in place with a table of the hooks' results — or, with "hide",
// posted anew each time with the one it supersedes hidden as outdated.
type CommentType struct{ Options Options }

type reviewConfig struct {
	Event string `json:"event"`
	Body  string `json:"body"`
}

type commentConfig struct {
	Message string `json:"message"`
	Header  string `json:"header"` // which sticky comment: a template; default the event
	Hide    bool   `json:"hide"`   // post every report anew and hide the one it supersedes
}

// Configure implements hooks.Type.
func (t ReviewType) Configure(h *hooks.Hook, options json.RawMessage) (hooks.Task, error) {
	var c reviewConfig
	if err := hooks.DecodeOptions(options, &c); err != nil {
		return nil, err
	}
	if _, err := reviewEvent(c.Event); err != nil {
		return nil, err
	}
	return &reporter{opts: t.Options, review: &c}, nil
}

// Configure implements hooks.Type.
func (t CommentType) Configure(h *hooks.Hook, options json.RawMessage) (hooks.Task, error) {
	var c commentConfig
	if err := hooks.DecodeOptions(options, &c); err != nil {
		return nil, err
	}
	return &reporter{opts: t.Options, comment: &c}, nil
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

// reporter posts one github-review or github-comment hook.
type reporter struct {
	opts    Options
	review  *reviewConfig  // set for github-review
	comment *commentConfig // set for github-comment
}

// ReportsOutcome marks reporter as a hooks.OutcomeReporter.
func (*reporter) ReportsOutcome() {}

// Run implements hooks.Task.
func (r *reporter) Run(ctx context.Context, inv *hooks.Invocation) hooks.Outcome {
	client, err := NewClientFromEnv(inv.Getenv, r.opts)
	if err != nil {
		return failed(err)
	}
	t, err := ResolveTarget(ctx, client, inv.Getenv, inv.Workspace, inv.Payload)
	if err != nil {
		return failed(err)
	}
	res := inv.Result
	if res == nil {
		res = &hooks.Result{Event: inv.Event, Decision: hooks.DecisionApprove}
	}
	var details map[string]any
	if r.review != nil {
		details, err = r.postReview(ctx, client, t, inv, res)
	} else {
		details, err = r.postComment(ctx, client, t, inv, res)
	}
	if err != nil {
		return failed(err)
	}
	progress(inv.Stderr, "%s: %s", inv.Hook.Type, details["url"])
	return hooks.Outcome{Status: hooks.StatusOK, Details: details}
}

func (r *reporter) postReview(ctx context.Context, c *Client, t Target, inv *hooks.Invocation, res *hooks.Result) (map[string]any, error) {
	cfg := r.review
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
	body := OutcomeMarkdown(res, template.ExpandMessage(cfg.Body, inv.Payload))
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

func (r *reporter) postComment(ctx context.Context, c *Client, t Target, inv *hooks.Invocation, res *hooks.Result) (map[string]any, error) {
	marker := fmt.Sprintf("<!-- agent-hooks:comment event=%q -->", markerKey(inv.Event))
	if h := strings.TrimSpace(template.ExpandMessage(r.comment.Header, inv.Payload)); h != "" {
		marker = fmt.Sprintf("<!-- agent-hooks:comment header=%q -->", markerKey(h))
	}
	body := marker + "\n" + OutcomeMarkdown(res, template.ExpandMessage(r.comment.Message, inv.Payload))
	details := map[string]any{"pullRequest": t.Number, "repository": t.Repository()}
	prev, err := stickyComment(ctx, c, t, marker)
	if err != nil {
		return nil, err
	}
	var cm *gh.IssueComment
	switch {
	case prev != nil && !r.comment.Hide && prev.GetBody() == body:
		cm = prev
		details["updated"] = true // already up to date
	case prev != nil && !r.comment.Hide:
		if cm, err = c.EditComment(ctx, t, prev.GetID(), body); err != nil {
			return nil, err
		}
		details["updated"] = true
	default:
		if cm, err = c.CreateComment(ctx, t, body); err != nil {
			return nil, err
		}
		details["updated"] = false
	}
	details["comment"], details["url"] = cm.GetID(), cm.GetHTMLURL()
	if prev != nil && cm.GetID() != prev.GetID() {
		// Posted before hiding: the pull request always shows the latest report.
		if err := c.MinimizeComment(ctx, prev.GetNodeID()); err != nil {
			return nil, fmt.Errorf("posted %s, but could not hide the comment it supersedes (%s): %w", cm.GetHTMLURL(), prev.GetHTMLURL(), err)
		}
		details["hidden"] = prev.GetHTMLURL()
	}
	return details, nil
}

// stickyComment is the latest comment of the pull request that starts with marker and was
// made by the token's own account (nil: none yet).
func stickyComment(ctx context.Context, c *Client, t Target, marker string) (*gh.IssueComment, error) {
	comments, err := c.Comments(ctx, t, time.Time{})
	if err != nil {
		return nil, err
	}
	for i := len(comments) - 1; i >= 0; i-- {
		cm := comments[i]
		if !strings.HasPrefix(cm.GetBody(), marker+"\n") {
			continue
		}
		if self, err := c.IsSelf(ctx, cm.GetUser()); err != nil || self {
			if err != nil {
				return nil, err
			}
			return cm, nil
		}
	}
	return nil, nil
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
