// Package notify owns notifications to people: the `webhook` hook type, which posts an event's
// outcome to Slack, Discord, Teams or any JSON endpoint, and the user's webhooks file
// ($AUTOAGENT_HOME/webhooks.json, written by `agent-hooks notify setup`), whose entries fire on
// the events they list (see Format).
//
// A webhook URL is a credential: it is never printed, logged, put in an error or in a hook's
// result. Errors from net/http quote the URL they failed on, so every one is passed through Redact.
package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/httpurl"
	"github.com/autoagent/agent-hooks/notify/webhooks"
)

// TypeName is the hook type this package implements.
const TypeName = webhooks.TypeName

// DefaultRetries is how many times a webhook hook retries by default. Its durations' defaults
// are in hooks' table (DefaultWebhookBackoff, DefaultWebhookRequestTimeout).
const DefaultRetries = 3

// Type is the `webhook` hook type.
type Type struct {
	storePath string
	sleep     func(context.Context, time.Duration) error
	now       func() time.Time
}

// Option configures a Type.
type Option func(*Type)

// WithSleep replaces the wait between retries (tests record the waits instead of sleeping).
func WithSleep(f func(context.Context, time.Duration) error) Option {
	return func(t *Type) { t.sleep = f }
}

// WithClock sets the clock a Retry-After date is read against (default time.Now).
func WithClock(now func() time.Time) Option { return func(t *Type) { t.now = now } }

// NewType returns the webhook type. storePath is the webhooks file that the "webhook" option
// names entries of (webhooks.StorePath of $AUTOAGENT_HOME).
func NewType(storePath string, opts ...Option) *Type {
	t := &Type{storePath: storePath}
	for _, o := range opts {
		o(t)
	}
	return t
}

// options are a webhook hook's own fields. Exactly one of URL, URLEnv and Webhook says where to
// post.
type options struct {
	URL     string `json:"url"`     // the URL; ${VAR} is expanded from the environment
	URLEnv  string `json:"urlEnv"`  // the environment variable holding the URL
	Webhook string `json:"webhook"` // the name of an entry of the webhooks file
	Format  string `json:"format"`  // slack, discord, teams, json or agent-pipelines-slack (default: the entry's, else json)
	Title   string `json:"title"`   // message template; DefaultTitle when empty
	// Retries after a network error, 429 or 5xx (default 3); BackoffMs is the first wait
	// (default 500 ms, doubling); RequestTimeout bounds one attempt (default 10 s). Both are
	// milliseconds or a duration such as "2s". The hook's timeout bounds the whole delivery.
	Retries        *int            `json:"retries"`
	BackoffMs      *hooks.Duration `json:"backoffMs"`
	RequestTimeout *hooks.Duration `json:"requestTimeout"`
}

// Configure implements hooks.Type.
func (t *Type) Configure(h *hooks.Hook, raw json.RawMessage) (hooks.Task, error) {
	var o options
	if err := hooks.DecodeOptions(raw, &o); err != nil {
		return nil, fmt.Errorf("webhook options: %w", err)
	}
	set := 0
	for _, s := range []string{o.URL, o.URLEnv, o.Webhook} {
		if s != "" {
			set++
		}
	}
	if set != 1 {
		return nil, errors.New(`webhook: set exactly one of "url", "urlEnv" (an environment variable) or "webhook" (an entry made by agent-hooks notify setup)`)
	}
	if o.URL != "" && !strings.Contains(o.URL, "$") {
		if err := httpurl.Check(o.URL); err != nil {
			return nil, fmt.Errorf("url: %w", err)
		}
	}
	if o.Format != "" && !webhooks.ValidFormat(o.Format) {
		msg := fmt.Sprintf("format: unknown format %q (known: %s)", o.Format, strings.Join(webhooks.Formats(), ", "))
		if s := hooks.Suggest(o.Format, webhooks.Formats()); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return nil, errors.New(msg)
	}
	if o.Retries != nil && *o.Retries < 0 {
		return nil, errors.New("retries: must not be negative")
	}
	return &runner{t: t, hook: h, o: o}, nil
}

type runner struct {
	t    *Type
	hook *hooks.Hook
	o    options
}

