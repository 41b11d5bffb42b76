// Package agenttest runs the real agent CLIs (Claude Code, Codex, GitHub Copilot CLI, Cline,
// Gemini CLI, OpenCode, Factory Droid) offline for end-to-end hook tests: a scripted fake of the model APIs they call
// (Anthropic Messages, OpenAI Responses, OpenAI chat completions, Gemini generateContent) on
// 127.0.0.1 that makes them run real tool calls and fire their real hooks, the CLIs' discovery
// (skip when absent, fail when AGENT_HOOKS_REQUIRE_AGENTS=1), an isolated environment per run,
// and testscript commands and conditions so that scripts can drive an agent.
package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
)

// Step is one scripted model turn: exactly one of Shell, Write, Tool or Text.
type Step struct {
	// Shell calls the agent's shell tool with this command: Claude's Bash, Codex's exec_command,
	// Copilot's and OpenCode's bash, Cline's run_commands, Droid's Execute.
	Shell string `json:"shell,omitempty"`
	// Write creates a file: Claude's Write tool, Codex's apply_patch (model gpt-5.5), Copilot's
	// create, OpenCode's write, Droid's Create.
	Write *WriteFile `json:"write,omitempty"`
	// Tool calls this tool with Input (a JSON object) as is, on either API.
	Tool  string          `json:"tool,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// Text ends the turn with this text.
	Text string `json:"text,omitempty"`
}

// WriteFile is a file a Write step creates: Path relative to the server's Dir, or absolute.
type WriteFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// Shell is a step calling the shell tool with cmd.
func Shell(cmd string) Step { return Step{Shell: cmd} }

// Write is a step creating the file path with content.
func Write(path, content string) Step { return Step{Write: &WriteFile{Path: path, Content: content}} }

// Text is a step answering text.
func Text(s string) Step { return Step{Text: s} }

// Done is the text the model answers once the script's steps are used up.
const Done = "done"

func (s Step) validate() error {
	n := 0
	for _, set := range []bool{s.Shell != "", s.Write != nil, s.Tool != "", s.Text != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("a step needs exactly one of shell, write, tool or text: %+v", s)
	}
	if s.Tool != "" && len(s.Input) > 0 && !json.Valid(s.Input) {
		return fmt.Errorf("step %s: input is not JSON", s.Tool)
	}
	return nil
}

// Request is one HTTP request an agent sent to the fake, its credentials redacted.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   json.RawMessage // the JSON body as sent (nil when there was none)
	// Turn is the step this request was answered with (the number of tool results the request
	// carried), -1 for a request that is not a model turn.
	Turn int
}

// ToolResult is what the model received back from one of its tool calls.
type ToolResult struct {
	CallID  string
	Content string // the text content, blocks joined by newlines
	IsError bool   // Claude's is_error (Codex does not say)
}

// Server is a fake of the Anthropic Messages API (POST /v1/messages), of the OpenAI
// Responses API (POST /v1/responses), of OpenAI's Chat Completions (POST /chat/completions) and
// of the Gemini API (POST /v1beta/models/MODEL:streamGenerateContent) on 127.0.0.1. It answers
// each model request with the step chosen from the request alone — the number of tool results
// it already carries — so a retried request gets the same answer; past the last step, and to a
// request that offers no tools (a side request), it answers the text "done". It records every
// request.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT: ANTHROPIC_BASE_URL for Claude; Codex's
	// provider base_url is URL+"/v1".
	URL string
	// Dir is the agent's working directory, against which a Write step's relative path is made
	// absolute for Claude (whose Write tool wants an absolute path). NewServer sets it before the
	// server answers anything: the handlers read it, so it never changes after.
	Dir string

	srv   *httptest.Server
	steps []Step

	mu         sync.Mutex
	requests   []Request
	unexpected []string
}

// NewServer starts a fake model API answering with steps, for an agent working in dir (empty:
// Write steps' paths are used as given); Close it when done.
func NewServer(dir string, steps ...Step) (*Server, error) {
	for _, s := range steps {
		if err := s.validate(); err != nil {
			return nil, err
		}
	}
	s := &Server{Dir: dir, steps: steps}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Err reports the requests the fake could not answer (an unknown path, a body it could not
// read): an agent retries them and then gives up, so a test that saw one must fail with it.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.unexpected) == 0 {
		return nil
	}
	return fmt.Errorf("the fake model API could not answer: %s", strings.Join(s.unexpected, "; "))
}

// ModelRequests returns the requests that were model turns.
func (s *Server) ModelRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Turn >= 0 {
			out = append(out, r)
		}
	}
	return out
}

// ToolResults returns the tool results the last model request carried: everything the model
// was told about its tool calls (a hook's deny reason arrives here).
func (s *Server) ToolResults() []ToolResult {
	reqs := s.ModelRequests()
	if len(reqs) == 0 {
		return nil
	}
	last := reqs[len(reqs)-1]
	if strings.HasSuffix(last.Path, "/responses") {
		return openaiToolResults(last.Body)
	}
	if strings.HasPrefix(last.Path, geminiPrefix) {
		return geminiToolResults(last.Body)
	}
	if strings.HasSuffix(last.Path, "/chat/completions") {
		return chatToolResults(last.Body)
	}
	return anthropicToolResults(last.Body)
}

// step returns the answer to a model request carrying n tool results.
func (s *Server) step(n int, offersTools bool) Step {
	if !offersTools || n >= len(s.steps) {
		return Text(Done)
	}
	return s.steps[n]
}

// writePath is a Write step's path made absolute against Dir.
func (s *Server) writePath(p string) string {
	if filepath.IsAbs(p) || s.Dir == "" {
		return p
	}
	return filepath.Join(s.Dir, p)
}

func (s *Server) record(r *http.Request, body []byte, turn int) {
	h := r.Header.Clone()
	for _, k := range []string{"X-Api-Key", "Authorization"} {
		if h.Get(k) != "" {
			h.Set(k, "<redacted>")
		}
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Header: h, Turn: turn}
	if len(body) > 0 {
		req.Body = json.RawMessage(body)
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, body []byte, why string) {
	s.record(r, body, -1)
	s.mu.Lock()
	s.unexpected = append(s.unexpected, fmt.Sprintf("%s %s: %s", r.Method, r.URL.Path, why))
	s.mu.Unlock()
	// 400 rather than 5xx: the agents retry a 5xx several times, slowly.
	http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"agenttest: `+why+`"}}`, http.StatusBadRequest)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		s.fail(w, r, nil, "read the body: "+err.Error())
		return
	}
	if enc := r.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		s.fail(w, r, nil, "compressed body ("+enc+")")
		return
	}
	switch {
	case r.Method == http.MethodHead:
		// Claude's connection warm-up (HEAD /).
		s.record(r, nil, -1)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.anthropic(w, r, body)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		s.record(r, body, -1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":100}`)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		s.openai(w, r, body)
	case r.Method == http.MethodPost && r.URL.Path == "/chat/completions":
		s.chat(w, r, body)
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, geminiPrefix):
		s.gemini(w, r, body)
	default:
		s.fail(w, r, body, "no such endpoint in the fake")
	}
}

// sse writes one server-sent event and flushes it.
func sse(w http.ResponseWriter, name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err) // the fake's own values always marshal
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	w.Write(buf.Bytes())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

type obj = map[string]any

// textOf is the text of a content value: a string, or blocks whose text fields are joined.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		parts := make([]string, 0, len(blocks))
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}
