package approval

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
)

// approvalAPI answers polls with the next of its answers (the last repeats) and records requests.
type approvalAPI struct {
	mu      sync.Mutex
	answers []answer
	seen    []*http.Request
}

type answer struct {
	status int
	body   string
}

func (a *approvalAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	ans := a.answers[min(len(a.seen), len(a.answers)-1)]
	a.seen = append(a.seen, r)
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ans.status)
	io.WriteString(w, ans.body)
}

func (a *approvalAPI) requests() []*http.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*http.Request(nil), a.seen...)
}

func pollRunner(t *testing.T, timeout time.Duration, opts string) (hooks.Task, *hooks.Hook) {
	t.Helper()
	h := &hooks.Hook{Name: "await", Type: TypeName, Event: hooks.ApprovalRequired, Timeout: timeout, Enabled: true}
	opts = `{"provider": "http-poll", ` + strings.TrimPrefix(strings.TrimSpace(opts), "{")
	r, err := NewType(map[string]Provider{"http-poll": HTTPPoll{}}).Configure(h, json.RawMessage(opts))
	if err != nil {
		t.Fatalf("configure %s: %v", opts, err)
	}
	return r, h
}

func pollInvocation(h *hooks.Hook, p hooks.Payload, env map[string]string) *hooks.Invocation {
	return &hooks.Invocation{
		Hook: h, Event: h.Event, Payload: p, SessionID: "s1",
		Getenv: func(k string) string { return env[k] }, Stdout: io.Discard, Stderr: io.Discard,
	}
}

func TestHTTPPoll(t *testing.T) {
	t.Parallel()
	const pendingBody = `{"status": "pending"}`
	tests := []struct {
		name       string
		answers    []answer
		success    string // successWhen, default .status == "approved"
		extra      string // more options
		timeout    time.Duration
		wantStatus hooks.Status
		wantReason string
		wantPolls  int // 0: don't check
	}{
		{
			name:    "approved after pending polls",
			answers: []answer{{200, pendingBody}, {200, pendingBody}, {200, `{"status": "approved", "comment": "lgtm"}`}},
			extra:   `, "reasonFrom": ".comment"`, wantStatus: hooks.StatusOK, wantReason: "approved: lgtm", wantPolls: 3,
		},
		{
			name:       "rejected",
			answers:    []answer{{200, pendingBody}, {200, `{"status": "rejected"}`}},
			wantStatus: hooks.StatusBlocked, wantReason: `rejected: abortWhen matched (.status == 'rejected')`, wantPolls: 2,
		},
		{
			name:    "abort wins over success",
			answers: []answer{{200, `{"status": "rejected", "approved": true}`}},
			success: ".approved", wantStatus: hooks.StatusBlocked, wantPolls: 1,
			wantReason: `rejected: abortWhen matched (.status == 'rejected')`,
		},
		{
			name:       "server errors and bad JSON are retried",
			answers:    []answer{{503, `{}`}, {200, `<html>`}, {200, `{"status": "approved"}`}},
			wantStatus: hooks.StatusOK, wantReason: `approved: successWhen matched (.status == "approved")`, wantPolls: 3,
		},
		{
			name:    "timeout blocks by default",
			answers: []answer{{200, pendingBody}}, timeout: 300 * time.Millisecond,
			wantStatus: hooks.StatusBlocked, wantReason: "no decision within",
		},
		{
			name:    "timeout with timeoutAction approve",
			answers: []answer{{200, pendingBody}}, timeout: 300 * time.Millisecond, extra: `, "timeoutAction": "approve"`,
			wantStatus: hooks.StatusOK, wantReason: "no decision within",
		},
		{
			name:    "timeout reports the last error",
			answers: []answer{{502, `bad gateway`}}, timeout: 300 * time.Millisecond,
			wantStatus: hooks.StatusBlocked, wantReason: "and the last poll failed: poll: HTTP 502",
		},
		{
			name:    "a failed last poll is not a timeout for timeoutAction approve",
			answers: []answer{{200, pendingBody}, {503, `{}`}}, timeout: 300 * time.Millisecond, extra: `, "timeoutAction": "approve"`,
			wantStatus: hooks.StatusBlocked, wantReason: "and the last poll failed: poll: HTTP 503",
		},
		{
			name:       "bad credentials end at once, blocked",
			answers:    []answer{{401, `{"message": "Bad credentials"}`}},
			wantStatus: hooks.StatusBlocked, wantReason: "http-poll approval could not be decided: poll: HTTP 401", wantPolls: 1,
		},
		{
			name:       "forbidden ends at once, blocked",
			answers:    []answer{{403, `{"message": "Forbidden"}`}},
			wantStatus: hooks.StatusBlocked, wantReason: "http-poll approval could not be decided: poll: HTTP 403", wantPolls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := &approvalAPI{answers: tt.answers}
			srv := httptest.NewServer(api)
			defer srv.Close()
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			success := tt.success
			if success == "" {
				success = `.status == \"approved\"`
			}
			opts := `{"url": "` + srv.URL + `/status", "interval": 20, "successWhen": "` + success + `", "abortWhen": ".status == 'rejected'"` + tt.extra + `}`
			r, h := pollRunner(t, timeout, opts)
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			out := r.Run(ctx, pollInvocation(h, hooks.Payload{}, nil))
			if out.Status != tt.wantStatus || !strings.Contains(out.Reason, tt.wantReason) {
				t.Errorf("outcome: got %s %q, want %s containing %q", out.Status, out.Reason, tt.wantStatus, tt.wantReason)
			}
			got := len(api.requests())
			if tt.wantPolls > 0 && got != tt.wantPolls {
				t.Errorf("polls: got %d, want %d", got, tt.wantPolls)
			}
			if tt.wantPolls == 0 && got < 1 {
				t.Errorf("polls: got %d, want at least one", got)
			}
			// details.polls counts the polls begun; when the wait ran out, the last of them may
			// have been cut short before the server saw it.
			polls, _ := out.Details["polls"].(int)
			if polls != got && !(tt.wantPolls == 0 && polls == got+1) {
				t.Errorf("details.polls: got %v, want %d (or %d with the last cut short)", out.Details["polls"], got, got+1)
			}
		})
	}
}

