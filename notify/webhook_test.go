package notify

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/notify/webhooks"
)

// recorder is a webhook endpoint that records what it receives and answers with the next status
// of a script (the last one repeats).
type recorder struct {
	mu       sync.Mutex
	bodies   []string
	types    []string
	statuses []int
	header   http.Header // added to every response
	n        int
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.bodies = append(r.bodies, string(b))
	r.types = append(r.types, req.Method+" "+req.Header.Get("Content-Type"))
	status := http.StatusOK
	if len(r.statuses) > 0 {
		status = r.statuses[min(r.n, len(r.statuses)-1)]
	}
	r.n++
	r.mu.Unlock()
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	io.WriteString(w, "ok")
}

func (r *recorder) received() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...)
}

func newHook(t *testing.T, typ *Type, opts string) hooks.Task {
	t.Helper()
	// Long enough for the Retry-After waits the tests record instead of sleeping.
	h := &hooks.Hook{Name: "notify", Type: TypeName, Timeout: 10 * time.Minute, Enabled: true}
	r, err := typ.Configure(h, json.RawMessage(opts))
	if err != nil {
		t.Fatalf("configure %s: %v", opts, err)
	}
	return r
}

func invocation(event string, p hooks.Payload, env map[string]string) *hooks.Invocation {
	return &hooks.Invocation{
		Event:     event,
		Payload:   p,
		SessionID: "session-1-abcdef",
		Getenv:    func(k string) string { return env[k] },
		Stdout:    io.Discard,
		Stderr:    io.Discard,
	}
}

func TestWebhookBodies(t *testing.T) {
	t.Parallel()
	payload := hooks.Payload{
		"eventName": "SessionEnd", "sessionId": "session-1700000000000-ab12cd",
		"status": "failed", "iterations": float64(12), "durationMs": float64(90500),
		"reason": `tests failed: "auth" <suite> & more`,
	}
	tests := []struct {
		format string
		want   string
	}{
		{"slack", `{"text":"agent-hooks: SessionEnd in session session-1700000000000-ab12cd (failed)","attachments":[{"color":"danger","fallback":"agent-hooks: SessionEnd in session session-1700000000000-ab12cd (failed)","title":"agent-hooks: SessionEnd in session session-1700000000000-ab12cd (failed)","fields":[{"title":"Session","value":"session-1700000000000-ab12cd","short":true},{"title":"Event","value":"SessionEnd","short":true},{"title":"Status","value":"failed","short":true},{"title":"Iterations","value":"12","short":true},{"title":"Duration","value":"1m31s","short":true},{"title":"Reason","value":"tests failed: \"auth\" <suite> & more","short":false}]}]}`},
		{"discord", `{"content":"agent-hooks: SessionEnd in session session-1700000000000-ab12cd (failed)","embeds":[{"title":"agent-hooks: SessionEnd in session session-1700000000000-ab12cd (failed)","color":15158332,"fields":[{"name":"Session","value":"session-1700000000000-ab12cd","inline":true},{"name":"Event","value":"SessionEnd","inline":true},{"name":"Status","value":"failed","inline":true},{"name":"Iterations","value":"12","inline":true},{"name":"Duration","value":"1m31s","inline":true},{"name":"Reason","value":"tests failed: \"auth\" <suite> & more","inline":false}]}]}`},
		{"teams", `{"type":"message","attachments":[{"contentType":"application/vnd.microsoft.card.adaptive","content":{"$schema":"http://adaptivecards.io/schemas/adaptive-card.json","type":"AdaptiveCard","version":"1.4","body":[{"type":"TextBlock","text":"agent-hooks: SessionEnd in session session-1700000000000-ab12cd (failed)","weight":"Bolder","size":"Medium","color":"Attention","wrap":true},{"type":"FactSet","facts":[{"title":"Session","value":"session-1700000000000-ab12cd"},{"title":"Event","value":"SessionEnd"},{"title":"Status","value":"failed"},{"title":"Iterations","value":"12"},{"title":"Duration","value":"1m31s"},{"title":"Reason","value":"tests failed: \"auth\" <suite> & more"}]}]}}]}`},
		{"agent-pipelines-slack", `{"attachments":[{"color":"danger","title":"Loop session-1700000000000-ab12cd failed","fields":[{"title":"Iterations","value":"12","short":true},{"title":"Duration","value":"90.5","short":true}]}]}`},
		{"json", `{"title":"agent-hooks: SessionEnd in session session-1700000000000-ab12cd (failed)","session":"session-1700000000000-ab12cd","event":"SessionEnd","status":"failed","iterations":12,"duration":"1m31s","reason":"tests failed: \"auth\" <suite> & more"}`},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{}
			srv := httptest.NewServer(rec)
			defer srv.Close()
			r := newHook(t, NewType(""), `{"url":"`+srv.URL+`/hook","format":"`+tt.format+`"}`)
			out := r.Run(context.Background(), invocation(hooks.SessionEnd, payload, nil))
			if out.Status != hooks.StatusOK {
				t.Fatalf("status %s (%s), want ok", out.Status, out.Reason)
			}
			got := rec.received()
			if len(got) != 1 {
				t.Fatalf("server got %d requests, want 1", len(got))
			}
			if got[0] != tt.want {
				t.Errorf("body:\n got %s\nwant %s", got[0], tt.want)
			}
			if rec.types[0] != "POST application/json" {
				t.Errorf("request: got %q, want POST application/json", rec.types[0])
			}
			if want := "notified webhook (" + tt.format + ", HTTP 200)\n"; out.Stdout != want {
				t.Errorf("stdout: got %q, want %q", out.Stdout, want)
			}
		})
	}
}

