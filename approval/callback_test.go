package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
)

// chatService is the other end of a callback approval: a webhook (a chat bot, a web UI) that
// receives the request carrying the callback URLs and hands it to the test, which calls back with
// Go's HTTP client as such a service would.
type chatService struct {
	srv      *httptest.Server
	requests chan map[string]any
	status   int    // answer to the request (default 200)
	echo     bool   // answer with the request's body (a service that quotes what it refused)
	method   string // the request's method, as received
	mu       sync.Mutex
}

func newChatService(t *testing.T, status int, echo bool) *chatService {
	t.Helper()
	c := &chatService{requests: make(chan map[string]any, 4), status: status, echo: echo}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.method = r.Method
		c.mu.Unlock()
		var doc map[string]any
		_ = json.Unmarshal(body, &doc)
		c.requests <- doc
		if c.status != 0 {
			w.WriteHeader(c.status)
		}
		if c.echo {
			w.Write(body)
		}
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func callbackHook(t *testing.T, timeout time.Duration, p *Callback, opts string) (hooks.Task, *hooks.Hook) {
	t.Helper()
	h := &hooks.Hook{Name: "await", Type: TypeName, Event: hooks.ApprovalRequired, Timeout: timeout, Enabled: true}
	opts = `{"provider": "callback", ` + strings.TrimPrefix(strings.TrimSpace(opts), "{")
	r, err := NewType(map[string]Provider{"callback": p}).Configure(h, json.RawMessage(opts))
	if err != nil {
		t.Fatalf("configure %s: %v", opts, err)
	}
	return r, h
}

// noProtect stands for ProtectMemory in the tests (TestProtectMemory tests it).
func noProtect() error { return nil }

// run starts the hook and returns its outcome on a channel, with what it wrote to stderr.
func run(r hooks.Task, inv *hooks.Invocation, ctx context.Context) <-chan hooks.Outcome {
	out := make(chan hooks.Outcome, 1)
	go func() { out <- r.Run(ctx, inv) }()
	return out
}

// call sends one request with Go's HTTP client and returns the status and body.
func call(t *testing.T, method, target, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func str(t *testing.T, doc map[string]any, key string) string {
	t.Helper()
	s, ok := doc[key].(string)
	if !ok || s == "" {
		t.Fatalf("the request has no %s: %v", key, doc)
	}
	return s
}

// tokenOf is the token of a callback URL (its last path segment).
func tokenOf(t *testing.T, callbackURL string) string {
	t.Helper()
	u, err := url.Parse(callbackURL)
	if err != nil {
		t.Fatal(err)
	}
	tok := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
	if len(tok) < 40 {
		t.Fatalf("callback URL %s: token %q is short", callbackURL, tok)
	}
	return tok
}

// assertNoToken fails if the token shows anywhere in what the outcome, its JSON or stderr hold.
func assertNoToken(t *testing.T, token string, o hooks.Outcome, stderr string) {
	t.Helper()
	b, _ := json.Marshal(struct {
		O hooks.Outcome
		D map[string]any
	}{o, o.Details})
	for what, s := range map[string]string{"outcome": string(b), "reason": o.Reason, "stderr": stderr} {
		if strings.Contains(s, token) {
			t.Errorf("the callback token shows in the %s: %s", what, s)
		}
	}
}

func TestCallbackApprovedByARealCallback(t *testing.T) {
	t.Parallel()
	chat := newChatService(t, 0, false)
	r, h := callbackHook(t, time.Minute, &Callback{Protect: noProtect}, `{"url": "${CHAT_URL}/hooks/{{sessionId}}", "message": "Deploy {{sessionId}}?", "responseVar": "APPROVAL_RESPONSE"}`)
	var stderr bytes.Buffer
	inv := pollInvocation(h, hooks.Payload{"sessionId": "s1", hooks.KeyVars: map[string]any{"EARLIER": "kept"}}, map[string]string{"CHAT_URL": chat.srv.URL})
	inv.Stderr = &stderr
	out := run(r, inv, context.Background())

	req := <-chat.requests
	if req["message"] != "Deploy s1?" || req["sessionId"] != "s1" || req["event"] != hooks.ApprovalRequired {
		t.Errorf("request %v", req)
	}
	callback := str(t, req, "callbackUrl")
	if !strings.HasPrefix(callback, "http://127.0.0.1:") {
		t.Errorf("callback URL %s is not on 127.0.0.1", callback)
	}
	if str(t, req, "approveUrl") != callback+"/approve" || str(t, req, "rejectUrl") != callback+"/reject" {
		t.Errorf("approve/reject URLs %v", req)
	}
	token := tokenOf(t, callback)
	if status, body := call(t, http.MethodPost, callback+"/approve", "ship it\nafter lunch"); status != http.StatusOK || body != "approved\n" {
		t.Errorf("callback: %d %q", status, body)
	}
	o := <-out
	if o.Status != hooks.StatusOK || o.Decision != hooks.DecisionApprove || o.Reason != "approved by callback: ship it" {
		t.Fatalf("outcome %+v", o)
	}
	if o.Details["response"] != "ship it\nafter lunch" || o.Details["action"] != "approve" || o.Details["via"] != "callback" {
		t.Errorf("details %v", o.Details)
	}
	vars, _ := o.Set[hooks.KeyVars].(map[string]any)
	if len(vars) != 2 || vars["APPROVAL_RESPONSE"] != "ship it\nafter lunch" || vars["EARLIER"] != "kept" {
		t.Errorf("handed on %v", o.Set)
	}
	if chat.method != http.MethodPost {
		t.Errorf("the request was a %s", chat.method)
	}
	assertNoToken(t, token, o, stderr.String())
	if !strings.Contains(stderr.String(), "waiting until") {
		t.Errorf("stderr %q", stderr.String())
	}
	// The wait is over: the server is gone.
	if _, err := http.Post(callback+"/approve", "text/plain", nil); err == nil {
		t.Error("the callback server still answers after the decision")
	}
}

// TestCallbackRefusesEverythingElse: only a POST to the request's own URLs decides; each other
// request is refused and the wait goes on, until the real rejection.
func TestCallbackRefusesEverythingElse(t *testing.T) {
	t.Parallel()
	chat := newChatService(t, 0, false)
	r, h := callbackHook(t, time.Minute, &Callback{Protect: noProtect}, `{"url": "`+chat.srv.URL+`", "message": "Merge <b>now</b>?"}`)
	out := run(r, pollInvocation(h, hooks.Payload{}, nil), context.Background())
	req := <-chat.requests
	callback := str(t, req, "callbackUrl")
	token := tokenOf(t, callback)
	u, _ := url.Parse(callback)
	root := u.Scheme + "://" + u.Host
	other := token[:len(token)-1] + "A"
	if token[len(token)-1] == 'A' {
		other = token[:len(token)-1] + "B"
	}
	tests := []struct {
		name, method, target, body string
		want                       int
	}{
		{"another token", http.MethodPost, root + "/" + other + "/approve", "", http.StatusNotFound},
		{"a token cut short", http.MethodPost, root + "/" + token[:20] + "/approve", "", http.StatusNotFound},
		{"no token", http.MethodPost, root + "/approve", "", http.StatusNotFound},
		{"the root", http.MethodPost, root + "/", "", http.StatusNotFound},
		{"a longer path", http.MethodPost, callback + "/approve/now", "", http.StatusNotFound},
		{"another verb", http.MethodPost, callback + "/maybe", "", http.StatusNotFound},
		{"PUT", http.MethodPut, callback + "/approve", "", http.StatusMethodNotAllowed},
		{"DELETE", http.MethodDelete, callback + "/approve", "", http.StatusMethodNotAllowed},
		{"no decision", http.MethodPost, callback, "", http.StatusBadRequest},
		{"an unknown action", http.MethodPost, callback + "?action=fix", "", http.StatusBadRequest},
		{"two decisions", http.MethodPost, callback + "/approve?action=reject", "", http.StatusBadRequest},
		{"an unknown parameter", http.MethodPost, callback + "?action=approve&by=me", "", http.StatusBadRequest},
		{"a repeated parameter", http.MethodPost, callback + "?action=approve&action=approve", "", http.StatusBadRequest},
		{"approve=maybe", http.MethodPost, callback + "?approve=maybe", "", http.StatusBadRequest},
		{"a body too large", http.MethodPost, callback + "/approve", strings.Repeat("x", MaxCallbackBody+1), http.StatusRequestEntityTooLarge},
		{"a body that is not text", http.MethodPost, callback + "/approve", "ok\xff\xfe", http.StatusBadRequest},
		{"a body with NUL", http.MethodPost, callback + "/approve", "ok\x00", http.StatusBadRequest},
	}
	for _, tt := range tests {
		if status, _ := call(t, tt.method, tt.target, tt.body); status != tt.want {
			t.Errorf("%s: %s %s: status %d, want %d", tt.name, tt.method, tt.target, status, tt.want)
		}
	}
	// A GET (a link preview, a browser opening the link) decides nothing: it shows the request,
	// escaped, and a button that POSTs the decision.
	status, page := call(t, http.MethodGet, callback+"/approve", "")
	if status != http.StatusOK || !strings.Contains(page, "<form method=post><button type=submit>Approve</button></form>") ||
		!strings.Contains(page, "Merge &lt;b&gt;now&lt;/b&gt;?") || strings.Contains(page, token) {
		t.Errorf("GET: %d %s", status, page)
	}
	select {
	case o := <-out:
		t.Fatalf("decided by a refused request: %+v", o)
	default:
	}
	if status, body := call(t, http.MethodPost, callback+"?action=abort", "tests are red"); status != http.StatusOK || body != "rejected\n" {
		t.Fatalf("rejection: %d %q", status, body)
	}
	o := <-out
	if o.Status != hooks.StatusBlocked || o.Decision != hooks.DecisionBlock || o.Reason != "rejected by callback: tests are red" || o.Details["action"] != "abort" {
		t.Errorf("outcome %+v", o)
	}
}

// TestCallbackServerDecidesOnce: a second decision, and one after the wait ended, are refused.
func TestCallbackServerDecidesOnce(t *testing.T) {
	t.Parallel()
	token := strings.Repeat("t", 43)
	s := newCallbackServer(token, "/relay", "?")
	srv := httptest.NewServer(s)
	defer srv.Close()
	if status, _ := call(t, http.MethodPost, srv.URL+"/"+token+"/approve", ""); status != http.StatusNotFound {
		t.Errorf("without the public URL's path: %d", status)
	}
	if status, body := call(t, http.MethodPost, srv.URL+"/relay/"+token+"?approve=false", ""); status != http.StatusOK || body != "rejected\n" {
		t.Fatalf("first decision: %d %q", status, body)
	}
	if a := <-s.decided; a.approved || a.response != "reject" {
		t.Errorf("answer %+v (an empty body's response is the action)", a)
	}
	if status, _ := call(t, http.MethodPost, srv.URL+"/relay/"+token+"/approve", ""); status != http.StatusConflict {
		t.Errorf("second decision: %d, want 409", status)
	}
	s2 := newCallbackServer(token, "", "?")
	srv2 := httptest.NewServer(s2)
	defer srv2.Close()
	s2.close()
	if status, _ := call(t, http.MethodPost, srv2.URL+"/"+token+"/approve", ""); status != http.StatusGone {
		t.Errorf("after the wait: %d, want 410", status)
	}
}

func TestCallbackTimeoutAction(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		action     string
		wantStatus hooks.Status
		wantDec    string
	}{{"approve", hooks.StatusOK, hooks.DecisionApprove}, {"block", hooks.StatusBlocked, hooks.DecisionBlock}} {
		t.Run(tt.action, func(t *testing.T) {
			t.Parallel()
			chat := newChatService(t, 0, false)
			r, h := callbackHook(t, 300*time.Millisecond, &Callback{Protect: noProtect}, `{"url": "`+chat.srv.URL+`", "timeoutAction": "`+tt.action+`"}`)
			out := run(r, pollInvocation(h, hooks.Payload{}, nil), context.Background())
			req := <-chat.requests
			// A callback with another token does not decide.
			callback := str(t, req, "callbackUrl")
			if status, _ := call(t, http.MethodPost, callback+"x/approve", ""); status != http.StatusNotFound {
				t.Errorf("another token: %d", status)
			}
			o := <-out
			if o.Status != tt.wantStatus || o.Decision != tt.wantDec || o.Details["via"] != "timeout" ||
				!strings.HasPrefix(o.Reason, "no decision within") || !strings.HasSuffix(o.Reason, "(timeoutAction: "+tt.action+")") {
				t.Errorf("outcome %+v", o)
			}
		})
	}
}

// TestCallbackUndecided: a request that cannot be sent, a server that cannot start, a token that
// cannot be protected and an interruption block, whatever timeoutAction says; the token never
// shows, even when the service quotes the request back.
func TestCallbackUndecided(t *testing.T) {
	t.Parallel()
	refusing := newChatService(t, http.StatusBadRequest, true)
	busy := httptest.NewServer(http.NotFoundHandler()) // a port another process holds
	t.Cleanup(busy.Close)
	busyAddr := strings.TrimPrefix(busy.URL, "http://")
	for _, tt := range []struct {
		name    string
		opts    string
		env     map[string]string
		protect func() error
		cancel  bool
		want    string
	}{
		{name: "refused", opts: `{"url": "` + refusing.srv.URL + `"}`, want: "send the approval request: post webhook: HTTP 400: {\"approveUrl\":\"http://127.0.0.1:"},
		{name: "unset variable", opts: `{"url": "${NOPE}/x"}`, want: "callback: environment variable NOPE is not set"},
		{name: "port taken", opts: `{"url": "` + refusing.srv.URL + `", "listen": "` + busyAddr + `"}`, want: "start the callback server on " + busyAddr},
		{name: "unprotected", opts: `{"url": "` + refusing.srv.URL + `"}`, protect: func() error { return errors.New("prctl: not permitted") }, want: "keep the callback token from other processes: prctl: not permitted"},
		{name: "interrupted", opts: `{"url": "` + newChatService(t, 0, false).srv.URL + `"}`, cancel: true, want: "interrupted while waiting for the approval callback"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			protect := tt.protect
			if protect == nil {
				protect = noProtect
			}
			r, h := callbackHook(t, time.Minute, &Callback{Protect: protect}, strings.TrimSuffix(tt.opts, "}")+`, "timeoutAction": "approve"}`)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stderr bytes.Buffer
			inv := pollInvocation(h, hooks.Payload{}, tt.env)
			inv.Stderr = &stderr
			if tt.cancel {
				inv.Stderr = writerFunc(func(p []byte) (int, error) {
					if bytes.Contains(p, []byte("waiting until")) {
						cancel()
					}
					return stderr.Write(p)
				})
			}
			o := r.Run(ctx, inv)
			if o.Status != hooks.StatusBlocked || o.Details["decision"] != "undecided" || !strings.Contains(o.Reason, tt.want) {
				t.Errorf("outcome %s %q %v, want undecided with %q", o.Status, o.Reason, o.Details, tt.want)
			}
			if strings.Contains(o.Reason, "approveUrl") && !strings.Contains(o.Reason, "[callback token]") {
				t.Errorf("the quoted request lost its redaction mark: %s", o.Reason)
			}
			for _, s := range []string{o.Reason, stderr.String()} {
				if i := strings.Index(s, "127.0.0.1:"); i >= 0 && strings.Contains(s[i:], "/approve") && !strings.Contains(s[i:], "[callback token]") {
					t.Errorf("a callback URL shows: %s", s)
				}
			}
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestCallbackBody: the body template's strings are expanded in one pass: the callback URLs,
// payload values verbatim (never expanded again), environment variables; keys are not.
func TestCallbackBody(t *testing.T) {
	t.Parallel()
	chat := newChatService(t, 0, false)
	r, h := callbackHook(t, time.Minute, &Callback{Protect: noProtect}, `{"url": "`+chat.srv.URL+`", "method": "put",
		"body": {"text": "Plan ready for {{session}} by ${WHO}", "n": 3, "summary": "{{summary}}", "{{key}}": "{{missing}}",
		"actions": [{"text": "Approve", "url": "{{callbackUrl}}?action=approve"}, {"url": "{{rejectUrl}}"}]}}`)
	out := run(r, pollInvocation(h, hooks.Payload{"session": "auth", "summary": "${HOME} {{callbackUrl}}"}, map[string]string{"WHO": "alice", "HOME": "/home/x"}), context.Background())
	req := <-chat.requests
	if chat.method != http.MethodPut {
		t.Errorf("method %s", chat.method)
	}
	actions, _ := req["actions"].([]any)
	if len(actions) != 2 {
		t.Fatalf("body %v", req)
	}
	first, _ := actions[0].(map[string]any)
	second, _ := actions[1].(map[string]any)
	callback := strings.TrimSuffix(first["url"].(string), "?action=approve")
	tokenOf(t, callback)
	if req["text"] != "Plan ready for auth by alice" || req["n"] != float64(3) || req["summary"] != "${HOME} {{callbackUrl}}" ||
		req["{{key}}"] != "{{missing}}" || second["url"] != callback+"/reject" || first["text"] != "Approve" {
		t.Errorf("body %v", req)
	}
	call(t, http.MethodPost, first["url"].(string), "")
	if o := <-out; o.Decision != hooks.DecisionApprove || o.Details["response"] != "approve" {
		t.Errorf("outcome %+v", o)
	}
}

// TestCallbackPublicURL: behind a relay the URLs sent start with publicUrl, and the server
// expects its path (a relay forwards the path as it is to the listen address).
func TestCallbackPublicURL(t *testing.T) {
	t.Parallel()
	chat := newChatService(t, 0, false)
	r, h := callbackHook(t, time.Minute, &Callback{Protect: noProtect}, `{"url": "`+chat.srv.URL+`", "listen": "127.0.0.1:0", "publicUrl": "https://relay.example/approvals/"}`)
	inv := pollInvocation(h, hooks.Payload{}, nil)
	listening := make(chan string, 1)
	inv.Stderr = writerFunc(func(p []byte) (int, error) {
		if m := regexp.MustCompile(`callback on (127\.0\.0\.1:\d+):`).FindSubmatch(p); m != nil {
			listening <- string(m[1])
		}
		return len(p), nil
	})
	out := run(r, inv, context.Background())
	req := <-chat.requests
	approve := str(t, req, "approveUrl")
	rest, ok := strings.CutPrefix(approve, "https://relay.example/approvals/")
	if !ok {
		t.Fatalf("approve URL %s", approve)
	}
	addr := <-listening
	if status, _ := call(t, http.MethodPost, "http://"+addr+"/"+rest, "ok"); status != http.StatusNotFound {
		t.Errorf("without the relay's path: %d, want 404", status)
	}
	if status, _ := call(t, http.MethodPost, "http://"+addr+"/approvals/"+rest, "ok"); status != http.StatusOK {
		t.Fatalf("with the relay's path: %d", status)
	}
	if o := <-out; o.Decision != hooks.DecisionApprove || o.Details["listen"] != addr {
		t.Errorf("outcome %+v", o)
	}
}

func TestCallbackConfigure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ opts, want string }{
		{`{}`, `callback: "url" is required`},
		{`{"url": "ftp://x/y"}`, "url: must be an absolute http:// or https:// URL"},
		{`{"url": "https://x/y", "method": "GET"}`, `method: "GET" is not POST or PUT`},
		{`{"url": "https://x/y", "listen": "8765"}`, `listen: "8765" is not host:port`},
		{`{"url": "https://x/y", "listen": "0.0.0.0:8765"}`, `listen: "0.0.0.0:8765" is not one IP address; give publicUrl`},
		{`{"url": "https://x/y", "listen": ":8765"}`, `listen: ":8765" is not one IP address`},
		{`{"url": "https://x/y", "publicUrl": "https://relay.example/x?y=1"}`, "publicUrl: "},
		{`{"url": "https://x/y", "publicUrl": "https://user:pw@relay.example/x"}`, "publicUrl: "},
		{`{"url": "https://x/y", "responseVar": "PATH"}`, "responseVar: PATH is read by the shell or the hooks"},
		{`{"url": "https://x/y", "responseVar": "LD_PRELOAD"}`, "responseVar: LD_PRELOAD: names starting with LD_"},
		{`{"url": "https://x/y", "responseVar": "1X"}`, `responseVar: "1X" is not a variable name`},
		{`{"url": "https://x/y", "body": {"a": 1}, "bodyy": 2}`, `unknown field "bodyy"`},
		{`{"url": "https://x/y", "timeoutAction": "continue"}`, `timeoutAction: "continue" is not block or approve`},
	} {
		h := &hooks.Hook{Name: "await", Type: TypeName, Event: hooks.ApprovalRequired, Enabled: true}
		opts := `{"provider": "callback", ` + strings.TrimPrefix(tt.opts, "{")
		if tt.opts == `{}` {
			opts = `{"provider": "callback"}`
		}
		_, err := NewType(map[string]Provider{"callback": &Callback{}}).Configure(h, json.RawMessage(opts))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.opts, err, tt.want)
		}
	}
}
