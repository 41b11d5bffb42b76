package github

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/github/githubtest"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/internal/progress/progresstest"
)

// answerRequest makes the fake GitHub react to the approval request comment the moment it is
// posted, like a reviewer watching the pull request.
func answerRequest(s *githubtest.Server, react func(s *githubtest.Server)) {
	s.OnComment(func(s *githubtest.Server, c githubtest.Comment) {
		if strings.Contains(c.Body, "agent-hooks:approval") {
			react(s)
		}
	})
}

// requestComments are the comments of the pull request that are approval requests.
func requestComments(s *githubtest.Server) []githubtest.Comment {
	var found []githubtest.Comment
	for _, c := range s.Comments(prNumber) {
		if strings.HasPrefix(c.Body, "<!-- agent-hooks:approval") {
			found = append(found, c)
		}
	}
	return found
}

func requestComment(t *testing.T, s *githubtest.Server) githubtest.Comment {
	t.Helper()
	found := requestComments(s)
	if len(found) != 1 {
		t.Fatalf("got %d approval request comments, want 1: %+v", len(found), found)
	}
	return found[0]
}

func TestApprovalDecisions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		options     string
		react       func(s *githubtest.Server)
		wantStatus  hooks.Status
		wantReason  string // substring of the block reason
		wantDecider string
		wantVia     string
		wantStatusL string // substring of the edited request comment
	}{
		{
			name:       "approving review by a writer",
			react:      func(s *githubtest.Server) { s.AddReview(prNumber, "alice", "APPROVED", "ship it", "", time.Time{}) },
			wantStatus: hooks.StatusOK, wantDecider: "alice", wantVia: "review", wantStatusL: "✅ **Approved** by @alice",
		},
		{
			name:       "/approve comment by an admin",
			react:      func(s *githubtest.Server) { s.AddComment(prNumber, "bob", "/approve\nlooks fine", time.Time{}) },
			wantStatus: hooks.StatusOK, wantDecider: "bob", wantVia: "comment", wantStatusL: "`/approve`",
		},
		{
			name:       "maintain role counts as write",
			react:      func(s *githubtest.Server) { s.AddComment(prNumber, "carol", "/APPROVE", time.Time{}) },
			wantStatus: hooks.StatusOK, wantDecider: "carol", wantVia: "comment",
		},
		{
			name: "/reject with a reason",
			react: func(s *githubtest.Server) {
				s.AddComment(prNumber, "alice", "/reject the plan skips the migration", time.Time{})
			},
			wantStatus: hooks.StatusBlocked, wantReason: "rejected by @alice on octo/hello#12: the plan skips the migration",
			wantDecider: "alice", wantVia: "comment", wantStatusL: "❌ **Rejected** by @alice",
		},
		{
			name: "changes requested: the review body is the reason",
			react: func(s *githubtest.Server) {
				s.AddReview(prNumber, "bob", "CHANGES_REQUESTED", "Please split the change.", "", time.Time{})
			},
			wantStatus: hooks.StatusBlocked, wantReason: "Please split the change.", wantDecider: "bob", wantVia: "review",
		},
		{
			name:       "a read-only user cannot approve",
			react:      func(s *githubtest.Server) { s.AddComment(prNumber, "mallory", "/approve", time.Time{}) },
			wantStatus: hooks.StatusBlocked, wantReason: "no approval on octo/hello#12 within", wantStatusL: "then blocks; run again, it takes up an answer given since",
		},
		{
			name:       "listed approvers decide whatever their permission",
			options:    `"approvers": ["@mallory"]`,
			react:      func(s *githubtest.Server) { s.AddComment(prNumber, "mallory", "/approve", time.Time{}) },
			wantStatus: hooks.StatusOK, wantDecider: "mallory", wantVia: "comment",
		},
		{
			name:       "a user unknown to the repository cannot approve",
			react:      func(s *githubtest.Server) { s.AddComment(prNumber, "stranger", "/approve", time.Time{}) },
			wantStatus: hooks.StatusBlocked, wantReason: "no approval",
		},
		{
			name:       "the bot's own /approve never counts",
			react:      func(s *githubtest.Server) { s.AddComment(prNumber, "agent-bot", "/approve", time.Time{}) },
			wantStatus: hooks.StatusBlocked, wantReason: "no approval",
		},
		{
			name: "an approval of an older commit does not count",
			react: func(s *githubtest.Server) {
				s.AddReview(prNumber, "alice", "APPROVED", "", "0000000000000000000000000000000000000001", time.Time{})
			},
			wantStatus: hooks.StatusBlocked, wantReason: "no approval",
		},
		{
			name:    "requireHeadCommit false accepts an older commit",
			options: `"requireHeadCommit": false`,
			react: func(s *githubtest.Server) {
				s.AddReview(prNumber, "alice", "APPROVED", "", "0000000000000000000000000000000000000001", time.Time{})
			},
			wantStatus: hooks.StatusOK, wantDecider: "alice", wantVia: "review",
		},
		{
			name:       "minApprovals 2 with one approval times out",
			options:    `"minApprovals": 2`,
			react:      func(s *githubtest.Server) { s.AddReview(prNumber, "alice", "APPROVED", "", "", time.Time{}) },
			wantStatus: hooks.StatusBlocked, wantReason: "(1 of 2 approvals)",
		},
		{
			name:    "minApprovals 2: the second approver decides",
			options: `"minApprovals": 2`,
			react: func(s *githubtest.Server) {
				s.AddReview(prNumber, "alice", "APPROVED", "", "", time.Time{})
				s.AddComment(prNumber, "bob", "/approve", time.Now().Add(time.Second))
			},
			wantStatus: hooks.StatusOK, wantDecider: "bob", wantVia: "comment", wantStatusL: "@alice (an approving review, [link](https://github.com/octo/hello/pull/12#pullrequestreview-",
		},
		{
			name:       "timeoutAction approve",
			options:    `"timeoutAction": "approve"`,
			react:      func(*githubtest.Server) {},
			wantStatus: hooks.StatusOK, wantStatusL: "approved automatically",
		},
		{
			name: "a later approval by the same user replaces the rejection",
			react: func(s *githubtest.Server) {
				s.AddComment(prNumber, "alice", "/reject not yet", time.Now().Add(-time.Second))
				s.AddReview(prNumber, "alice", "APPROVED", "", "", time.Now().Add(time.Second))
			},
			wantStatus: hooks.StatusOK, wantDecider: "alice", wantVia: "review",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "agent-bot")
			answerRequest(s, tt.react)
			opts := `"pollInterval": 10`
			if tt.options != "" {
				opts += ", " + tt.options
			}
			r := configureApproval(t, Options{}, "{"+opts+"}")
			// Cases that end in a timeout wait 300ms; the others get time to spare on a busy machine.
			timeout := 10 * time.Second
			if strings.Contains(tt.wantReason, "no approval") || strings.Contains(tt.wantReason, "approvals)") || strings.Contains(tt.options, "timeoutAction") {
				timeout = 300 * time.Millisecond
			}
			inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, timeout, nil)
			out := r.Run(context.Background(), inv)

			if out.Status != tt.wantStatus {
				t.Fatalf("status = %s (reason %q), want %s", out.Status, out.Reason, tt.wantStatus)
			}
			if !strings.Contains(out.Reason, tt.wantReason) {
				t.Errorf("reason = %q, want it to contain %q", out.Reason, tt.wantReason)
			}
			if got := out.Details["decider"]; tt.wantDecider != "" && got != tt.wantDecider {
				t.Errorf("decider = %v, want %s", got, tt.wantDecider)
			}
			if got := out.Details["via"]; tt.wantVia != "" && got != tt.wantVia {
				t.Errorf("via = %v, want %s", got, tt.wantVia)
			}
			if tt.wantDecider != "" && !strings.HasPrefix(fmt.Sprint(out.Details["url"]), "https://github.com/octo/hello/pull/12#") {
				t.Errorf("url = %v, want the review or comment URL", out.Details["url"])
			}
			req := requestComment(t, s)
			if !strings.Contains(req.Body, "/approve") || !strings.Contains(req.Body, "/reject <reason>") {
				t.Errorf("request comment lacks the instructions:\n%s", req.Body)
			}
			if !strings.Contains(req.Body, tt.wantStatusL) {
				t.Errorf("request comment = %q, want it edited to contain %q", req.Body, tt.wantStatusL)
			}
			switch {
			case out.Details["timedOut"] == true && out.Status == hooks.StatusBlocked:
				// Undecided: left open as posted, for a run made again to take up.
				if len(req.Edits) != 0 || !strings.Contains(req.Body, "Waiting for a decision") {
					t.Errorf("the request was edited (%d edits), want it left as posted:\n%s", len(req.Edits), req.Body)
				}
			case strings.Contains(req.Body, "Waiting for a decision"):
				t.Errorf("request comment still says it is waiting:\n%s", req.Body)
			}
		})
	}
}

