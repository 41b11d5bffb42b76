package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/internal/httpurl"
	"github.com/autoagent/agent-hooks/internal/httpx"
	"github.com/autoagent/agent-hooks/internal/progress"
)

// HTTPPoll is the "http-poll" approval provider, the agent-pipelines seed's await_poll: it GETs
// "url" every "interval" until the JSON answer matches "abortWhen" (block) or "successWhen"
// (approve), or the hook's timeout passes (timeoutAction). The conditions are Exprs
// (`.status == "approved"`). The URL and header values may carry credentials: they are never
// printed, and errors are redacted.
//
// Options (besides message and timeoutAction):
//
//	url          where to poll; ${VAR} is taken from the environment, {{key}} from the payload
//	             (percent-encoded)
//	headers      extra request headers, ${VAR} expanded (e.g. "Authorization": "Bearer ${TOKEN}")
//	interval     milliseconds between polls, or a duration string ("30s"); default 30s
//	successWhen  required: the condition that approves
//	abortWhen    the condition that rejects (checked first)
//	reasonFrom   an expression whose value is the reason reported (e.g. ".comment")
type HTTPPoll struct {
	Client *http.Client     // nil: a client of its own
	Now    func() time.Time // nil: time.Now
}

type httpPollConfig struct {
	Common
	URL         string            `json:"url"`
	Headers     map[string]string `json:"headers"`
	Interval    *hooks.Duration   `json:"interval"`
	SuccessWhen string            `json:"successWhen"`
	AbortWhen   string            `json:"abortWhen"`
	ReasonFrom  string            `json:"reasonFrom"`
}

type httpPollRunner struct {
	p        HTTPPoll
	c        httpPollConfig
	interval time.Duration
	success  *Expr
	abort    *Expr
	reason   *Expr
}

// Configure implements Provider.
func (p HTTPPoll) Configure(h *hooks.Hook, raw json.RawMessage) (hooks.Task, error) {
	var c httpPollConfig
	if err := DecodeOptions(raw, &c, &c.Common); err != nil {
		return nil, err
	}
	r := &httpPollRunner{p: p, c: c, interval: hooks.DefaultHTTPPollInterval}
	if c.URL == "" {
		return nil, errors.New(`http-poll: "url" is required`)
	}
	if !strings.ContainsAny(c.URL, "${") {
		if err := httpurl.Check(c.URL); err != nil {
			return nil, fmt.Errorf("url: %w", err)
		}
	}
	if c.Interval != nil {
		if *c.Interval < hooks.Duration(10*time.Millisecond) {
			return nil, errors.New("interval: must be at least 10 milliseconds")
		}
		r.interval = time.Duration(*c.Interval)
	}
	if c.SuccessWhen == "" {
		return nil, errors.New(`http-poll: "successWhen" is required, e.g. ".status == \"approved\""`)
	}
	var err error
	for _, e := range []struct {
		name, src string
		dst       **Expr
	}{{"successWhen", c.SuccessWhen, &r.success}, {"abortWhen", c.AbortWhen, &r.abort}, {"reasonFrom", c.ReasonFrom, &r.reason}} {
		if e.src == "" {
			continue
		}
		if *e.dst, err = CompileExpr(e.src); err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
	}
	return r, nil
}

func (p HTTPPoll) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Run implements hooks.Task.
func (r *httpPollRunner) Run(ctx context.Context, inv *hooks.Invocation) hooks.Outcome {
	start := r.p.now()
	by := DecideBy(ctx, inv.Hook, start)
	details := map[string]any{"provider": "http-poll"}
	target, headers, err := r.resolve(inv)
	if err != nil {
		return Undecided("http-poll", err, details)
	}
	fmt.Fprintf(inv.Stderr, "agent-hooks: waiting for approval (polling every %s until %s): %s\n",
		hooks.RoundDuration(r.interval), by.Format("15:04:05"), oneLine(r.c.Render(inv.Payload)))
	wait := progress.Start(inv.Progress, "approval (http-poll)", "")
	defer wait.Done()
	var last LastCheck
	for polls := 1; ; polls++ {
		details["polls"] = polls
		doc, retryAfter, status, err := r.poll(ctx, target, headers, by)
		details["httpStatus"] = status
		wait.Detail(pollDetail(polls, status, err))
		last.Record(err, !r.p.now().Before(by))
		switch {
		case err != nil && ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
			return Undecided("http-poll", errors.New("interrupted while polling for approval"), details)
		case err != nil && (status == http.StatusUnauthorized || status == http.StatusForbidden):
			return Undecided("http-poll", fmt.Errorf("%w: check the credentials in the url and headers", err), details)
		case err != nil:
		case r.abort != nil && r.abort.Match(doc):
			return r.answer(doc, false, "abortWhen", r.abort).Outcome(details)
		case r.success.Match(doc):
			return r.answer(doc, true, "successWhen", r.success).Outcome(details)
		}
		wait := max(r.interval, retryAfter)
		now := r.p.now()
		if !now.Add(wait).Before(by) {
			wait = by.Sub(now)
		}
		if wait <= 0 || httpx.Sleep(ctx, wait) != nil || !r.p.now().Before(by) {
			if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return Undecided("http-poll", errors.New("interrupted while polling for approval"), details)
			}
			waited := r.p.now().Sub(start)
			if err := last.Err(); err != nil {
				// Nobody knows what the failed poll would have said: timeoutAction is for a
				// wait that nobody answered, not for one that could not be checked.
				details["timedOut"] = true
				return Undecided("http-poll", fmt.Errorf("no decision within %s, and the last poll failed: %w", hooks.RoundDuration(waited), err), details)
			}
			return r.c.TimedOut(waited).Outcome(details)
		}
	}
}

