package approval

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
	"github.com/autoagent/agent-hooks/internal/httpurl"
	"github.com/autoagent/agent-hooks/internal/progress"
	"github.com/autoagent/agent-hooks/notify"
)

// Callback is the "callback" approval provider, the agent-pipelines seed's await_webhook: it
// starts a small HTTP server, sends one request to "url" carrying the URLs that approve and reject
// (they hold a token made for this request alone), and waits for one of them to be called back,
// or for the hook's timeout (timeoutAction).
//
// Options (besides message and timeoutAction):
//
//	url          required: where the request goes; ${VAR} is taken from the environment, {{key}}
//	             from the payload (percent-encoded). A secret: never printed.
//	method       POST (default) or PUT
//	headers      extra request headers, ${VAR} expanded (e.g. "Authorization": "Bearer ${TOKEN}")
//	body         the JSON request body; in its strings {{callbackUrl}}, {{approveUrl}} and
//	             {{rejectUrl}} are the callback URLs, {{key}} a payload value and ${VAR} an
//	             environment variable. Default: message, sessionId, event and the three URLs.
//	listen       the server's address, host:port (default 127.0.0.1:0, a free port on loopback)
//	publicUrl    the URL the server is reached at from outside (a tunnel, a relay), when it is not
//	             http://<listen>; required when listen is not one address (0.0.0.0:8765)
//	responseVar  the name under which the answer is handed on to the event's later hooks
//	             (hooks.HandOn)
//
// A callback decides with POST to {{approveUrl}} (callbackUrl/approve) or {{rejectUrl}}
// (callbackUrl/reject), or to {{callbackUrl}} with ?action=approve|continue|reject|abort or
// ?approve=true|false; its body (at most MaxCallbackBody bytes of UTF-8 text) is the answer, the
// action when it has none, and its first line the reason. A GET of those URLs only shows a page
// with a button that sends that POST (a chat's link preview decides nothing). Everything else —
// another path, another token, another method, a body too large or not text, a second decision —
// is refused, and the server takes a few connections at a time, each bounded in time. No callback
// before the wait ends: timeoutAction; a request that could not be sent, or a server that could
// not start: undecided, which blocks.
//
// The token is made when the request is, lives only in this process's memory (which other
// processes of the user may not read: see Protect) and in the request sent to url, and is never
// printed, recorded, put in the payload, an environment variable or an argument.
type Callback struct {
	Client *http.Client     // sends the request; nil: a client of its own
	Now    func() time.Time // nil: time.Now
	// Protect is called once before the first token is made; it keeps other processes of the
	// user from reading this process's memory. nil: ProtectMemory.
	Protect func() error
	// Random is where tokens come from; nil: crypto/rand.
	Random io.Reader

	protectOnce sync.Once
	protectErr  error
}

// Limits of the callback server.
const (
	// MaxCallbackBody is the largest callback body read.
	MaxCallbackBody = 64 << 10
	// maxCallbackConns is how many connections the server serves at once.
	maxCallbackConns = 8
)

// callbackTokenBytes is the entropy of a callback token.
const callbackTokenBytes = 32

type callbackConfig struct {
	Common
	URL         string            `json:"url"`
	Method      string            `json:"method"`
	Headers     map[string]string `json:"headers"`
	Body        json.RawMessage   `json:"body"`
	Listen      string            `json:"listen"`
	PublicURL   string            `json:"publicUrl"`
	ResponseVar string            `json:"responseVar"`
}

type callbackRunner struct {
	p    *Callback
	c    callbackConfig
	body any // the decoded body template, nil for the default
	base *url.URL
}

// Configure implements Provider.
func (p *Callback) Configure(h *hooks.Hook, raw json.RawMessage) (hooks.Task, error) {
	var c callbackConfig
	if err := DecodeOptions(raw, &c, &c.Common); err != nil {
		return nil, err
	}
	r := &callbackRunner{p: p, c: c}
	if c.URL == "" {
		return nil, errors.New(`callback: "url" is required (where the request with the callback URLs goes)`)
	}
	if !strings.ContainsAny(c.URL, "${") {
		if err := httpurl.Check(c.URL); err != nil {
			return nil, fmt.Errorf("url: %w", err)
		}
	}
	switch strings.ToUpper(c.Method) {
	case "", http.MethodPost:
		r.c.Method = http.MethodPost
	case http.MethodPut:
		r.c.Method = http.MethodPut
	default:
		return nil, fmt.Errorf("method: %q is not POST or PUT", c.Method)
	}
	if len(c.Body) > 0 {
		if err := json.Unmarshal(c.Body, &r.body); err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
	}
	if r.c.Listen == "" {
		r.c.Listen = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(r.c.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen: %q is not host:port: %w", r.c.Listen, err)
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("publicUrl: %q is not an http(s) URL without credentials, query or fragment", c.PublicURL)
		}
		u.Path = strings.TrimSuffix(u.Path, "/")
		u.RawPath = ""
		r.base = u
	} else if ip := net.ParseIP(host); host == "" || ip == nil || ip.IsUnspecified() {
		return nil, fmt.Errorf("listen: %q is not one IP address; give publicUrl, the URL the callback reaches this server at", r.c.Listen)
	}
	if c.ResponseVar != "" {
		if err := CheckVarName(c.ResponseVar); err != nil {
			return nil, fmt.Errorf("responseVar: %w", err)
		}
	}
	return r, nil
}