func TestApprovalIgnoresVotesBeforeTheRequest(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	old := time.Now().Add(-time.Hour)
	s.AddComment(prNumber, "alice", "/approve", old)
	s.AddReview(prNumber, "bob", "APPROVED", "", "", old)
	r := configureApproval(t, Options{}, `{"pollInterval": 10}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, 150*time.Millisecond, nil)
	out := r.Run(context.Background(), inv)
	if out.Status != hooks.StatusBlocked || out.Details["timedOut"] != true {
		t.Fatalf("got %s %v, want a timeout block: votes made before the request must not count", out.Status, out.Details)
	}
}

// TestApprovalReadsEveryPage answers after 250 older comments and 120 older reviews, so that the
// decision is only seen by following the Link headers to the last page.
func TestApprovalReadsEveryPage(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	old := time.Now().Add(-time.Hour)
	for i := range 250 {
		s.AddComment(prNumber, "mallory", fmt.Sprintf("chatter %d", i), old)
	}
	for range 120 {
		s.AddReview(prNumber, "mallory", "COMMENTED", "hm", "", old)
	}
	answerRequest(s, func(s *githubtest.Server) {
		s.AddReview(prNumber, "alice", "APPROVED", "", "", time.Time{})
	})
	r := configureApproval(t, Options{}, `{"pollInterval": 10}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, 10*time.Second, nil)
	if out := r.Run(context.Background(), inv); out.Status != hooks.StatusOK || out.Details["decider"] != "alice" {
		t.Fatalf("got %s %q %v, want approved by alice", out.Status, out.Reason, out.Details)
	}
	pages := map[string]bool{}
	for _, rq := range s.Requests() {
		if rq.Method == "GET" && strings.Contains(rq.Query, "page=") {
			pages[rq.Path+"?"+pageOf(rq.Query)] = true
		}
		if strings.HasSuffix(rq.Path, "/comments") && rq.Method == "GET" && !strings.Contains(rq.Query, "per_page=100") {
			t.Errorf("comments listed without per_page=100: %s", rq.Query)
		}
	}
	for _, want := range []string{"/repos/octo/hello/issues/12/comments?page=3", "/repos/octo/hello/pulls/12/reviews?page=2"} {
		if !pages[want] {
			t.Errorf("never fetched %s; fetched %v", want, pages)
		}
	}
}

func pageOf(query string) string {
	for _, kv := range strings.Split(query, "&") {
		if strings.HasPrefix(kv, "page=") {
			return kv
		}
	}
	return ""
}

