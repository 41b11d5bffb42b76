package github

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/github/githubtest"
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

// TestPagingThatDoesNotAdvanceIsAnError: a server whose rel="next" link repeats, or whose pages
// never end, is read a bounded number of times and reported, instead of being asked forever
// (5,701 requests in 60 s before).
func TestPagingThatDoesNotAdvanceIsAnError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		paging githubtest.Paging
		want   string
	}{
		{"repeated next link", githubtest.PagingRepeatNext, `page 2's rel="next" link leads back to page 2, already read`},
		{"endless empty pages", githubtest.PagingEndless, `page 3 is empty but links a next page`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "agent-bot")
			for i := range 150 {
				s.AddComment(prNumber, "alice", fmt.Sprint("comment ", i), time.Time{})
			}
			s.SetPaging(tt.paging)
			c, err := NewClient(testToken, s.URL, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// The deadline only ends the loop this test is about if it comes back.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err = c.Comments(ctx, Target{"octo", "hello", prNumber}, time.Time{})
			if err == nil || !strings.Contains(err.Error(), "list the comments of octo/hello#12: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error saying %q", err, tt.want)
			}
			if n := len(s.Requests()); n > 3 {
				t.Errorf("%d requests, want the paging given up at the first page that does not advance", n)
			}
		})
	}
}

// TestPagingIsBounded: a list longer than maxPages pages is an error, not an unbounded read.
func TestPagingIsBounded(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	for range maxPages*pageSize + 1 {
		s.AddReview(prNumber, "mallory", "COMMENTED", "hm", "", time.Time{})
	}
	c, err := NewClient(testToken, s.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Reviews(context.Background(), Target{"octo", "hello", prNumber})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d pages", maxPages)) {
		t.Errorf("got %v, want an error about the page bound", err)
	}
	if n := len(s.Requests()); n != maxPages {
		t.Errorf("%d requests, want %d", n, maxPages)
	}
}

// TestRequestGitHubDoesNotAnswer: a request GitHub never answers ends after RequestTimeout, as
// an error that says so, even without a deadline on the context.
func TestRequestGitHubDoesNotAnswer(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	s.Fail(githubtest.Fault{Method: "GET", PathSuffix: "/pulls/12", Count: 1, Hang: true})
	c, err := NewClient(testToken, s.URL, Options{RequestTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.PullRequest(context.Background(), Target{"octo", "hello", prNumber})
	if err == nil || err.Error() != "get pull request octo/hello#12: GitHub did not answer in time" {
		t.Fatalf("got %v", err)
	}
}

func TestMissingPermission(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"issues=write; pull_requests=write": "the token lacks issues: write or pull-requests: write; add `permissions: pull-requests: write` to the job",
		"pull_requests=write":               "the token lacks pull-requests: write; add `permissions: pull-requests: write` to the job",
		"contents=read,checks=write":        "the token lacks contents: read and checks: write; add `permissions: contents: read, checks: write` to the job",
		"":                                  "GitHub refused the token; it needs pull-requests: write and issues: write (a workflow's `permissions:`; the repo scope for a classic token)",
	} {
		if got := missingPermission(header); got != want {
			t.Errorf("%q:\ngot  %s\nwant %s", header, got, want)
		}
	}
}

// TestIsSelfOfAnInstallationToken: GET /user answers an installation token 403; its account is
// GraphQL's viewer, beside the REST root on github.com and at /api/graphql on GitHub Enterprise
// Server (REST at /api/v3).
func TestIsSelfOfAnInstallationToken(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"", "/api/v3"} {
		s := newServer(t, "")
		s.SetAppBot("my-agent[bot]")
		c, err := NewClient(testToken, s.URL+suffix, Options{})
		if err != nil {
			t.Fatal(err)
		}
		me := s.AddComment(prNumber, "my-agent[bot]", "hi", time.Time{})
		other := s.AddComment(prNumber, "other-agent[bot]", "hi", time.Time{})
		comments, err := c.Comments(context.Background(), Target{"octo", "hello", prNumber}, time.Time{})
		if err != nil || len(comments) != 2 || comments[0].GetID() != me.ID || comments[1].GetID() != other.ID {
			t.Fatalf("%q: comments %v %v", suffix, comments, err)
		}
		for i, want := range []bool{true, false} {
			if got, err := c.IsSelf(context.Background(), comments[i].GetUser()); err != nil || got != want {
				t.Errorf("%q: IsSelf(%s) = %v, %v; want %v", suffix, comments[i].GetUser().GetLogin(), got, err, want)
			}
		}
		var asked []string
		for _, rq := range s.Requests() {
			asked = append(asked, fmt.Sprintf("%s %s %d", rq.Method, rq.Path, rq.Status))
		}
		if want := []string{"GET " + suffix + "/user 403", "POST " + strings.TrimSuffix(suffix, "/v3") + "/graphql 200"}; !slices.Equal(asked[1:], want) {
			t.Errorf("%q: requests %v, want the comments then %v", suffix, asked, want)
		}
	}
}