var varName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// CheckVarName checks the name of a variable a hook hands an answer on in (responseVar): a shell
// identifier that is not one the shell, the dynamic loader or agent-hooks itself reads (PATH,
// IFS, LD_PRELOAD, AUTOAGENT_*, …), since the answer comes from outside.
func CheckVarName(name string) error {
	if !varName().MatchString(name) {
		return fmt.Errorf("%q is not a variable name (letters, digits and _, not starting with a digit)", name)
	}
	upper := strings.ToUpper(name)
	switch upper {
	case "PATH", "HOME", "IFS", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4", "CDPATH", "GLOBIGNORE",
		"SHELL", "TMPDIR", "PWD", "OLDPWD", "USER", "LOGNAME", "TERM", "LANG", "PROMPT_COMMAND", "SESSION", "SESSION_NAME":
		return fmt.Errorf("%s is read by the shell or the hooks; choose another name", name)
	}
	for _, prefix := range []string{"LD_", "DYLD_", "BASH_", "LC_", "AUTOAGENT_", "AGENT_HOOKS_", "LOOP_", "PIPELINE_", "CLAUDE_", "GIT_", "GITHUB_"} {
		if strings.HasPrefix(upper, prefix) {
			return fmt.Errorf("%s: names starting with %s are read by the loader, the shell or the hooks; choose another name", name, prefix)
		}
	}
	return nil
}

func (p *Callback) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// newToken makes a callback token: callbackTokenBytes random bytes, base64url.
func (p *Callback) newToken() (string, error) {
	p.protectOnce.Do(func() {
		protect := p.Protect
		if protect == nil {
			protect = ProtectMemory
		}
		p.protectErr = protect()
	})
	if p.protectErr != nil {
		return "", fmt.Errorf("keep the callback token from other processes: %w", p.protectErr)
	}
	random := p.Random
	if random == nil {
		random = rand.Reader
	}
	b := make([]byte, callbackTokenBytes)
	if _, err := io.ReadFull(random, b); err != nil {
		return "", fmt.Errorf("make a callback token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Run implements hooks.Task.
func (r *callbackRunner) Run(ctx context.Context, inv *hooks.Invocation) hooks.Outcome {
	start := r.p.now()
	by := DecideBy(ctx, inv.Hook, start)
	details := map[string]any{"provider": "callback"}
	target, headers, err := resolveTarget(r.c.URL, r.c.Headers, inv)
	if err != nil {
		return Undecided("callback", fmt.Errorf("callback: %w", err), details)
	}
	token, err := r.p.newToken()
	if err != nil {
		return Undecided("callback", err, details)
	}
	scrub := func(err error) error { return errors.New(strings.ReplaceAll(err.Error(), token, "[callback token]")) }

	ln, err := net.Listen("tcp", r.c.Listen)
	if err != nil {
		return Undecided("callback", fmt.Errorf("start the callback server on %s: %w", r.c.Listen, err), details)
	}
	details["listen"] = ln.Addr().String()
	base := r.base
	if base == nil {
		base = &url.URL{Scheme: "http", Host: ln.Addr().String()}
	}
	message := r.c.Render(inv.Payload)
	srv := newCallbackServer(token, base.Path, message)
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      15 * time.Second,
		IdleTimeout:       5 * time.Second,
		MaxHeaderBytes:    8 << 10,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	hs.SetKeepAlivesEnabled(false)
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = hs.Serve(limitListener(ln, maxCallbackConns))
	}()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if hs.Shutdown(sctx) != nil {
			_ = hs.Close()
		}
		<-served
	}()

	callback := base.String() + "/" + token
	urls := map[string]string{"callbackUrl": callback, "approveUrl": callback + "/approve", "rejectUrl": callback + "/reject"}
	body, err := r.requestBody(inv, message, urls)
	if err != nil {
		return Undecided("callback", scrub(err), details)
	}
	sender := &notify.Sender{
		Client: r.p.Client, Method: r.c.Method, Header: headers, Retries: notify.DefaultRetries,
		Backoff: hooks.DefaultWebhookBackoff, RequestTimeout: hooks.DefaultWebhookRequestTimeout, UserAgent: "agent-hooks",
	}
	sendCtx, cancelSend := context.WithDeadline(ctx, by)
	d, err := sender.Post(sendCtx, target, body)
	cancelSend()
	details["httpStatus"] = d.StatusCode
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Undecided("callback", errors.New("interrupted while sending the approval request"), details)
		}
		return Undecided("callback", fmt.Errorf("send the approval request: %w", scrub(err)), details)
	}
	fmt.Fprintf(inv.Stderr, "agent-hooks: approval request sent; waiting until %s for its callback on %s: %s\n",
		by.Format("15:04:05"), ln.Addr(), oneLine(message))

	timer := time.NewTimer(max(by.Sub(r.p.now()), 0))
	defer timer.Stop()
	wait := progress.Start(inv.Progress, "approval request sent", fmt.Sprintf("its callback on %s", ln.Addr()))
	wait.Detail("until " + by.Format("15:04:05"))
	var ans callbackAnswer
	select {
	case ans = <-srv.decided:
	case <-timer.C:
	case <-ctx.Done():
	}
	wait.Done()
	if !ans.done {
		ans = srv.close() // a callback that came at the last moment wins
	}
	if !ans.done {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Undecided("callback", errors.New("interrupted while waiting for the approval callback"), details)
		}
		return r.c.TimedOut(r.p.now().Sub(start)).Outcome(details)
	}
	details["action"] = ans.action
	details["response"] = ans.response
	o := Answer{Approved: ans.approved, By: "callback", Via: "callback", Reason: ans.reason}.Outcome(details)
	if r.c.ResponseVar != "" {
		o.Set = hooks.HandOn(inv.Payload, r.c.ResponseVar, ans.response)
	}
	return o
}