// TestApprovalPollsWithETagsAndSince checks that polling revalidates with If-None-Match (a 304
// costs no quota) and asks only for comments since the request.
func TestApprovalPollsWithETagsAndSince(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	sl := &sleeper{}
	sl.after = func(n int) {
		if n == 4 {
			s.AddComment(prNumber, "alice", "/approve", time.Time{})
		}
	}
	r := configureApproval(t, Options{Sleep: sl.sleep}, `{"pollInterval": 5}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, 10*time.Second, nil)
	out := r.Run(context.Background(), inv)
	if out.Status != hooks.StatusOK || out.Details["decider"] != "alice" {
		t.Fatalf("got %s %q, want approved by alice", out.Status, out.Reason)
	}
	req := requestComment(t, s)
	var notModified, sinceOK, withoutSince int
	for _, rq := range s.Requests() {
		if rq.Status == 304 {
			notModified++
			if rq.IfNoneMatch == "" {
				t.Errorf("304 without If-None-Match: %+v", rq)
			}
		}
		if rq.Method == "GET" && strings.HasSuffix(rq.Path, "/issues/12/comments") {
			if strings.Contains(rq.Query, "since="+strings.ReplaceAll(req.CreatedAt.Format(time.RFC3339), ":", "%3A")) {
				sinceOK++
			} else {
				withoutSince++
			}
		}
	}
	if notModified < 6 {
		t.Errorf("%d requests answered 304, want the unchanged polls revalidated (PR, comments, reviews each poll)", notModified)
	}
	if sinceOK < 4 || withoutSince != 1 {
		t.Errorf("comment lists: %d with since=request time, %d without; want every poll with since and only the lookup of an earlier request without", sinceOK, withoutSince)
	}
}

func TestApprovalWaitFalse(t *testing.T) {
	t.Parallel()
	s := newServer(t, "")
	r := configureApproval(t, Options{}, `{"wait": false}`)
	e := serverEnv(s)

	inv, _ := invocation(e, hooks.PreExecutionStart, time.Minute, nil)
	out := r.Run(context.Background(), inv)
	if out.Status != hooks.StatusBlocked || out.Details["pending"] != true || !strings.Contains(out.Reason, "waiting for approval") {
		t.Fatalf("first run: got %s %q %v, want blocked as pending", out.Status, out.Reason, out.Details)
	}
	first := requestComment(t, s)
	if first.Login != "github-actions[bot]" {
		t.Errorf("request posted as %s", first.Login)
	}

	// A second run with nothing new stays pending and does not post again.
	inv, _ = invocation(e, hooks.PreExecutionStart, time.Minute, nil)
	if out := r.Run(context.Background(), inv); out.Details["pending"] != true {
		t.Fatalf("second run: got %s %v, want pending", out.Status, out.Details)
	}

	// The run triggered by pull_request_review finds the review and approves.
	s.AddReview(prNumber, "alice", "APPROVED", "go", "", time.Now().Add(time.Second))
	inv, _ = invocation(e, hooks.PreExecutionStart, time.Minute, nil)
	out = r.Run(context.Background(), inv)
	if out.Status != hooks.StatusOK || out.Decision != hooks.DecisionApprove || out.Details["decider"] != "alice" {
		t.Fatalf("third run: got %s %q %v, want approved by alice", out.Status, out.Reason, out.Details)
	}
	req := requestComment(t, s)
	if req.ID != first.ID || !strings.Contains(req.Body, "Approved** by @alice") {
		t.Errorf("request comment %d (first %d) not edited in place with the outcome:\n%s", req.ID, first.ID, req.Body)
	}
}

func TestApprovalNewHeadAsksAgain(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	r := configureApproval(t, Options{}, `{"wait": false}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	r.Run(context.Background(), inv)
	s.AddPR(prNumber, "1111111111111111111111111111111111111111")
	inv, _ = invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	if out := r.Run(context.Background(), inv); out.Details["pending"] != true {
		t.Fatalf("got %v, want pending", out.Details)
	}
	cs := s.Comments(prNumber)
	if len(cs) != 2 || !strings.Contains(cs[0].Body, "Superseded") || !strings.Contains(cs[1].Body, `head="1111111111111111111111111111111111111111"`) {
		t.Fatalf("want the old request marked superseded and a new one for the new head; got %+v", cs)
	}
}

func TestApprovalRateLimits(t *testing.T) {
	t.Parallel()
	primary := githubtest.Fault{Method: "GET", PathSuffix: "/issues/12/comments", Count: 1, Status: 403,
		Header: map[string]string{"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "{now}", "X-RateLimit-Resource": "core"},
		Body:   `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit","status":"403"}`}
	secondary := githubtest.Fault{Method: "GET", PathSuffix: "/pulls/12/reviews", Count: 1, Status: 403,
		Header: map[string]string{"Retry-After": "1"},
		Body:   `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits","status":"403"}`}
	secondaryReset := githubtest.Fault{Method: "POST", PathSuffix: "/issues/12/comments", Count: 1, Status: 403,
		Header: map[string]string{"X-RateLimit-Reset": "{now}"},
		Body:   `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}
	tooMany := githubtest.Fault{Method: "GET", PathSuffix: "/pulls/12", Count: 2, Status: 429,
		Header: map[string]string{"Retry-After": "30"}, Body: `{"message":"Too many requests"}`}
	tests := []struct {
		name  string
		fault githubtest.Fault
		want  time.Duration // the back-off asked for, within a second
	}{
		{"primary: 403 with X-RateLimit-Remaining 0 waits for the reset", primary, 0},
		{"secondary: 403 with Retry-After", secondary, time.Second},
		{"secondary: 403 with X-RateLimit-Reset", secondaryReset, 0},
		{"429 with Retry-After", tooMany, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "agent-bot")
			s.Fail(tt.fault)
			answerRequest(s, func(s *githubtest.Server) { s.AddComment(prNumber, "alice", "/approve", time.Time{}) })
			sl := &sleeper{}
			r := configureApproval(t, Options{Sleep: sl.sleep}, `{"pollInterval": 10}`)
			inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, 2*time.Minute, nil)
			out := r.Run(context.Background(), inv)
			if out.Status != hooks.StatusOK {
				t.Fatalf("got %s %q, want approved after backing off", out.Status, out.Reason)
			}
			waits := sl.recorded()
			if len(waits) == 0 {
				t.Fatal("never backed off")
			}
			if d := waits[0] - tt.want; d < -time.Second || d > time.Second {
				t.Errorf("first back-off %s, want about %s", waits[0], tt.want)
			}
			var limited int
			for _, rq := range s.Requests() {
				if rq.Status == 403 || rq.Status == 429 {
					limited++
				}
			}
			if limited != tt.fault.Count {
				t.Errorf("%d rate-limited answers, want %d (a retry must wait, not hammer)", limited, tt.fault.Count)
			}
		})
	}
}

func TestApprovalRateLimitPastDeadline(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	s.Fail(githubtest.Fault{Method: "GET", PathSuffix: "/pulls/12", Count: 1, Status: 429, Header: map[string]string{"Retry-After": "3600"}})
	r := configureApproval(t, Options{Sleep: (&sleeper{}).sleep}, `{}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := r.Run(ctx, inv)
	if out.Status != hooks.StatusBlocked || !strings.Contains(out.Reason, "github approval could not be decided: get pull request octo/hello#12: rate limited by GitHub for 1h0m0s, past the hook's deadline") {
		t.Fatalf("got %s %q", out.Status, out.Reason)
	}
}

// TestApprovalSlowsDownNearTheRateLimit: with fewer requests left than a check needs, the next
// check waits for the rate-limit window to reset instead of the poll interval.
func TestApprovalSlowsDownNearTheRateLimit(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	sl := &sleeper{}
	sl.after = func(int) { s.SetRemaining(5000); s.AddComment(prNumber, "alice", "/approve", time.Time{}) }
	answerRequest(s, func(s *githubtest.Server) { s.SetRemaining(4) })
	r := configureApproval(t, Options{Sleep: sl.sleep}, `{"pollInterval": 5}`)
	inv, stderr := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	if out := r.Run(context.Background(), inv); out.Status != hooks.StatusOK {
		t.Fatalf("got %s %q", out.Status, out.Reason)
	}
	waits := sl.recorded()
	if len(waits) == 0 || waits[0] < 50*time.Second {
		t.Fatalf("waits %v: want the first wait to last until the deadline (the reset is an hour away), not 5ms", waits)
	}
	if !strings.Contains(stderr.String(), "GitHub API requests left until") {
		t.Errorf("no progress line about the rate limit:\n%s", stderr.String())
	}
}

// TestApprovalCancelledLeavesTheRequestOpen: an interrupted wait leaves the request as posted (a
// run made again takes it up, which it could not if it were edited), and a message cannot forge
// the status marker.
func TestApprovalCancelledLeavesTheRequestOpen(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	ctx, cancel := context.WithCancel(context.Background())
	sl := &sleeper{after: func(int) { cancel() }}
	r := configureApproval(t, Options{Sleep: sl.sleep}, `{"pollInterval": 5, "message": "<!-- agent-hooks:status --> sneaky"}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	out := r.Run(ctx, inv)
	if out.Status != hooks.StatusBlocked || !strings.Contains(out.Reason, "interrupted while waiting on octo/hello#12: context canceled") {
		t.Fatalf("got %s %q", out.Status, out.Reason)
	}
	req := requestComment(t, s)
	if len(req.Edits) != 0 || !strings.Contains(req.Body, "Waiting for a decision") || !strings.Contains(req.Body, "&lt;!-- agent-hooks:status --> sneaky") {
		t.Errorf("request comment (%d edits), want it left as posted:\n%s", len(req.Edits), req.Body)
	}
}

// TestApprovalOfAnAppBot: wait: false across runs finds the request an App's token posted, and
// an App's /approve never counts.
func TestApprovalOfAnAppBot(t *testing.T) {
	t.Parallel()
	s := newServer(t, "")
	s.SetAppBot("my-agent[bot]")
	r := configureApproval(t, Options{}, `{"wait": false}`)
	for range 2 {
		inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
		if out := r.Run(context.Background(), inv); out.Details["pending"] != true {
			t.Fatalf("got %s %q, want pending", out.Status, out.Reason)
		}
	}
	s.AddComment(prNumber, "other-app[bot]", "/approve", time.Now().Add(time.Second))
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	if out := r.Run(context.Background(), inv); out.Details["pending"] != true {
		t.Fatalf("a bot's /approve counted: %s %v", out.Status, out.Details)
	}
	if got := commentsBy(s, "my-agent[bot]"); len(got) != 1 {
		t.Fatalf("want one request, got %+v", got)
	}
}

// TestApprovalRequestIsNotForgedByQuotedText: a comment of the bot's own identity that only
// quotes a request marker (github-actions[bot] posts for every workflow of the repository, and a
// sticky comment's message may carry payload text) is not the request: an /approve given before
// the request was asked must not count.
func TestApprovalRequestIsNotForgedByQuotedText(t *testing.T) {
	t.Parallel()
	s := newServer(t, "")
	out := runAfterForgedRequest(t, s, "github-actions[bot]", `Thanks for the PR "`)
	if out.Details["pending"] != true {
		t.Fatalf("got %s %q %v, want pending on a new request", out.Status, out.Reason, out.Details)
	}
	if requests := requestComments(s); len(requests) != 1 {
		t.Errorf("%d request comments posted, want 1", len(requests))
	}
}

// TestApprovalSeesAnAnswerPastAFullPage: with exactly 100 reviews, the first check reads one full
// page and no Link header. The approving review that comes next is the first of page 2, while
// page 1 answers 304 Not Modified (its body is unchanged) and carries no Link header of its own:
// the review must still be seen.
func TestApprovalSeesAnAnswerPastAFullPage(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	old := time.Now().Add(-time.Hour)
	for range 100 {
		s.AddReview(prNumber, "mallory", "COMMENTED", "hm", "", old)
	}
	sl := &sleeper{}
	sl.after = func(n int) {
		if n == 1 {
			s.AddReview(prNumber, "alice", "APPROVED", "", "", time.Time{})
		}
	}
	r := configureApproval(t, Options{Sleep: sl.sleep}, `{"pollInterval": 5}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, 2*time.Second, nil)
	if out := r.Run(context.Background(), inv); out.Status != hooks.StatusOK || out.Details["decider"] != "alice" {
		t.Fatalf("got %s %q, want approved by alice", out.Status, out.Reason)
	}
}

// TestApprovalWaitsAgainOnATimedOutRequest: a run that timed out leaves its request as posted,
// so a run made again — which takes up only a request nobody edited — waits on it again and
// counts an answer given since.
func TestApprovalWaitsAgainOnATimedOutRequest(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	r := configureApproval(t, Options{}, `{"pollInterval": 10}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, 50*time.Millisecond, nil)
	if out := r.Run(context.Background(), inv); out.Details["timedOut"] != true {
		t.Fatalf("first run: got %s %v, want a timeout", out.Status, out.Details)
	}
	first := requestComment(t, s)
	s.AddComment(prNumber, "alice", "/approve", time.Now().Add(time.Second))
	r = configureApproval(t, Options{}, `{"wait": false}`)
	inv, _ = invocation(serverEnv(s), hooks.PreExecutionStart, 50*time.Millisecond, nil)
	if out := r.Run(context.Background(), inv); out.Status != hooks.StatusOK || out.Details["decider"] != "alice" {
		t.Fatalf("second run: got %s %q %v, want approved by alice", out.Status, out.Reason, out.Details)
	}
	if req := requestComment(t, s); req.ID != first.ID || !strings.Contains(req.Body, "Approved** by @alice") {
		t.Errorf("want the first request decided, got:\n%s", req.Body)
	}
}

// TestApprovalAsksAgainAfterAClosedRequest: the same request made again after it was decided is
// asked anew: the decided request was edited (its outcome), and no run can tell an earlier run's
// edit from the agent's, so it never approves again. Answers to the fresh request must name it,
// so an answer read off the old one does not carry over. A rejection of the old one still holds.
func TestApprovalAsksAgainAfterAClosedRequest(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	r := configureApproval(t, Options{}, `{"wait": false}`)
	run := func() hooks.Outcome {
		inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
		return r.Run(context.Background(), inv)
	}
	run()
	s.AddComment(prNumber, "alice", "/approve", time.Now().Add(time.Second))
	if out := run(); out.Status != hooks.StatusOK {
		t.Fatalf("second run: got %s %q, want approved", out.Status, out.Reason)
	}
	first := requestComment(t, s)

	if out := run(); out.Details["pending"] != true {
		t.Fatalf("third run: got %s %q %v, want pending on a fresh request", out.Status, out.Reason, out.Details)
	}
	requests := requestComments(s)
	if len(requests) != 2 || requests[0].Body != first.Body {
		t.Fatalf("want the decided request as it was and a fresh one, got %+v", requests)
	}
	ref := s.RequestRef(prNumber)
	if !strings.Contains(requests[1].Body, "Waiting for a decision") || !strings.Contains(requests[1].Body, "**`/approve "+ref+"`**") {
		t.Errorf("the fresh request:\n%s", requests[1].Body)
	}
	s.AddComment(prNumber, "alice", "/approve", time.Now().Add(2*time.Second))
	if out := run(); out.Details["pending"] != true || !strings.Contains(fmt.Sprint(out.Details["ignored"]), "@alice's /approve does not name this request (/approve "+ref+")") {
		t.Fatalf("after a bare /approve: got %s %q %v, want pending, the answer ignored", out.Status, out.Reason, out.Details)
	}
	s.AddComment(prNumber, "bob", "/reject "+ref+" not twice", time.Now().Add(3*time.Second))
	if out := run(); out.Status != hooks.StatusBlocked || out.Details["decider"] != "bob" {
		t.Fatalf("after /reject %s: got %s %q %v, want rejected by bob", ref, out.Status, out.Reason, out.Details)
	}
	if out := run(); out.Status != hooks.StatusBlocked || out.Details["decider"] != "bob" || len(requestComments(s)) != 2 {
		t.Fatalf("once rejected: got %s %q %v (%d requests), want bob's rejection again, no new request", out.Status, out.Reason, out.Details, len(requestComments(s)))
	}
}

// TestApprovalThatCannotBeDecidedBlocks: an approval whose API calls fail never lets the event
// through: it blocks with a reason that says what failed and how to fix it, whatever "blocking"
// says, and timeoutAction approve does not turn a failure into an approval.
func TestApprovalThatCannotBeDecidedBlocks(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name    string
		setup   func(s *githubtest.Server, e env)
		options string
		payload hooks.Payload
		timeout time.Duration
		want    []string // substrings of the reason
	}{
		{
			name: "a token without pull-requests: write",
			setup: func(s *githubtest.Server, _ env) {
				s.Fail(githubtest.Fault{Method: "POST", PathSuffix: "/issues/12/comments", Count: 1, Denied: true})
			},
			want: []string{"github approval could not be decided: comment on octo/hello#12: 403 from POST /repos/octo/hello/issues/12/comments (Resource not accessible by integration)",
				"the token lacks issues: write or pull-requests: write", "add `permissions: pull-requests: write` to the job"},
		},
		{
			name: "a pull request from a fork",
			setup: func(s *githubtest.Server, _ env) {
				s.SetPRFork(prNumber, "mallory/hello")
				s.Fail(githubtest.Fault{Method: "POST", PathSuffix: "/issues/12/comments", Count: 1, Denied: true})
			},
			want: []string{"403 from POST /repos/octo/hello/issues/12/comments", "comes from the fork mallory/hello", "read-only"},
		},
		{
			name:    "a pull request that does not exist",
			payload: hooks.Payload{"prNumber": 13},
			want:    []string{"get pull request octo/hello#13: 404 from GET /repos/octo/hello/pulls/13 (Not Found)"},
		},
		{
			name:  "GitHub unreachable",
			setup: func(_ *githubtest.Server, e env) { e["GITHUB_API_URL"] = closed.URL },
			want:  []string{"get pull request octo/hello#12: cannot reach GitHub at " + closed.URL + ": ", "connection refused; check GITHUB_API_URL and the network"},
		},
		{
			name: "GitHub never answers, with timeoutAction approve",
			setup: func(s *githubtest.Server, _ env) {
				s.Fail(githubtest.Fault{Method: "GET", PathSuffix: "/pulls/12/reviews", Count: 1000, Hang: true})
			},
			options: `"timeoutAction": "approve"`, timeout: 500 * time.Millisecond,
			want: []string{"no decision on octo/hello#12 within 500ms, and the last check failed: list the reviews of octo/hello#12: GitHub did not answer in time"},
		},
		{
			name: "server errors until the timeout, with timeoutAction approve",
			setup: func(s *githubtest.Server, _ env) {
				s.Fail(githubtest.Fault{Method: "GET", PathSuffix: "/pulls/12/reviews", Count: 1000, Status: 502, Body: `{"message":"Server Error"}`})
			},
			options: `"timeoutAction": "approve"`, timeout: 500 * time.Millisecond,
			want: []string{"list the reviews of octo/hello#12: 502 from GET /repos/octo/hello/pulls/12/reviews (Server Error)"},
		},
		{
			name:  "paging that does not advance",
			setup: func(s *githubtest.Server, _ env) { s.SetPaging(githubtest.PagingRepeatNext) },
			want:  []string{"GitHub's paging does not advance"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "agent-bot")
			e := serverEnv(s)
			if tt.setup != nil {
				tt.setup(s, e)
			}
			opts := `"pollInterval": 10`
			if tt.options != "" {
				opts += ", " + tt.options
			}
			// The 500ms of the timeout cases pass by the wall clock: the check in flight when
			// they pass is what must not count as a decision.
			timeout := cmp.Or(tt.timeout, 10*time.Second)
			r := configureApproval(t, Options{}, "{"+opts+"}")
			inv, _ := invocation(e, hooks.PreExecutionStart, timeout, tt.payload)
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			out := r.Run(ctx, inv)
			if out.Status != hooks.StatusBlocked || out.Decision != hooks.DecisionBlock {
				t.Fatalf("got %s %q (decision %q), want blocked", out.Status, out.Reason, out.Decision)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.Reason, w) {
					t.Errorf("reason %q\nwant it to contain %q", out.Reason, w)
				}
			}
			if out.Details["decision"] != "undecided" {
				t.Errorf("details.decision = %v, want undecided", out.Details["decision"])
			}
			if strings.Contains(out.Reason, testToken) {
				t.Errorf("the token is in the reason")
			}
		})
	}
}

// TestApprovalCheckCutShortByTheDeadline: GitHub answers the first check (no approval yet) and
// then never again, so the check in flight when the wait ends is cut short. It says nothing: the
// wait ends as the first check left it, a timeout, and timeoutAction applies. (A first check cut
// short is the failure: "GitHub never answers" in TestApprovalUndecided... cases above.)
func TestApprovalCheckCutShortByTheDeadline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		options      string
		wantStatus   hooks.Status
		wantDecision string
	}{
		{`, "timeoutAction": "approve"`, hooks.StatusOK, hooks.DecisionApprove},
		{``, hooks.StatusBlocked, hooks.DecisionBlock},
	} {
		s := newServer(t, "agent-bot")
		e := serverEnv(s)
		s.Fail(githubtest.Fault{Method: "GET", PathSuffix: "/pulls/12/reviews", After: 1, Count: 1000, Hang: true})
		const timeout = 2 * time.Second
		r := configureApproval(t, Options{}, `{"pollInterval": 10`+tc.options+`}`)
		inv, _ := invocation(e, hooks.PreExecutionStart, timeout, nil)
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		out := r.Run(ctx, inv)
		cancel()
		if out.Status != tc.wantStatus || out.Decision != tc.wantDecision || out.Details["timedOut"] != true ||
			strings.Contains(out.Reason, "did not answer") || strings.Contains(out.Reason, "last check failed") {
			t.Errorf("options %q: got %s %s %q (details %v), want %s %s by the timeout", tc.options, out.Status, out.Decision, out.Reason, out.Details, tc.wantStatus, tc.wantDecision)
		}
	}
}

