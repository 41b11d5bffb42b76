package pipelines_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/pipelines"
	"github.com/autoagent/agent-hooks/hooks/seedfmt/seedtest"
)

// approvalTypes is the approval hook type with the providers the plan's await hooks become.
func approvalTypes(t *testing.T) map[string]hooks.Type {
	t.Helper()
	return map[string]hooks.Type{approval.TypeName: approval.NewType(map[string]approval.Provider{
		"callback":  &approval.Callback{Protect: func() error { return nil }},
		"input":     approval.NewInput(approval.InputOptions{PollInterval: 10 * time.Millisecond}),
		"http-poll": approval.HTTPPoll{},
	})}
}

// seedAwaitWebhook is the plan's "Await Webhook" example, with the global hook of the same
// point reading the answer.
const seedAwaitWebhook = `hooks:
  on_approval_required:
    type: await_webhook
    send:
      url: "${APPROVAL_WEBHOOK_URL}"
      method: POST
      body:
        session: "${SESSION}"
        iteration: "${ITERATION}"
        summary: "${PROGRESS_SUMMARY}"
        approve_url: "${CALLBACK_URL}/approve"
        reject_url: "${CALLBACK_URL}/reject"
    receive:
      port: 0
      timeout: 86400
      timeout_action: continue
    response_var: APPROVAL_RESPONSE
`

// TestAwaitWebhook: the plan's await_webhook sends its body with the callback URLs, a real HTTP
// client calls back, the event is decided by it, and the later hooks of the event get the answer
// in $APPROVAL_RESPONSE.
func TestAwaitWebhook(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		verb    string
		blocked bool
	}{{"approve", false}, {"reject", true}} {
		t.Run(tt.verb, func(t *testing.T) {
			t.Parallel()
			var sent map[string]any
			slack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				if err := json.Unmarshal(b, &sent); err != nil {
					t.Errorf("request body %s: %v", b, err)
					return
				}
				go func() { // the bot calls back once the request is in
					url, _ := sent[tt.verb+"_url"].(string)
					resp, err := http.Post(url, "text/plain", strings.NewReader("from the bot"))
					if err != nil {
						t.Errorf("callback: %v", err)
						return
					}
					resp.Body.Close()
				}()
			}))
			defer slack.Close()
			w := newWorkspace(t, seedAwaitWebhook, "on_approval_required() {\n  echo \"global: $1 $2 answer=$APPROVAL_RESPONSE\"\n}\n")
			w.Types = approvalTypes(t)
			w.Env["APPROVAL_WEBHOOK_URL"] = slack.URL + "/hook"
			w.Env["PROGRESS_SUMMARY"] = "3 of 5 done"
			res := w.Fire("on_approval_required", "sessionName", "auth", "iteration", 4)
			if res.Blocked != tt.blocked || res.Hooks[0].Name != "on_approval_required (await_webhook)" {
				t.Fatalf("blocked %v, hooks %v", res.Blocked, seedtest.Statuses(res))
			}
			approveURL, _ := sent["approve_url"].(string)
			callback := strings.TrimSuffix(approveURL, "/approve")
			if !strings.HasPrefix(callback, "http://127.0.0.1:") || sent["reject_url"] != callback+"/reject" ||
				sent["session"] != w.Session || sent["iteration"] != "4" || sent["summary"] != "3 of 5 done" {
				t.Errorf("sent %v", sent)
			}
			if tt.blocked {
				if res.Reason != "rejected by callback: from the bot" || len(res.Hooks) != 1 {
					t.Errorf("reason %q, hooks %v", res.Reason, seedtest.Statuses(res))
				}
				return
			}
			if got := seedtest.Statuses(res); !slices.Equal(got, []string{"on_approval_required (await_webhook)=ok", "global on_approval_required=ok"}) {
				t.Fatalf("ran %v", got)
			}
			if got := res.Hooks[1].Stdout; got != "global: auth 4 answer=from the bot\n" {
				t.Errorf("the global hook saw %q", got)
			}
			if vars, _ := res.Set[hooks.KeyVars].(map[string]any); vars["APPROVAL_RESPONSE"] != "from the bot" {
				t.Errorf("outputs %v", res.Set)
			}
		})
	}
}

// TestAwaitWebhookOptions: what the plan's keys become.
func TestAwaitWebhookOptions(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, `hooks:
  on_checkpoint:
    type: await_webhook
    send:
      url: "${HOOK}/x/${SESSION}"
      method: PUT
      headers: {Authorization: "Bearer ${TOKEN}"}
      body:
        text: "Quality check at ${ITERATION}"
        actions:
          - {text: Approve, url: "${CALLBACK_URL}?action=approve"}
    receive:
      port: 8765
      host: 0.0.0.0
      public_url: https://relay.example/cb
      timeout: 60
`, "")
	loop, diags, err := pipelines.ReadLoop(w.LoadEnv())
	if err != nil || len(diags) != 0 || len(loop.Hooks) != 1 {
		t.Fatalf("read: %v %v %v", err, diags, loop)
	}
	h := loop.Hooks[0]
	var got map[string]any
	if err := json.Unmarshal(h.Options, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"provider": "callback", "url": "${HOOK}/x/{{sessionId}}", "method": "PUT", "listen": "0.0.0.0:8765",
		"publicUrl": "https://relay.example/cb", "timeoutAction": "block",
		"message": "Approve {{eventName}} of agent-pipelines session {{sessionId}}?",
		"headers": map[string]any{"Authorization": "Bearer ${TOKEN}"},
		"body":    map[string]any{"text": "Quality check at {{iteration}}", "actions": []any{map[string]any{"text": "Approve", "url": "{{callbackUrl}}?action=approve"}}},
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) || h.Event != hooks.Checkpoint || h.Type != approval.TypeName || h.Timeout != time.Minute {
		t.Errorf("hook %s %s %s\n got %s\nwant %s", h.Event, h.Type, h.Timeout, gb, wb)
	}
}

// TestAwaitInput: the answer file, written once the question is asked, decides; the answer is
// handed on.
func TestAwaitInput(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, `hooks:
  on_approval_required:
    type: await_input
    prompt: "Plan ready for ${SESSION}: approve?"
    file: "answers/${SESSION}"
    timeout: 600
    response_var: APPROVAL_RESPONSE
`, "on_approval_required() {\n  echo \"answer=$APPROVAL_RESPONSE\"\n}\n")
	w.Types = approvalTypes(t)
	answer := filepath.Join(w.Dir, "answers", w.Session)
	if err := os.MkdirAll(filepath.Dir(answer), 0o755); err != nil {
		t.Fatal(err)
	}
	e := w.Engine()
	asked := make(chan struct{})
	e.Stderr = stderrWatch(func(line string) {
		if strings.Contains(line, "waiting until") {
			close(asked)
		}
	})
	done := make(chan *hooks.Result, 1)
	go func() {
		res, err := e.Fire(context.Background(), "on_approval_required", hooks.Payload{})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-asked
	if err := os.WriteFile(answer, []byte("approve the plan is fine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res == nil || res.Blocked || len(res.Hooks) != 2 || res.Hooks[1].Stdout != "answer=approve the plan is fine\n" {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(answer); !os.IsNotExist(err) {
		t.Errorf("the answer file was not consumed: %v", err)
	}
}

// stderrWatch is a writer calling f with each write.
type stderrWatch func(string)

func (f stderrWatch) Write(p []byte) (int, error) { f(string(p)); return len(p), nil }
