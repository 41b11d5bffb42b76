package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/hooks"
)

func inputHook(t *testing.T, timeout time.Duration, in *Input, opts string) (hooks.Task, *hooks.Hook) {
	t.Helper()
	h := &hooks.Hook{Name: "await", Type: TypeName, Event: hooks.ApprovalRequired, Timeout: timeout, Enabled: true}
	opts = withOptions(t, opts, map[string]any{"provider": "input"})
	r, err := NewType(map[string]Provider{"input": in}).Configure(h, json.RawMessage(opts))
	if err != nil {
		t.Fatalf("configure %s: %v", opts, err)
	}
	return r, h
}

// withOptions adds fields to a JSON object.
func withOptions(t *testing.T, opts string, add map[string]any) string {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal([]byte(opts), &m); err != nil {
		t.Fatalf("options %s: %v", opts, err)
	}
	for k, v := range add {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// asked is a stderr that signals once the question has been asked.
type asked struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	once sync.Once
	c    chan struct{}
}

func newAsked() *asked { return &asked{c: make(chan struct{})} }

func (a *asked) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf.Write(p)
	if strings.Contains(a.buf.String(), "waiting until") {
		a.once.Do(func() { close(a.c) })
	}
	return len(p), nil
}

func (a *asked) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.buf.String()
}

func inputInvocation(h *hooks.Hook, ws string, p hooks.Payload, stderr io.Writer) *hooks.Invocation {
	inv := pollInvocation(h, p, map[string]string{"RUNS": "runs"})
	inv.Workspace, inv.Stderr = ws, stderr
	return inv
}

func TestInputFileAnswer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		answer, reason string
		approved       bool
	}{
		{"approve looks good\nsecond line\n", "approved: looks good", true},
		{"Yes.\n", "approved", true},
		{"abort: tests are red\n", "rejected: tests are red", false},
		{"n", "rejected", false},
	} {
		t.Run(strings.Fields(tt.answer)[0], func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			r, h := inputHook(t, time.Minute, NewInput(InputOptions{PollInterval: 10 * time.Millisecond}),
				`{"file": "${RUNS}/{{session}}/answer", "responseVar": "ANSWER"}`)
			stderr := newAsked()
			out := run(r, inputInvocation(h, ws, hooks.Payload{"session": "auth"}, stderr), context.Background())
			<-stderr.c
			file := filepath.Join(ws, "runs", "auth", "answer")
			if !strings.Contains(stderr.String(), "an answer in "+file) {
				t.Errorf("stderr %q", stderr.String())
			}
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(tt.answer), 0o644); err != nil {
				t.Fatal(err)
			}
			o := <-out
			if (o.Decision == hooks.DecisionApprove) != tt.approved || o.Reason != tt.reason || o.Details["via"] != "file" {
				t.Errorf("outcome %+v", o)
			}
			if vars, _ := o.Set[hooks.KeyVars].(map[string]any); vars["ANSWER"] != strings.TrimSpace(tt.answer) {
				t.Errorf("handed on %v", o.Set)
			}
			if _, err := os.Lstat(file); !os.IsNotExist(err) {
				t.Errorf("the answer file is still there (it would answer the next question): %v", err)
			}
		})
	}
}

func TestInputStdinAnswer(t *testing.T) {
	t.Parallel()
	// Piped: blank lines are skipped, the first line decides.
	in := NewInput(InputOptions{Stdin: strings.NewReader("\n  \nreject not before the release\napprove\n")})
	r, h := inputHook(t, time.Minute, in, `{}`)
	o := r.Run(context.Background(), inputInvocation(h, t.TempDir(), hooks.Payload{}, io.Discard))
	if o.Status != hooks.StatusBlocked || o.Reason != "rejected: not before the release" || o.Details["via"] != "stdin" {
		t.Errorf("outcome %+v", o)
	}
	// The next question in the same run reads the next line.
	if o := r.Run(context.Background(), inputInvocation(h, t.TempDir(), hooks.Payload{}, io.Discard)); o.Decision != hooks.DecisionApprove {
		t.Errorf("second question: %+v", o)
	}

	// On a terminal the question is shown, and an answer that is neither is asked again.
	pr, pw := io.Pipe()
	r, h = inputHook(t, time.Minute, NewInput(InputOptions{Stdin: pr, StdinTerminal: true}), `{"message": "Ship {{v}}?"}`)
	stderr := newAsked()
	out := run(r, inputInvocation(h, t.TempDir(), hooks.Payload{"v": "1.2"}, stderr), context.Background())
	io.WriteString(pw, "maybe\n")
	io.WriteString(pw, "y\n")
	o = <-out
	if o.Decision != hooks.DecisionApprove || !strings.Contains(stderr.String(), "\nShip 1.2?\n\nAnswer (approve or reject, and a reason): ") ||
		!strings.Contains(stderr.String(), "Please answer approve or reject") {
		t.Errorf("outcome %+v, stderr %q", o, stderr.String())
	}
	pw.Close()
}

