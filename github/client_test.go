package github

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// TestNotModifiedIsNotAnError: go-github v60 turns a 304 into an *ErrorResponse; the client's
// ETag cache answers it with the stored body, so a revalidated GET returns data, not an error.
func TestNotModifiedIsNotAnError(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	c, err := NewClient(testToken, s.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	target := Target{"octo", "hello", prNumber}
	for i := range 3 {
		pr, err := c.PullRequest(context.Background(), target)
		if err != nil || pr.GetHead().GetSHA() != headSHA || pr.GetNumber() != prNumber {
			t.Fatalf("call %d: %v %+v", i, err, pr)
		}
	}
	if nm, total := c.CacheStats(); nm != 2 || total != 3 {
		t.Errorf("304s %d of %d requests, want 2 of 3", nm, total)
	}
	reqs := s.Requests()
	if reqs[0].IfNoneMatch != "" || reqs[1].IfNoneMatch == "" || reqs[1].Status != http.StatusNotModified {
		t.Errorf("requests %+v: want the second one conditional and answered 304", reqs)
	}
	if r := c.Rate(); r.Limit != 5000 || r.Remaining != 4999 {
		t.Errorf("rate %+v: the 304s must carry the current rate limit and not spend it", r)
	}

	// A change is seen: the ETag no longer matches.
	s.AddPR(prNumber, "1111111111111111111111111111111111111111")
	if pr, err := c.PullRequest(context.Background(), target); err != nil || pr.GetHead().GetSHA() != "1111111111111111111111111111111111111111" {
		t.Fatalf("after a push: %v %v", err, pr.GetHead().GetSHA())
	}
}

func TestRateLimitWait(t *testing.T) {
	t.Parallel()
	now := time.Unix(1700000000, 0)
	resp := func(code int, h map[string]string) *http.Response {
		r := &http.Response{StatusCode: code, Header: http.Header{}, Request: &http.Request{Method: "GET"}}
		for k, v := range h {
			r.Header.Set(k, v)
		}
		return r
	}
	ten := 10 * time.Second
	for _, tt := range []struct {
		name    string
		err     error
		want    time.Duration
		limited bool
	}{
		{"primary", &gh.RateLimitError{Rate: gh.Rate{Reset: gh.Timestamp{Time: now.Add(42 * time.Second)}}}, 42 * time.Second, true},
		{"primary already reset", &gh.RateLimitError{Rate: gh.Rate{Reset: gh.Timestamp{Time: now.Add(-time.Second)}}}, 0, true},
		{"secondary with Retry-After", &gh.AbuseRateLimitError{RetryAfter: &ten}, ten, true},
		{"secondary without a hint", &gh.AbuseRateLimitError{}, defaultBackoff, true},
		{"429 Retry-After", &gh.ErrorResponse{Response: resp(429, map[string]string{"Retry-After": "7"})}, 7 * time.Second, true},
		{"429 reset", &gh.ErrorResponse{Response: resp(429, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000030"})}, 30 * time.Second, true},
		{"429 bare", &gh.ErrorResponse{Response: resp(429, nil)}, defaultBackoff, true},
		{"403 Retry-After", &gh.ErrorResponse{Response: resp(403, map[string]string{"Retry-After": "3"})}, 3 * time.Second, true},
		{"403 forbidden", &gh.ErrorResponse{Response: resp(403, nil)}, 0, false},
		{"500", &gh.ErrorResponse{Response: resp(500, nil)}, 0, false},
	} {
		got, limited := rateLimitWait(tt.err, now)
		if got != tt.want || limited != tt.limited {
			t.Errorf("%s: got %s %v, want %s %v", tt.name, got, limited, tt.want, tt.limited)
		}
	}
}

// TestLargePageIsNotCut: a page bigger than the ETag cache keeps (100 comments of GitHub's
// maximum 65536 characters, quotes escaped in JSON) is not cached, and must reach go-github whole.
func TestLargePageIsNotCut(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	body := strings.Repeat(`"`, 65536)
	for range 100 {
		s.AddComment(prNumber, "alice", body, time.Time{})
	}
	c, err := NewClient(testToken, s.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	comments, err := c.Comments(context.Background(), Target{"octo", "hello", prNumber}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(comments) != 100 || comments[99].GetBody() != body {
		t.Fatalf("got %d comments", len(comments))
	}
}