func (r *httpPollRunner) answer(doc any, approved bool, which string, e *Expr) Answer {
	a := Answer{Approved: approved, Via: "http-poll"}
	if r.reason != nil {
		a.Reason = template.FormatValue(r.reason.Value(doc))
	}
	if a.Reason == "" {
		a.Reason = fmt.Sprintf("%s matched (%s)", which, e)
	}
	return a
}

// resolve expands the URL and headers of one run.
func (r *httpPollRunner) resolve(inv *hooks.Invocation) (string, http.Header, error) {
	var missing []string
	env := func(k string) string {
		v := inv.Getenv(k)
		if v == "" {
			missing = append(missing, k)
		}
		return v
	}
	target := template.ExpandMessage(os.Expand(r.c.URL, env), escapePayload(inv.Payload))
	headers := http.Header{}
	for k, v := range r.c.Headers {
		headers.Set(k, os.Expand(v, env))
	}
	if len(missing) > 0 {
		return "", nil, fmt.Errorf("http-poll: environment variable %s is not set", strings.Join(missing, ", "))
	}
	if err := httpurl.Check(target); err != nil {
		return "", nil, fmt.Errorf("http-poll url: %w", err)
	}
	return target, headers, nil
}

// poll makes one GET and decodes the JSON answer. retryAfter is the server's Retry-After.
func (r *httpPollRunner) poll(ctx context.Context, target string, headers http.Header, by time.Time) (doc any, retryAfter time.Duration, status int, err error) {
	ctx, cancel := context.WithDeadline(ctx, minTime(by, r.p.now().Add(30*time.Second)))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("build poll request: %w", httpx.Redact(err, target))
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "agent-hooks")
	client := r.p.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("poll: %w", httpx.Redact(err, target))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, 0, resp.StatusCode, fmt.Errorf("poll: read answer: %w", httpx.Redact(err, target))
	}
	retryAfter, _ = httpx.RetryAfter(resp.Header, r.p.now())
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, retryAfter, resp.StatusCode, fmt.Errorf("poll: HTTP %d", resp.StatusCode)
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, retryAfter, resp.StatusCode, fmt.Errorf("poll: the answer is not JSON: %w", err)
	}
	return doc, retryAfter, resp.StatusCode, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// escapePayload copies p with every scalar replaced by its percent-encoded text, for {{key}} in
// a URL: no payload value can add a path segment or a query parameter.
func escapePayload(p hooks.Payload) hooks.Payload {
	var esc func(v any) any
	esc = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			m := make(map[string]any, len(x))
			for k, e := range x {
				m[k] = esc(e)
			}
			return m
		case []any:
			a := make([]any, len(x))
			for i, e := range x {
				a[i] = esc(e)
			}
			return a
		default:
			return percentEncode(template.FormatValue(v))
		}
	}
	out := make(hooks.Payload, len(p))
	for k, v := range p {
		out[k] = esc(v)
	}
	return out
}

// percentEncode encodes every byte but RFC 3986's unreserved characters.
func percentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// pollDetail is the status of a wait after its polls: how many, and what the last one got.
func pollDetail(polls, status int, err error) string {
	switch {
	case err != nil && status != 0:
		return fmt.Sprintf("%d polls, the last HTTP %d", polls, status)
	case err != nil:
		return fmt.Sprintf("%d polls, the last failed", polls)
	}
	return fmt.Sprintf("%d polls, no decision yet", polls)
}