// TestInputUndecided: what cannot be an answer blocks, whatever timeoutAction says.
func TestInputUndecided(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, opts, stdin string
		before            func(ws string) // before the question
		after             func(ws string) // once asked
		payload           hooks.Payload
		want              string
	}{
		{name: "a piped answer that is neither", opts: `{}`, stdin: "maybe later\n", want: `the answer "maybe later" (stdin) is neither approve nor reject`},
		{name: "stdin ends", opts: `{}`, stdin: "\n", want: "standard input ended without an answer"},
		{name: "no stdin, no file", opts: `{"stdin": true}`, want: "no standard input to read the answer from, and no answer file"},
		{name: "an old answer", opts: `{"file": "answer"}`, before: func(ws string) { os.WriteFile(filepath.Join(ws, "answer"), []byte("approve"), 0o644) },
			want: "exists before the question was asked"},
		{name: "a file answer that is neither", opts: `{"file": "answer"}`, after: func(ws string) { os.WriteFile(filepath.Join(ws, "answer"), []byte("lgtm"), 0o644) },
			want: `the answer "lgtm" (file) is neither approve nor reject`},
		{name: "not a regular file", opts: `{"file": "answer"}`, after: func(ws string) { os.Symlink("elsewhere", filepath.Join(ws, "answer")) },
			want: "is not a regular file"},
		{name: "a payload value that moves the file", opts: `{"file": "runs/{{session}}/answer"}`, payload: hooks.Payload{"session": "../../etc"},
			want: `the payload's session ("../../etc") would move the answer file elsewhere`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			var stdin io.Reader
			if tt.stdin != "" {
				stdin = strings.NewReader(tt.stdin)
			}
			r, h := inputHook(t, time.Minute, NewInput(InputOptions{Stdin: stdin, PollInterval: 10 * time.Millisecond}), withOptions(t, tt.opts, map[string]any{"timeoutAction": "approve"}))
			if tt.before != nil {
				tt.before(ws)
			}
			stderr := newAsked()
			out := run(r, inputInvocation(h, ws, tt.payload, stderr), context.Background())
			if tt.after != nil {
				<-stderr.c
				tt.after(ws)
			}
			o := <-out
			if o.Status != hooks.StatusBlocked || o.Details["decision"] != "undecided" || !strings.Contains(o.Reason, tt.want) {
				t.Errorf("outcome %s %q, want undecided with %q", o.Status, o.Reason, tt.want)
			}
		})
	}
}

func TestInputTimeoutAction(t *testing.T) {
	t.Parallel()
	for _, action := range []string{"approve", "block"} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			pr, pw := io.Pipe() // standard input nobody types on
			defer pw.Close()
			r, h := inputHook(t, 200*time.Millisecond, NewInput(InputOptions{Stdin: pr, PollInterval: 10 * time.Millisecond}), `{"file": "answer", "stdin": true, "timeoutAction": "`+action+`"}`)
			o := r.Run(context.Background(), inputInvocation(h, t.TempDir(), hooks.Payload{}, io.Discard))
			if (o.Decision == hooks.DecisionApprove) != (action == "approve") || o.Details["via"] != "timeout" || !strings.HasSuffix(o.Reason, "(timeoutAction: "+action+")") {
				t.Errorf("outcome %+v", o)
			}
		})
	}
}

func TestInputConfigure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ opts, want string }{
		{`{"stdin": false}`, `input: nothing can answer: set "file", or leave "stdin" true`},
		{`{"file": "a", "responseVar": "IFS"}`, "responseVar: IFS is read by the shell"},
		{`{"file": "a", "files": "b"}`, `unknown field "files"`},
	} {
		h := &hooks.Hook{Name: "await", Type: TypeName, Event: hooks.ApprovalRequired, Enabled: true}
		_, err := NewType(map[string]Provider{"input": NewInput(InputOptions{})}).Configure(h, json.RawMessage(`{"provider": "input", `+strings.TrimPrefix(tt.opts, "{")))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.opts, err, tt.want)
		}
	}
}