func TestMessageFromPayload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		event string
		p     hooks.Payload
		title string
		want  Message
	}{
		{
			// The AutoAgent seed's PostExecutionEnd payload: duration is in milliseconds.
			name: "success and iteration", event: hooks.PostExecutionEnd,
			p:    hooks.Payload{"sessionId": "s", "success": true, "iteration": float64(3), "duration": float64(45000)},
			want: Message{Title: "agent-hooks: PostExecutionEnd in session s (completed)", Session: "s", Event: hooks.PostExecutionEnd, Status: "completed", Iterations: "3", Duration: "45s", Name: "s", Seconds: "45"},
		},
		{
			name: "durationSeconds", event: hooks.SessionEnd,
			p:    hooks.Payload{"sessionId": "s", "durationSeconds": float64(42)},
			want: Message{Title: "agent-hooks: SessionEnd in session s (completed)", Session: "s", Event: hooks.SessionEnd, Status: "completed", Duration: "42s", Name: "s", Seconds: "42"},
		},
		{
			name: "error event and error field", event: hooks.Error,
			p:    hooks.Payload{"sessionId": "s", "error": "boom", "metadata": map[string]any{"totalDuration": float64(3_600_000)}},
			want: Message{Title: "agent-hooks: Error in session s (failed)", Session: "s", Event: hooks.Error, Status: "failed", Duration: "1h0m0s", Reason: "boom", Name: "s", Seconds: "3600"},
		},
		{
			// agent-pipelines' session by its name, and its duration in seconds (LOOP_DURATION).
			name: "session name and seconds", event: hooks.SessionEnd,
			p:     hooks.Payload{"sessionId": "s", "sessionName": "auth", "duration": float64(1500)},
			title: PipelinesSlackTitle,
			want:  Message{Title: "Loop auth completed", Session: "s", Event: hooks.SessionEnd, Status: "completed", Duration: "1.5s", Name: "auth", Seconds: "1.5"},
		},
		{
			name: "custom title with payload values verbatim", event: hooks.SessionStart,
			p:     hooks.Payload{"sessionId": "s", "issueTitle": "Fix $(rm -rf /) `x`", "duration": "about 5 minutes"},
			title: "{{status}}: #{{issueNumber}} {{issueTitle}} after {{duration}}",
			want:  Message{Title: "running: #{{issueNumber}} Fix $(rm -rf /) `x` after about 5 minutes", Session: "s", Event: hooks.SessionStart, Status: "running", Duration: "about 5 minutes", Name: "s", Seconds: "about 5 minutes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := MessageFromPayload(tt.event, tt.p, tt.title); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestWebhookRetries(t *testing.T) {
	t.Parallel()
	// The clock is fixed, so a Retry-After date is an exact wait, whenever and however slowly
	// the test runs.
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	date := now.Add(90 * time.Second).Format(http.TimeFormat)
	tests := []struct {
		name      string
		statuses  []int
		header    http.Header
		retries   int
		backoff   string // backoffMs as written (default 100)
		wantOK    bool
		wantCalls int
		wantWaits []time.Duration
		wantErr   string
	}{
		{name: "5xx then success, doubling backoff", statuses: []int{503, 502, 200}, retries: 3, wantOK: true, wantCalls: 3,
			wantWaits: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}},
		{name: "429 honours Retry-After seconds", statuses: []int{429, 200}, header: http.Header{"Retry-After": {"7"}}, retries: 3, wantOK: true, wantCalls: 2,
			wantWaits: []time.Duration{7 * time.Second}},
		{name: "503 honours Retry-After date", statuses: []int{503, 200}, header: http.Header{"Retry-After": {date}}, retries: 1, wantOK: true, wantCalls: 2,
			wantWaits: []time.Duration{90 * time.Second}},
		{name: "gives up after retries", statuses: []int{500}, retries: 2, wantCalls: 3,
			wantWaits: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, wantErr: "post webhook: HTTP 500: ok (after 3 attempts)"},
		{name: "4xx is final", statuses: []int{404}, retries: 3, wantCalls: 1, wantErr: "post webhook: HTTP 404: ok"},
		{name: "backoffMs as a duration", statuses: []int{503, 502, 200}, retries: 3, backoff: `"0.25s"`, wantOK: true, wantCalls: 3,
			wantWaits: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{statuses: tt.statuses, header: tt.header}
			srv := httptest.NewServer(rec)
			defer srv.Close()
			var waits []time.Duration
			typ := NewType("", WithSleep(func(_ context.Context, d time.Duration) error {
				waits = append(waits, d)
				return nil
			}), WithClock(func() time.Time { return now }))
			backoff := cmp.Or(tt.backoff, "100")
			r := newHook(t, typ, `{"url":"`+srv.URL+`","retries":`+strconv.Itoa(tt.retries)+`,"backoffMs":`+backoff+`}`)
			out := r.Run(context.Background(), invocation(hooks.Error, hooks.Payload{}, nil))
			if got := len(rec.received()); got != tt.wantCalls {
				t.Errorf("requests: got %d, want %d", got, tt.wantCalls)
			}
			if (out.Status == hooks.StatusOK) != tt.wantOK {
				t.Errorf("status %s (%s), want ok=%v", out.Status, out.Reason, tt.wantOK)
			}
			if tt.wantErr != "" && out.Reason != tt.wantErr {
				t.Errorf("reason: got %q, want %q", out.Reason, tt.wantErr)
			}
			if !slices.Equal(waits, tt.wantWaits) {
				t.Errorf("waits: got %v, want %v", waits, tt.wantWaits)
			}
			if got := out.Details["attempts"]; got != tt.wantCalls {
				t.Errorf("details.attempts: got %v, want %d", got, tt.wantCalls)
			}
		})
	}
}

