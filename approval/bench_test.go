package approval

import (
	"encoding/json"
	"testing"
)

// BenchmarkExprMatch: one poll's worth of condition checking on a typical answer.
func BenchmarkExprMatch(b *testing.B) {
	e, err := CompileExpr(`.status == "approved" && !(.stale) || .review.state == 'APPROVED'`)
	if err != nil {
		b.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal([]byte(`{"status": "pending", "stale": false, "review": {"state": "APPROVED", "by": "ann"}}`), &doc); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !e.Match(doc) {
			b.Fatal("no match")
		}
	}
}