func TestHTTPPollRequest(t *testing.T) {
	t.Parallel()
	api := &approvalAPI{answers: []answer{{200, `{"state": {"ok": true}}`}}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	r, h := pollRunner(t, 5*time.Second, `{
		"url": "${APPROVAL_API}/status/{{sessionId}}?issue={{issue.title}}",
		"headers": {"Authorization": "Bearer ${APPROVAL_TOKEN}"},
		"interval": "50ms",
		"successWhen": ".state.ok"}`)
	env := map[string]string{"APPROVAL_API": srv.URL, "APPROVAL_TOKEN": "t0ken"}
	p := hooks.Payload{"sessionId": "a/b c&d", "issue": map[string]any{"title": "x=1&y=../2"}}
	if out := r.Run(context.Background(), pollInvocation(h, p, env)); out.Status != hooks.StatusOK {
		t.Fatalf("outcome: %s %q", out.Status, out.Reason)
	}
	req := api.requests()[0]
	if got, want := req.URL.RequestURI(), "/status/a%2Fb%20c%26d?issue=x%3D1%26y%3D..%2F2"; got != want {
		t.Errorf("request URI: got %s, want %s", got, want)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer t0ken" {
		t.Errorf("Authorization: got %q", got)
	}
	if req.Method != http.MethodGet || req.Header.Get("Accept") != "application/json" {
		t.Errorf("request: %s, Accept %q", req.Method, req.Header.Get("Accept"))
	}
}

// TestHTTPPollCutShortByTheDeadline: the poll in flight when the wait ends says nothing, so the
// poll before it decides how the wait ended: no decision yet is a timeout (timeoutAction), a
// failure is the failure. The server answers the first poll and then hangs until the poller
// gives up.
func TestHTTPPollCutShortByTheDeadline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		first      answer
		extra      string
		wantStatus hooks.Status
		wantReason string
	}{
		{answer{200, `{"status": "pending"}`}, `, "timeoutAction": "approve"`, hooks.StatusOK, "no decision within"},
		{answer{200, `{"status": "pending"}`}, ``, hooks.StatusBlocked, "no decision within"},
		{answer{502, `bad gateway`}, `, "timeoutAction": "approve"`, hooks.StatusBlocked, "and the last poll failed: poll: HTTP 502"},
	} {
		var mu sync.Mutex
		polls := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			polls++
			n := polls
			mu.Unlock()
			if n > 1 {
				<-r.Context().Done() // hangs until the poller gives up
				return
			}
			w.WriteHeader(tc.first.status)
			io.WriteString(w, tc.first.body)
		}))
		r, h := pollRunner(t, 2*time.Second, `{"url": "`+srv.URL+`", "interval": "50ms", "successWhen": ".status == \"approved\""`+tc.extra+`}`)
		out := r.Run(context.Background(), pollInvocation(h, hooks.Payload{}, nil))
		srv.Close()
		if out.Status != tc.wantStatus || !strings.Contains(out.Reason, tc.wantReason) || strings.Contains(out.Reason, "deadline") {
			t.Errorf("first poll %d %s: outcome %s %q, want %s %q", tc.first.status, tc.extra, out.Status, out.Reason, tc.wantStatus, tc.wantReason)
		}
	}
}