// Run implements hooks.Task.
func (r *runner) Run(ctx context.Context, inv *hooks.Invocation) hooks.Outcome {
	timeout := r.hook.Timeout
	if timeout <= 0 {
		timeout = hooks.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	target, err := r.target(inv.Getenv)
	if err != nil {
		return hooks.Outcome{Status: hooks.StatusError, ExitCode: 1, Reason: err.Error()}
	}
	p := inv.Payload
	if _, ok := p["sessionId"]; !ok && inv.SessionID != "" {
		p = hooks.Payload{"sessionId": inv.SessionID}
		for k, v := range inv.Payload {
			p[k] = v
		}
	}
	title := r.o.Title
	if title == "" {
		title = target.Title
	}
	if title == "" && target.Format == webhooks.FormatPipelinesSlack {
		title = PipelinesSlackTitle
	}
	d, err := Deliver(ctx, r.t.sender(r.o), target, MessageFromPayload(inv.Event, p, title))
	details := map[string]any{"format": target.Format, "attempts": d.Attempts, "httpStatus": d.StatusCode}
	if target.Name != "" {
		details["webhook"] = target.Name
	}
	if err != nil {
		out := hooks.Outcome{Status: hooks.StatusError, ExitCode: 1, Reason: err.Error(), Details: details}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			out.Status = hooks.StatusTimeout
		}
		return out
	}
	msg := fmt.Sprintf("notified %s (%s, HTTP %d)\n", target.label(), target.Format, d.StatusCode)
	if inv.Stdout != nil {
		fmt.Fprint(inv.Stdout, msg)
	}
	return hooks.Outcome{Status: hooks.StatusOK, Stdout: msg, Details: details}
}

// Target is where a notification goes and in which format.
type Target struct {
	Name   string // the webhooks-file entry, if any
	Format string
	Title  string // the entry's title template, if any
	URL    string // secret
}

func (t Target) label() string {
	if t.Name != "" {
		return "webhook " + t.Name
	}
	return "webhook"
}

// String never shows the URL.
func (t Target) String() string { return t.label() + " (" + t.Format + ")" }

// GoString never shows the URL either.
func (t Target) GoString() string { return t.String() }

func (r *runner) target(getenv func(string) string) (Target, error) {
	tg := Target{Format: r.o.Format}
	switch {
	case r.o.Webhook != "":
		f, err := webhooks.ReadStore(r.t.storePath)
		if err != nil {
			return tg, err
		}
		e, ok := f.Webhooks[r.o.Webhook]
		if !ok {
			return tg, fmt.Errorf("webhook %q is not configured in %s (see agent-hooks notify list)", r.o.Webhook, r.t.storePath)
		}
		tg.Name, tg.Title = r.o.Webhook, e.Title
		if tg.Format == "" {
			tg.Format = e.Format
		}
		u, err := e.Resolve(getenv)
		if err != nil {
			return tg, fmt.Errorf("webhook %q: %w", r.o.Webhook, err)
		}
		tg.URL = u
	case r.o.URLEnv != "":
		tg.URL = getenv(r.o.URLEnv)
		if tg.URL == "" {
			return tg, fmt.Errorf("urlEnv: environment variable %s is not set", r.o.URLEnv)
		}
	default:
		var missing []string
		tg.URL = os.Expand(r.o.URL, func(k string) string {
			v := getenv(k)
			if v == "" {
				missing = append(missing, k)
			}
			return v
		})
		if len(missing) > 0 {
			return tg, fmt.Errorf("url: environment variable %s is not set", strings.Join(missing, ", "))
		}
	}
	if tg.Format == "" {
		tg.Format = webhooks.FormatJSON
	}
	return tg, nil
}

func (t *Type) sender(o options) *Sender {
	s := &Sender{
		Sleep:          t.sleep,
		Now:            t.now,
		Retries:        DefaultRetries,
		Backoff:        hooks.DefaultWebhookBackoff,
		RequestTimeout: hooks.DefaultWebhookRequestTimeout,
		UserAgent:      "agent-hooks",
	}
	if o.Retries != nil {
		s.Retries = *o.Retries
	}
	if o.BackoffMs != nil {
		s.Backoff = time.Duration(*o.BackoffMs)
	}
	if o.RequestTimeout != nil {
		s.RequestTimeout = time.Duration(*o.RequestTimeout)
	}
	return s
}

// Deliver renders msg in the target's format and posts it.
func Deliver(ctx context.Context, s *Sender, t Target, msg Message) (Delivery, error) {
	body, err := msg.Body(t.Format)
	if err != nil {
		return Delivery{}, err
	}
	return s.Post(ctx, t.URL, body)
}