// resolveTarget expands the URL and headers of one request as the http-poll provider does:
// ${VAR} from the environment (required), {{key}} from the payload, percent-encoded.
func resolveTarget(rawURL string, hdrs map[string]string, inv *hooks.Invocation) (string, http.Header, error) {
	var missing []string
	env := func(k string) string {
		v := inv.Getenv(k)
		if v == "" {
			missing = append(missing, k)
		}
		return v
	}
	target := template.ExpandMessage(os.Expand(rawURL, env), escapePayload(inv.Payload))
	headers := http.Header{}
	for k, v := range hdrs {
		headers.Set(k, os.Expand(v, env))
	}
	if len(missing) > 0 {
		return "", nil, fmt.Errorf("environment variable %s is not set", strings.Join(missing, ", "))
	}
	if err := httpurl.Check(target); err != nil {
		return "", nil, fmt.Errorf("url: %w", err)
	}
	return target, headers, nil
}

// requestBody is the JSON the request carries: the body template with its strings expanded, or
// the default body.
func (r *callbackRunner) requestBody(inv *hooks.Invocation, message string, urls map[string]string) ([]byte, error) {
	v := r.body
	if v == nil {
		v = map[string]any{
			"message": message, "sessionId": inv.SessionID, "event": inv.Event,
			"callbackUrl": urls["callbackUrl"], "approveUrl": urls["approveUrl"], "rejectUrl": urls["rejectUrl"],
		}
	} else {
		v = expandStrings(v, func(s string) string { return ExpandBody(s, inv.Payload, inv.Getenv, urls) })
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode the request body: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// expandStrings applies f to every string of a decoded JSON value (not to object keys).
func expandStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = expandStrings(e, f)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = expandStrings(e, f)
		}
		return out
	}
	return v
}