func TestHTTPPollSecrets(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	r, h := pollRunner(t, 2*time.Second, `{"url": "http://`+addr+`/approvals/SECRETtoken123", "interval": 20, "successWhen": ".ok"}`)
	ctx, cancel := context.WithTimeout(context.Background(), h.Timeout)
	defer cancel()
	out := r.Run(ctx, pollInvocation(h, hooks.Payload{}, nil))
	if out.Status != hooks.StatusBlocked || !strings.Contains(out.Reason, "connection refused") {
		t.Errorf("outcome: %s %q", out.Status, out.Reason)
	}
	if all, _ := json.Marshal(out); strings.Contains(string(all), "SECRETtoken123") {
		t.Errorf("the outcome shows the URL: %s", all)
	}
	// A missing variable is named, and nothing is requested.
	r, h = pollRunner(t, time.Second, `{"url": "${API}/x", "successWhen": ".ok"}`)
	if out := r.Run(context.Background(), pollInvocation(h, hooks.Payload{}, nil)); out.Status != hooks.StatusBlocked || out.Reason != "http-poll approval could not be decided: http-poll: environment variable API is not set" {
		t.Errorf("missing variable: %s %q", out.Status, out.Reason)
	}
}

func TestHTTPPollConfigure(t *testing.T) {
	t.Parallel()
	typ := NewType(map[string]Provider{"http-poll": HTTPPoll{}})
	for opts, want := range map[string]string{
		`{"provider": "http-poll", "successWhen": ".ok"}`:                                                   `http-poll: "url" is required`,
		`{"provider": "http-poll", "url": "https://x.test/a"}`:                                              `"successWhen" is required`,
		`{"provider": "http-poll", "url": "https://x.test/a", "successWhen": "ok == 1"}`:                    `successWhen: at column 1: unexpected "ok" (a path starts with a dot`,
		`{"provider": "http-poll", "url": "https://x.test/a", "successWhen": ".ok", "abortWhen": ".a = 1"}`: `abortWhen: at column 4`,
		`{"provider": "http-poll", "url": "https://x.test/a", "successWhen": ".ok", "interval": 1}`:         `interval: must be at least 10 milliseconds`,
		`{"provider": "http-poll", "url": "https://x.test/a", "successWhen": ".ok", "interval": "soon"}`:    `want milliseconds or a duration`,
		`{"provider": "http-poll", "url": "ftp://x.test/a", "successWhen": ".ok"}`:                          `url: must be an absolute http`,
		`{"provider": "http-poll", "url": "https://x.test/a", "successWhen": ".ok", "succesWhen": ".ok"}`:   `unknown field "succesWhen"`,
	} {
		_, err := typ.Configure(&hooks.Hook{}, json.RawMessage(opts))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", opts, err, want)
		}
	}
}