// fakeClock is a clock that only the sleeps of the code under test move.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	after func(n int) // called after each sleep with its 1-based number
	n     int
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.n++
	n := c.n
	c.mu.Unlock()
	if c.after != nil {
		c.after(n)
	}
	return ctx.Err()
}

// TestApprovalTimeoutAfterAFailedCheckBlocks: timeoutAction approve is the user's choice for
// when nobody decided; when the last check before the timeout failed, nobody knows whether
// somebody rejected, and the approval blocks.
func TestApprovalTimeoutAfterAFailedCheckBlocks(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	clock := &fakeClock{now: time.Now()}
	clock.after = func(n int) {
		if n == 1 {
			s.Fail(githubtest.Fault{Method: "GET", PathSuffix: "/pulls/12/reviews", Count: 1000, Status: 503, Body: `{"message":"Service Unavailable"}`})
		}
	}
	r := configureApproval(t, Options{Now: clock.Now, Sleep: clock.Sleep}, `{"pollInterval": 60000, "timeoutAction": "approve"}`)
	inv, stderr := invocation(serverEnv(s), hooks.PreExecutionStart, 2*time.Minute, nil)
	out := r.Run(context.Background(), inv)
	if out.Status != hooks.StatusBlocked || out.Details["timedOut"] != true {
		t.Fatalf("got %s %q %v, want a blocked timeout", out.Status, out.Reason, out.Details)
	}
	want := "no decision on octo/hello#12 within 2m0s, and the last check failed: list the reviews of octo/hello#12: 503 from GET /repos/octo/hello/pulls/12/reviews (Service Unavailable)"
	if !strings.Contains(out.Reason, want) {
		t.Errorf("reason %q\nwant it to contain %q", out.Reason, want)
	}
	if !strings.Contains(stderr.String(), "(will retry)") {
		t.Errorf("the failed check was not retried:\n%s", stderr)
	}
	if req := requestComment(t, s); len(req.Edits) != 0 || strings.Contains(req.Body, "approved automatically (timeoutAction)") {
		t.Errorf("request comment (%d edits), want it left as posted:\n%s", len(req.Edits), req.Body)
	}
}

