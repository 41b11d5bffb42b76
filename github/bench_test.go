package github

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/github/githubtest"
	"github.com/autoagent/agent-hooks/hooks"
)

// benchApproval is one approval request on a busy pull request: 300 comments and 100 reviews made
// before it (three and one pages) and none since.
func benchApproval(b *testing.B) (*githubtest.Server, *approvalRun) {
	b.Helper()
	s := githubtest.New("octo", "hello", testToken, "agent-bot")
	b.Cleanup(s.Close)
	s.AddPR(prNumber, headSHA)
	old := time.Now().Add(-time.Hour)
	for i := range 300 {
		s.AddComment(prNumber, "alice", fmt.Sprintf("comment %d", i), old)
	}
	for range 100 {
		s.AddReview(prNumber, "alice", "COMMENTED", "hm", "", old)
	}
	c, err := NewClient(testToken, s.URL, Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := &approvalRunner{minApprovals: 1, requireHead: true, interval: time.Millisecond, timeoutAction: hooks.DecisionBlock}
	r.approveWords, r.rejectWords, _ = commandWords(nil, nil)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	a := &approvalRun{approvalRunner: r, c: c, t: Target{"octo", "hello", prNumber}, inv: inv, key: "bench", timeout: time.Minute}
	ctx := context.Background()
	if err := a.refreshPR(ctx); err != nil {
		b.Fatal(err)
	}
	if _, _, err := a.findOrPostRequest(ctx); err != nil {
		b.Fatal(err)
	}
	return s, a
}

// BenchmarkApprovalFind is the first look at a pull request: every page of comments read in full
// to find an earlier request (a fresh client, so nothing is cached).
func BenchmarkApprovalFind(b *testing.B) {
	s, a := benchApproval(b)
	ctx := context.Background()
	before := len(s.Requests())
	b.ResetTimer()
	for b.Loop() {
		c, _ := NewClient(testToken, s.URL, Options{})
		a.c = c
		if _, err := c.Comments(ctx, a.t, time.Time{}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Reviews(ctx, a.t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.Requests())-before)/float64(b.N), "requests/op")
}

// BenchmarkApprovalPoll is one poll while nobody answers: pull request, comments since the
// request and reviews, each revalidated with its ETag (304, no quota); the request unchanged, no
// GraphQL query of its edits (graphql/op).
func BenchmarkApprovalPoll(b *testing.B) {
	s, a := benchApproval(b)
	ctx := context.Background()
	before := len(s.Requests())
	notModified0, _ := a.c.CacheStats()
	b.ResetTimer()
	for b.Loop() {
		if err := a.refreshPR(ctx); err != nil {
			b.Fatal(err)
		}
		v, err := a.check(ctx)
		if err != nil || v.decided {
			b.Fatal(err, v.decided)
		}
	}
	notModified, _ := a.c.CacheStats()
	graphQL := 0
	for _, rq := range s.Requests()[before:] {
		if rq.Path == "/graphql" {
			graphQL++
		}
	}
	b.ReportMetric(float64(len(s.Requests())-before)/float64(b.N), "requests/op")
	b.ReportMetric(float64(notModified-notModified0)/float64(b.N), "304s/op")
	b.ReportMetric(float64(graphQL)/float64(b.N), "graphql/op")
}