// TestWebhookRealBackoff runs the retry path with real waits.
func TestWebhookRealBackoff(t *testing.T) {
	t.Parallel()
	rec := &recorder{statuses: []int{500, 500, 204}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	r := newHook(t, NewType(""), `{"url":"`+srv.URL+`","backoffMs":20}`)
	start := time.Now()
	out := r.Run(context.Background(), invocation(hooks.Error, hooks.Payload{}, nil))
	if out.Status != hooks.StatusOK {
		t.Fatalf("status %s: %s", out.Status, out.Reason)
	}
	if el := time.Since(start); el < 60*time.Millisecond {
		t.Errorf("three attempts with 20ms+40ms backoff took %v", el)
	}
}

func TestWebhookRetryAfterBeyondTimeout(t *testing.T) {
	t.Parallel()
	rec := &recorder{statuses: []int{429}, header: http.Header{"Retry-After": {"3600"}}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	r := newHook(t, NewType(""), `{"url":"`+srv.URL+`"}`)
	out := r.Run(context.Background(), invocation(hooks.Error, hooks.Payload{}, nil))
	if out.Status != hooks.StatusError || !strings.Contains(out.Reason, "would pass the hook's timeout") {
		t.Errorf("got %s %q, want an error that gives up before the timeout", out.Status, out.Reason)
	}
	if n := len(rec.received()); n != 1 {
		t.Errorf("requests: got %d, want 1", n)
	}
}

const secretPath = "/services/T000/B000/XXXXsecretTOKENxxxx"

func TestWebhookURLNeverShown(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: the connection is refused and net/http's *url.Error quotes the URL.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + l.Addr().String() + secretPath
	l.Close()

	hang := httptest.NewServer(hangHandler())
	t.Cleanup(hang.Close)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "invalid_token for https://"+r.Host+r.URL.Path)
	}))
	t.Cleanup(echo.Close)

	tests := []struct {
		name       string
		opts       string
		env        map[string]string
		wantStatus hooks.Status
		wantReason string // a substring
	}{
		{"connection refused", `{"url":"` + closedURL + `","retries":1,"backoffMs":1}`, nil, hooks.StatusError, "connection refused"},
		{"via urlEnv", `{"urlEnv":"SLACK_URL","retries":0}`, map[string]string{"SLACK_URL": closedURL}, hooks.StatusError, "connection refused"},
		{"via ${VAR}", `{"url":"${HOOK_BASE}` + secretPath + `","retries":0}`, map[string]string{"HOOK_BASE": "http://" + l.Addr().String()}, hooks.StatusError, "connection refused"},
		{"timeout", `{"url":"` + hang.URL + secretPath + `","requestTimeout":100,"retries":0}`, nil, hooks.StatusError, "deadline exceeded"},
		{"server echoes the url", `{"url":"` + echo.URL + secretPath + `"}`, nil, hooks.StatusError, "HTTP 400: invalid_token for https://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newHook(t, NewType(""), tt.opts)
			out := r.Run(context.Background(), invocation(hooks.Error, hooks.Payload{}, tt.env))
			if out.Status != tt.wantStatus || !strings.Contains(out.Reason, tt.wantReason) {
				t.Errorf("got %s %q, want %s containing %q", out.Status, out.Reason, tt.wantStatus, tt.wantReason)
			}
			all, _ := json.Marshal(out)
			if strings.Contains(string(all), "secretTOKEN") {
				t.Errorf("the outcome shows the webhook URL: %s", all)
			}
		})
	}
}