// TestApprovalIsForOneRequest: an answer approves the request it answers and nothing else. The
// approval of issue 41 must not approve issue 42 on the same head: a changed request text or
// payload is a new request, posted anew, and the answers to the old one do not count. The values
// the engine sets on every firing (timestamp, session) do not make a new request.
func TestApprovalIsForOneRequest(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		message string
		first   hooks.Payload
		second  hooks.Payload
	}{
		{"the request text changes", `"message": "Deploy issue {{issueNumber}}"`,
			hooks.Payload{"prNumber": prNumber, "issueNumber": 41},
			hooks.Payload{"prNumber": prNumber, "issueNumber": 42}},
		{"the payload changes under the same text", `"message": "Run the command?"`,
			hooks.Payload{"prNumber": prNumber, "command": "make deploy-staging"},
			hooks.Payload{"prNumber": prNumber, "command": "make deploy-production"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "")
			r := configureApproval(t, Options{}, `{"wait": false, `+tt.message+`}`)
			run := func(p hooks.Payload, session string) hooks.Outcome {
				p = maps.Clone(p)
				p["sessionId"], p["timestamp"], p["workspace"] = session, time.Now().UnixNano(), "/tmp/"+session
				inv, _ := invocation(serverEnv(s), hooks.ApprovalRequired, time.Minute, p)
				return r.Run(context.Background(), inv)
			}
			if out := run(tt.first, "session-1"); out.Details["pending"] != true {
				t.Fatalf("first request: got %s %q, want pending", out.Status, out.Reason)
			}
			s.AddComment(prNumber, "alice", "/approve", time.Now().Add(time.Second))
			// The workflow run after the answer (another session) finds its request approved.
			if out := run(tt.first, "session-2"); out.Status != hooks.StatusOK || out.Details["decider"] != "alice" {
				t.Fatalf("same request again: got %s %q %v, want approved by alice", out.Status, out.Reason, out.Details)
			}
			out := run(tt.second, "session-3")
			if out.Status != hooks.StatusBlocked || out.Details["pending"] != true {
				t.Fatalf("another request: got %s %q %v, want pending: the answer to the first one approved it", out.Status, out.Reason, out.Details)
			}
			requests := requestComments(s)
			if len(requests) != 2 {
				t.Fatalf("%d request comments, want one per request: %+v", len(requests), requests)
			}
			if !strings.Contains(requests[0].Body, "Approved** by @alice") {
				t.Errorf("the first request lost its outcome:\n%s", requests[0].Body)
			}
			if !strings.Contains(requests[1].Body, "Waiting for a decision") {
				t.Errorf("the second request:\n%s", requests[1].Body)
			}
		})
	}
}