var bodyPlaceholder = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\{\{\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*\}\}`)
})

// ExpandBody expands one string of a request body in a single pass, so that no value inserted is
// expanded again: ${VAR} is the environment's value (empty when unset, as in the shell), {{name}}
// one of named (the callback URLs) or else the payload's value verbatim; an unknown {{key}} stays
// as written.
func ExpandBody(s string, p hooks.Payload, getenv func(string) string, named map[string]string) string {
	return bodyPlaceholder().ReplaceAllStringFunc(s, func(m string) string {
		sub := bodyPlaceholder().FindStringSubmatch(m)
		if sub[1] != "" {
			if getenv == nil {
				return ""
			}
			return getenv(sub[1])
		}
		if v, ok := named[sub[2]]; ok {
			return v
		}
		if v, ok := template.Lookup(p, sub[2]); ok {
			return template.FormatValue(v)
		}
		return m
	})
}

// callbackAnswer is what a callback decided.
type callbackAnswer struct {
	done     bool
	approved bool
	action   string // approve, reject, continue, abort
	response string
	reason   string
}

// callbackServer answers the callbacks of one request.
type callbackServer struct {
	token   []byte
	prefix  string // the public URL's path, before /<token>
	message string
	decided chan callbackAnswer

	mu     sync.Mutex
	answer callbackAnswer
	closed bool
}

func newCallbackServer(token, prefix, message string) *callbackServer {
	return &callbackServer{token: []byte(token), prefix: prefix, message: message, decided: make(chan callbackAnswer, 1)}
}

// close ends the wait: later callbacks are refused. It returns the answer when one came first.
func (s *callbackServer) close() callbackAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.answer
}

// decide records the first decision; it reports false when the wait is over or decided.
func (s *callbackServer) decide(a callbackAnswer) (callbackAnswer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.answer.done {
		return s.answer, false
	}
	a.done = true
	s.answer = a
	s.decided <- a
	return a, true
}

// route reads a request's path and query: the decision it asks for ("" and ok for the bare
// callback URL with no decision, which is refused), and ok only when the token is the request's.
func (s *callbackServer) route(u *url.URL) (action string, status int, msg string) {
	rest, ok := strings.CutPrefix(u.Path, s.prefix+"/")
	if !ok {
		return "", http.StatusNotFound, "not found"
	}
	tok, verb, _ := strings.Cut(rest, "/")
	if subtle.ConstantTimeCompare([]byte(tok), s.token) != 1 {
		return "", http.StatusNotFound, "not found"
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "", http.StatusBadRequest, "invalid query"
	}
	for k, v := range q {
		if k != "action" && k != "approve" || len(v) != 1 {
			return "", http.StatusBadRequest, "unexpected query parameter " + k
		}
	}
	switch verb {
	case "approve", "reject":
		if len(q) > 0 {
			return "", http.StatusBadRequest, "a decision in both the path and the query"
		}
		return verb, 0, ""
	case "":
	default:
		return "", http.StatusNotFound, "not found"
	}
	if len(q) != 1 {
		return "", http.StatusBadRequest, "no decision: call the approve or the reject URL"
	}
	if a, ok := q["action"]; ok {
		switch a[0] {
		case "approve", "continue", "reject", "abort":
			return a[0], 0, ""
		}
		return "", http.StatusBadRequest, "action must be approve, continue, reject or abort"
	}
	switch q.Get("approve") {
	case "true":
		return "approve", 0, ""
	case "false":
		return "reject", 0, ""
	}
	return "", http.StatusBadRequest, "approve must be true or false"
}

func approves(action string) bool { return action == "approve" || action == "continue" }

func (s *callbackServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	action, status, msg := s.route(r.URL)
	if status != 0 {
		http.Error(w, msg, status)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		s.page(w, action)
	case http.MethodPost:
		s.post(w, r, action)
	default:
		h.Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// page shows the request and a button that sends the decision: a GET decides nothing.
func (s *callbackServer) page(w http.ResponseWriter, action string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	verb := "Reject"
	if approves(action) {
		verb = "Approve"
	}
	fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><title>%s</title><pre>%s</pre><form method=post><button type=submit>%s</button></form>\n",
		verb, html.EscapeString(Printable(s.message)), verb)
}

func (s *callbackServer) post(w http.ResponseWriter, r *http.Request, action string) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxCallbackBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		http.Error(w, "could not read the body", http.StatusBadRequest)
		return
	case !utf8.Valid(body) || bytes.IndexByte(body, 0) >= 0:
		http.Error(w, "the body is not text", http.StatusBadRequest)
		return
	}
	response := strings.TrimSpace(string(body))
	if response == "" {
		response = action
	}
	reason, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
	if r := []rune(reason); len(r) > 200 {
		reason = string(r[:199]) + "…"
	}
	a, ok := s.decide(callbackAnswer{approved: approves(action), action: action, response: response, reason: Printable(reason)})
	if !ok {
		if !a.done {
			http.Error(w, "the wait for this decision is over", http.StatusGone)
			return
		}
		http.Error(w, "already decided", http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if a.approved {
		fmt.Fprintln(w, "approved")
	} else {
		fmt.Fprintln(w, "rejected")
	}
}

// limitListener accepts at most n connections at a time; the others wait in the backlog.
func limitListener(l net.Listener, n int) net.Listener {
	return &limitedListener{Listener: l, sem: make(chan struct{}, n)}
}

type limitedListener struct {
	net.Listener
	sem chan struct{}
}

func (l *limitedListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.sem }}, nil
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