// hangHandler never answers; it returns when the client goes away (which the server notices only
// once the request body has been read).
func hangHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
}

func TestWebhookHookTimeout(t *testing.T) {
	t.Parallel()
	hang := httptest.NewServer(hangHandler())
	defer hang.Close()
	h := &hooks.Hook{Name: "n", Type: TypeName, Timeout: 150 * time.Millisecond}
	r, err := NewType("").Configure(h, json.RawMessage(`{"url":"`+hang.URL+secretPath+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := r.Run(context.Background(), invocation(hooks.Error, hooks.Payload{}, nil))
	if out.Status != hooks.StatusTimeout {
		t.Errorf("status %s (%s), want timeout", out.Status, out.Reason)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("a 150ms hook timeout took %v", el)
	}
	if strings.Contains(out.Reason, "secretTOKEN") {
		t.Errorf("reason shows the URL: %q", out.Reason)
	}
}

func TestWebhookConfigure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opts, wantErr string
	}{
		{`{}`, `set exactly one of "url", "urlEnv"`},
		{`{"url":"https://x.test/a","urlEnv":"X"}`, `set exactly one of`},
		{`{"url":"https://x.test/a","fromat":"slack"}`, `unknown field "fromat"`},
		{`{"url":"https://x.test/a","format":"slak"}`, `format: unknown format "slak" (known: slack, discord, teams, json, agent-pipelines-slack); did you mean "slack"?`},
		{`{"url":"ftp://hooks.test/secretTOKEN"}`, `url: must be an absolute http:// or https:// URL (not shown: it is a secret)`},
		{`{"url":"https://x.test/a","retries":-1}`, `retries: must not be negative`},
		{`{"url":"https://x.test/a","backoffMs":-1}`, `backoffMs: must not be negative, got -1`},
		{`{"url":"https://x.test/a","requestTimeout":"soon"}`, `requestTimeout: want milliseconds or a duration such as "30s", got "soon"`},
	}
	for _, tt := range tests {
		_, err := NewType("").Configure(&hooks.Hook{}, json.RawMessage(tt.opts))
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: got error %v, want one containing %q", tt.opts, err, tt.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "secretTOKEN") {
			t.Errorf("%s: the error shows the URL: %v", tt.opts, err)
		}
	}
}

func TestWebhookMissingEnv(t *testing.T) {
	t.Parallel()
	for _, opts := range []string{`{"urlEnv":"NOPE"}`, `{"url":"${NOPE}/x"}`} {
		r := newHook(t, NewType(""), opts)
		out := r.Run(context.Background(), invocation(hooks.Error, hooks.Payload{}, nil))
		if out.Status != hooks.StatusError || !strings.Contains(out.Reason, "environment variable NOPE is not set") {
			t.Errorf("%s: got %s %q", opts, out.Status, out.Reason)
		}
	}
}

// TestWebhooksFileHooksRun: the hooks the webhooks file becomes run through the webhook type,
// which reads the entry when it runs.
func TestWebhooksFileHooksRun(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := webhooks.StorePath(home)
	content := `{"webhooks": {"team": {"format": "discord", "urlEnv": "DISCORD_URL", "events": ["finished"]}}}`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	loaded, err := webhooks.NewFormat().Load(hooks.LoadEnv{AutoagentHome: home})
	if err != nil || len(loaded.Hooks) != 1 {
		t.Fatalf("load: %+v, %v", loaded, err)
	}
	h := loaded.Hooks[0]
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	r, err := NewType(path).Configure(h, h.Options)
	if err != nil {
		t.Fatal(err)
	}
	h.Timeout = 0
	inv := invocation(hooks.SessionEnd, hooks.Payload{"sessionId": "s1"}, map[string]string{"DISCORD_URL": srv.URL})
	inv.Hook = h
	if out := r.Run(context.Background(), inv); out.Status != hooks.StatusOK || out.Details["webhook"] != "team" {
		t.Fatalf("run: %s %q %v", out.Status, out.Reason, out.Details)
	}
	var body discordBody
	if b := rec.received(); len(b) != 1 || json.Unmarshal([]byte(b[0]), &body) != nil || len(body.Embeds) != 1 {
		t.Errorf("want one discord body, got %q", b)
	}
}