// TestApprovalExcludesThePullRequestAuthor: the pull request's author (the agent's own account,
// which has write access) cannot approve its own gate, by comment or review, unless
// allowSelfApproval says it may.
func TestApprovalExcludesThePullRequestAuthor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		options string
		react   func(s *githubtest.Server)
		want    hooks.Status
	}{
		{"its /approve", "", func(s *githubtest.Server) { s.AddComment(prNumber, "agent-account", "/approve", time.Time{}) }, hooks.StatusBlocked},
		{"its approving review", "", func(s *githubtest.Server) {
			s.AddReview(prNumber, "agent-account", "APPROVED", "", "", time.Time{})
		}, hooks.StatusBlocked},
		{"even listed in approvers", `, "approvers": ["agent-account"]`, func(s *githubtest.Server) {
			s.AddComment(prNumber, "agent-account", "/approve", time.Time{})
		}, hooks.StatusBlocked},
		{"allowSelfApproval", `, "allowSelfApproval": true`, func(s *githubtest.Server) {
			s.AddComment(prNumber, "agent-account", "/approve", time.Time{})
		}, hooks.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "")
			s.SetPRAuthor(prNumber, "agent-account")
			s.SetPermission("agent-account", "write")
			answerRequest(s, tt.react)
			r := configureApproval(t, Options{}, `{"pollInterval": 10`+tt.options+`}`)
			inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, 300*time.Millisecond, nil)
			out := r.Run(context.Background(), inv)
			if out.Status != tt.want {
				t.Fatalf("got %s %q %v, want %s", out.Status, out.Reason, out.Details, tt.want)
			}
			if tt.want == hooks.StatusBlocked {
				if ign := fmt.Sprint(out.Details["ignored"]); !strings.Contains(ign, "@agent-account opened the pull request (allowSelfApproval is off)") {
					t.Errorf("ignored = %s, want the author's vote named", ign)
				}
				if req := requestComment(t, s); !strings.Contains(req.Body, "other than the pull request's author @agent-account") {
					t.Errorf("the request does not say who cannot decide:\n%s", req.Body)
				}
			}
		})
	}
}

