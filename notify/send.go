package notify

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/autoagent/agent-hooks/internal/httpurl"
	"github.com/autoagent/agent-hooks/internal/httpx"
)

// Sender posts notification bodies to webhook URLs, retrying what a server asks to be retried.
// Webhook URLs carry their credentials (a Slack or Discord webhook URL is a bearer token), so no
// error a Sender returns contains the URL.
type Sender struct {
	// Client sends the requests; nil means a client of its own.
	Client *http.Client
	// Retries is how many times a failed delivery is retried (a network error, 429 or 5xx).
	Retries int
	// Backoff is the wait before the first retry (0: none); it doubles for each next one, up to
	// MaxBackoff (default 30s). A Retry-After header replaces it.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// RequestTimeout bounds each attempt (0: only ctx bounds it).
	RequestTimeout time.Duration
	// Sleep waits between attempts; nil sleeps for real. Tests record the waits with it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock a Retry-After date is read against; nil means time.Now.
	Now func() time.Time
	// UserAgent is sent with every request.
	UserAgent string
	// Method is the request's method; "" is POST.
	Method string
	// Header holds extra request headers (their values may be credentials: never shown).
	Header http.Header
}

// Delivery is what became of one notification.
type Delivery struct {
	StatusCode int // of the last response (0: none arrived)
	Attempts   int
}

var defaultClient = &http.Client{Timeout: 0}

// Post sends body as JSON to rawURL (with Method, POST by default). It retries a network error, 429 and 5xx up to s.Retries
// times and reports the last failure; any other 4xx fails at once.
func (s *Sender) Post(ctx context.Context, rawURL string, body []byte) (Delivery, error) {
	var d Delivery
	if err := httpurl.Check(rawURL); err != nil {
		return d, err
	}
	for {
		d.Attempts++
		wait, err := s.attempt(ctx, rawURL, body, &d)
		if err == nil {
			return d, nil
		}
		if wait < 0 || d.Attempts > s.Retries {
			if d.Attempts > 1 {
				err = fmt.Errorf("%w (after %d attempts)", err, d.Attempts)
			}
			return d, err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return d, fmt.Errorf("%w; not retrying: the next attempt (in %s) would pass the hook's timeout", err, wait.Round(time.Millisecond))
		}
		if serr := s.sleep(ctx, wait); serr != nil {
			return d, fmt.Errorf("%w; stopped waiting to retry: %w", err, serr)
		}
	}
}

// attempt makes one request. wait is the delay before a retry, or -1 when the failure is final.
func (s *Sender) attempt(ctx context.Context, rawURL string, body []byte, d *Delivery) (wait time.Duration, err error) {
	backoff := s.backoff(d.Attempts)
	actx := ctx
	if s.RequestTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, s.RequestTimeout)
		defer cancel()
	}
	method := s.Method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(actx, method, rawURL, bytes.NewReader(body))
	if err != nil {
		return -1, fmt.Errorf("build webhook request: %w", httpx.Redact(err, rawURL))
	}
	for k, v := range s.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	if s.UserAgent != "" {
		req.Header.Set("User-Agent", s.UserAgent)
	}
	client := s.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		err = fmt.Errorf("post webhook: %w", httpx.Redact(err, rawURL))
		if ctx.Err() != nil {
			return -1, err // the hook itself ran out of time or was interrupted
		}
		return backoff, err
	}
	defer resp.Body.Close()
	d.StatusCode = resp.StatusCode
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // let the connection be reused
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return 0, nil
	}
	err = fmt.Errorf("post webhook: HTTP %d%s", resp.StatusCode, describeBody(snippet, rawURL))
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return -1, err
	}
	if ra, ok := httpx.RetryAfter(resp.Header, s.now()); ok {
		return ra, err
	}
	return backoff, err
}

func describeBody(b []byte, rawURL string) string {
	// scrub before cutting, so that no prefix of the secret survives the cut
	s := httpx.Scrub(strings.Join(strings.Fields(string(b)), " "), rawURL)
	if s == "" {
		return ""
	}
	return ": " + truncate(s, 200)
}

func (s *Sender) backoff(attempt int) time.Duration {
	b := s.Backoff
	if b <= 0 {
		return 0
	}
	limit := s.MaxBackoff
	if limit <= 0 {
		limit = 30 * time.Second
	}
	for i := 1; i < attempt && b < limit; i++ {
		b *= 2
	}
	return min(b, limit)
}

func (s *Sender) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Sender) sleep(ctx context.Context, d time.Duration) error {
	if s.Sleep != nil {
		return s.Sleep(ctx, d)
	}
	return httpx.Sleep(ctx, d)
}
