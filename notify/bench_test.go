package notify

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/notify/webhooks"
)

// BenchmarkWebhookSlack: render and post one slack notification to a local endpoint.
func BenchmarkWebhookSlack(b *testing.B) {
	srv := httptest.NewServer(&recorder{})
	defer srv.Close()
	s := &Sender{Retries: 0}
	target := Target{Format: webhooks.FormatSlack, URL: srv.URL + "/services/T/B/x"}
	p := hooks.Payload{"sessionId": "s", "status": "failed", "iterations": float64(12), "durationMs": float64(90500), "reason": "tests failed"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Deliver(context.Background(), s, target, MessageFromPayload(hooks.SessionEnd, p, "")); err != nil {
			b.Fatal(err)
		}
	}
}