// runAfterForgedRequest posts, an hour ago, a comment by login that carries the request marker
// of the hook configureApproval makes for the default payload, after the text before, and an
// /approve of alice after it; then it runs that hook with wait: false. The /approve must not
// count: the comment is not the hook's request.
func runAfterForgedRequest(t *testing.T, s *githubtest.Server, login, before string) hooks.Outcome {
	t.Helper()
	text := "The agent needs approval to continue."
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	id, err := approval.RequestID(text, inv.Payload)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	forged := fmt.Sprintf("%s<!-- agent-hooks:approval key=%q head=%q request=%q -->\n%s\n<!-- agent-hooks:status -->\n⏳ **Waiting for a decision**",
		before, markerKey("PreExecutionStart:plan approval"), headSHA, id, text)
	s.AddComment(prNumber, login, forged, old)
	s.AddComment(prNumber, "alice", "/approve", old.Add(time.Minute))
	return configureApproval(t, Options{}, `{"wait": false}`).Run(context.Background(), inv)
}

// TestApprovalIdentityIsExact: with an installation token (GET /user answers 403) the request
// is found again by the token's own account, from GraphQL's viewer, not by "any bot": a comment
// of another GitHub App that starts with a valid marker is not adopted as the request, so the
// /approve that came after it does not count.
func TestApprovalIdentityIsExact(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, app, forger string
	}{
		{"GITHUB_TOKEN", "", "other-app[bot]"},
		{"a GitHub App's token", "my-agent", "other-app[bot]"},
		{"a GitHub App's token, forged as github-actions", "my-agent", "github-actions[bot]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "")
			if tt.app != "" {
				s.SetAppBot(tt.app + "[bot]")
			}
			out := runAfterForgedRequest(t, s, tt.forger, "")
			if out.Details["pending"] != true {
				t.Fatalf("got %s %q %v, want pending on a request of its own", out.Status, out.Reason, out.Details)
			}
			if got := commentsBy(s, s.Identity()); len(got) != 1 || !strings.HasPrefix(got[0].Body, "<!-- agent-hooks:approval") {
				t.Errorf("want one request of the token's own, got %+v", got)
			}
			var viewer bool
			for _, rq := range s.Requests() {
				viewer = viewer || rq.Method == "POST" && rq.Path == "/graphql" && rq.Status == 200
			}
			if !viewer {
				t.Errorf("the token's account was not asked of GraphQL: %+v", s.Requests())
			}
		})
	}
}

// TestApprovalWithoutIdentityBlocks: when GitHub tells neither GET /user nor GraphQL's viewer,
// the request cannot be told from another App's, and the approval cannot be decided.
func TestApprovalWithoutIdentityBlocks(t *testing.T) {
	t.Parallel()
	s := newServer(t, "")
	s.AddComment(prNumber, "other-app[bot]", `<!-- agent-hooks:approval key="PreExecutionStart:plan-approval" head="`+headSHA+`" request="`+strings.Repeat("0", 64)+`" -->`, time.Time{})
	s.Fail(githubtest.Fault{Method: "POST", PathSuffix: "/graphql", Count: 1, Status: 502, Body: `{"message":"Server Error"}`})
	r := configureApproval(t, Options{}, `{"wait": false}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	out := r.Run(context.Background(), inv)
	want := "github approval could not be decided: tell which account the token acts as: ask GraphQL's viewer: 502 from POST /graphql (Server Error)"
	if out.Status != hooks.StatusBlocked || !strings.Contains(out.Reason, want) {
		t.Fatalf("got %s %q, want blocked: %q", out.Status, out.Reason, want)
	}
}

// TestApprovalProgress: the wait reports where to approve (the request comment) and how many
// approvals it has, and ends its status when it returns.
func TestApprovalProgress(t *testing.T) {
	t.Parallel()
	s := newServer(t, "")
	r := configureApproval(t, Options{}, `{"wait": false}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	rec := &progresstest.Recorder{}
	inv.Progress = rec
	if out := r.Run(context.Background(), inv); out.Details["pending"] != true {
		t.Fatalf("got %s %v, want pending", out.Status, out.Details)
	}
	c := requestComment(t, s)
	waits := rec.Waits()
	if len(waits) != 1 {
		t.Fatalf("%d waits, want 1", len(waits))
	}
	w := waits[0]
	if want := fmt.Sprintf("https://github.com/octo/hello/pull/%d#issuecomment-%d", prNumber, c.ID); w.Where != want {
		t.Errorf("approve at %q, want the request comment %q", w.Where, want)
	}
	if want := fmt.Sprintf("approval in octo/hello#%d", prNumber); w.What != want {
		t.Errorf("wait %q, want %q", w.What, want)
	}
	if d := w.Details(); len(d) != 1 || d[0] != "0 of 1 approvals" {
		t.Errorf("details %q", d)
	}
	if w.DoneCount() != 1 {
		t.Errorf("ended %d times, want once", w.DoneCount())
	}
}
