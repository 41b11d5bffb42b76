package github

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/approval"
	"github.com/autoagent/agent-hooks/github/githubtest"
	"github.com/autoagent/agent-hooks/hooks"
)

// The agent being gated holds the token agent-hooks posts with (write access): it can edit the
// request comment, and anyone's comment. These tests play that agent on the fake GitHub.

const (
	asked  = "DROP the production database"
	forged = "fix a typo in README"
)

// commentByID is the comment id of pull request 12 as it is now.
func commentByID(t *testing.T, s *githubtest.Server, id int64) githubtest.Comment {
	t.Helper()
	for _, c := range s.Comments(prNumber) {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no comment %d", id)
	return githubtest.Comment{}
}

// agentEdits edits comment id as the agent would, with the token's own account.
func agentEdits(t *testing.T, s *githubtest.Server, id int64, edit func(body string) string) {
	t.Helper()
	c := commentByID(t, s, id)
	if _, err := s.EditComment(id, s.Identity(), edit(c.Body)); err != nil {
		t.Fatal(err)
	}
}

func replace(old, new string) func(string) string {
	return func(body string) string { return strings.Replace(body, old, new, 1) }
}

// TestApprovalOfAnEditedRequest: a request edited after it was posted approves nothing, however
// the agent went about it — left edited, restored to the exact text before or after the vote (the
// approver read the forgery), or only its status changed. The wait ends at once, denied with a
// reason that says so; a fresh request is posted, which answers must name (an answer read off the
// forgery must not carry over); and no edit of ours writes the original text back over the
// edited one.
func TestApprovalOfAnEditedRequest(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// act plays the agent and the approver between the first check and the second.
		act func(t *testing.T, s *githubtest.Server, req githubtest.Comment)
	}{
		{"edited before the vote and left edited", func(t *testing.T, s *githubtest.Server, req githubtest.Comment) {
			agentEdits(t, s, req.ID, replace(asked, forged))
			s.AddComment(prNumber, "alice", "/approve", time.Time{})
		}},
		{"edited and restored before the vote", func(t *testing.T, s *githubtest.Server, req githubtest.Comment) {
			agentEdits(t, s, req.ID, replace(asked, forged))
			agentEdits(t, s, req.ID, func(string) string { return req.Body })
			s.AddComment(prNumber, "alice", "/approve", time.Time{})
		}},
		{"edited, voted on, restored", func(t *testing.T, s *githubtest.Server, req githubtest.Comment) {
			agentEdits(t, s, req.ID, replace(asked, forged))
			s.AddComment(prNumber, "alice", "/approve", time.Time{})
			agentEdits(t, s, req.ID, func(string) string { return req.Body })
		}},
		{"only its status edited", func(t *testing.T, s *githubtest.Server, req githubtest.Comment) {
			agentEdits(t, s, req.ID, replace("⏳ **Waiting for a decision**", "✅ **Approved** by @bob; a second approval is welcome"))
			s.AddComment(prNumber, "alice", "/approve", time.Time{})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "agent-bot")
			var first githubtest.Comment
			sl := &sleeper{after: func(n int) {
				if n == 1 {
					first = requestComment(t, s)
					tt.act(t, s, first)
				}
			}}
			r := configureApproval(t, Options{Sleep: sl.sleep}, `{"pollInterval": 10, "message": "`+asked+`"}`)
			inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, 10*time.Second, nil)
			out := r.Run(context.Background(), inv)

			if out.Status != hooks.StatusBlocked || out.Decision != hooks.DecisionBlock || out.Details["decider"] != nil {
				t.Fatalf("got %s %q %v, want blocked: an edited request approves nothing", out.Status, out.Reason, out.Details)
			}
			if want := fmt.Sprintf("the approval request at https://github.com/octo/hello/pull/12#issuecomment-%d was edited after it was posted", first.ID); !strings.Contains(out.Reason, want) {
				t.Errorf("reason %q\nwant it to contain %q", out.Reason, want)
			}
			fresh := requestComment(t, s)
			if fresh.ID == first.ID || !strings.Contains(out.Reason, fmt.Sprintf("asked again at https://github.com/octo/hello/pull/12#issuecomment-%d", fresh.ID)) {
				t.Fatalf("want a fresh request named in the reason; reason %q, request %d (first %d)", out.Reason, fresh.ID, first.ID)
			}
			ref := s.RequestRef(prNumber)
			for _, want := range []string{asked, `ref="` + ref + `"`, "**`/approve " + ref + "`**", "Waiting for a decision"} {
				if !strings.Contains(fresh.Body, want) {
					t.Errorf("fresh request:\n%s\nwant it to contain %q", fresh.Body, want)
				}
			}
			old := commentByID(t, s, first.ID)
			if strings.Contains(old.Body, asked) || strings.Contains(old.Body, "agent-hooks:approval") || !strings.Contains(old.Body, "edited after it was posted") {
				t.Errorf("the edited request now reads:\n%s\nwant it withdrawn, without the text it was asked with written back", old.Body)
			}
		})
	}
}

// TestApprovalOfAnEditedRequestFoundAgain: a tool call's request left open (the call denied as
// pending) and edited before the agent's next identical call is not taken up again, whatever the
// edit: its text forged and restored after the approver answered the forgery, or its status alone
// changed. The next call is not approved, a fresh request with a ref of its own is posted, and
// the answer given to the edited request does not approve it; an answer to it does. An edit that
// leaves the request reading as a closed one (as a decision leaves it) is asked anew without a
// denial; any other denies the call, saying the request was edited.
func TestApprovalOfAnEditedRequestFoundAgain(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		edit   func(t *testing.T, s *githubtest.Server, req githubtest.Comment, approve func())
		denied bool // the next call denied at once, the request said to be edited
	}{
		{"forged, answered, restored", func(t *testing.T, s *githubtest.Server, req githubtest.Comment, approve func()) {
			agentEdits(t, s, req.ID, replace(asked, forged))
			approve()
			agentEdits(t, s, req.ID, func(string) string { return req.Body })
		}, true},
		{"its status alone", func(t *testing.T, s *githubtest.Server, req githubtest.Comment, approve func()) {
			agentEdits(t, s, req.ID, replace("⏳ **Waiting for a decision**", "⏳ **Waiting for a decision** (a dry run: nothing is dropped)"))
			approve()
		}, true},
		{"its status alone, as a decision leaves it", func(t *testing.T, s *githubtest.Server, req githubtest.Comment, approve func()) {
			approve()
			agentEdits(t, s, req.ID, func(body string) string {
				top, _, _ := strings.Cut(body, "<!-- agent-hooks:status -->")
				return top + "<!-- agent-hooks:status -->\n✅ **Approved** by @erin."
			})
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "")
			s.SetAppBot("agent[bot]")
			s.AddTeam("octo", "reviewers", "erin")
			r := configureApproval(t, Options{}, `{"pollInterval": 10, "approverTeams": ["octo/reviewers"], "message": "`+asked+`"}`)
			run := func(attempt string) hooks.Outcome {
				inv, _ := invocation(serverEnv(s), hooks.PreToolUse, 100*time.Millisecond, toolCallPayload("psql -c 'DROP DATABASE prod'", attempt))
				inv.AsksAgain = true
				return r.Run(context.Background(), inv)
			}
			if out := run("1"); out.Details["pending"] != true {
				t.Fatalf("first call: %s %q %v, want pending", out.Status, out.Reason, out.Details)
			}
			first, firstRef := requestComment(t, s), s.RequestRef(prNumber)
			tt.edit(t, s, first, func() { s.AddComment(prNumber, "erin", "/approve "+firstRef, time.Time{}) })

			out := run("2")
			if out.Status != hooks.StatusBlocked || out.Details["decider"] != nil {
				t.Fatalf("next call: %s %q %v, want it not approved", out.Status, out.Reason, out.Details)
			}
			if got := strings.Contains(out.Reason, "was edited after it was posted"); got != tt.denied {
				t.Errorf("next call: %q, want it said to be edited: %v", out.Reason, tt.denied)
			}
			fresh, ref := s.LatestRequest(prNumber), s.RequestRef(prNumber)
			if fresh.ID == first.ID || ref == firstRef {
				t.Fatalf("want a fresh request with a ref of its own; got request %d ref %s (first %d ref %s)", fresh.ID, ref, first.ID, firstRef)
			}

			s.AddComment(prNumber, "erin", "/approve "+firstRef, time.Time{})
			if out := run("3"); out.Status != hooks.StatusBlocked || out.Details["pending"] != true {
				t.Fatalf("after an answer naming the edited request: %s %q %v, want still pending", out.Status, out.Reason, out.Details)
			}
			s.AddComment(prNumber, "erin", "/approve "+ref, time.Time{})
			if out := run("4"); out.Status != hooks.StatusOK || out.Details["decider"] != "erin" {
				t.Fatalf("after an answer naming the fresh request: %s %q %v, want approved by erin", out.Status, out.Reason, out.Details)
			}
		})
	}
}

// TestApprovalOfADeletedForgery: the agent forges a tool call's request, the approver reads the
// forgery, and the agent deletes the request, which leaves nothing to check. The next identical
// call asks anew, with a ref of its own: the answer read off the forgery, given after that, names
// the deleted request and approves nothing.
func TestApprovalOfADeletedForgery(t *testing.T) {
	t.Parallel()
	s := newServer(t, "")
	s.SetAppBot("agent[bot]")
	s.AddTeam("octo", "reviewers", "erin")
	r := configureApproval(t, Options{}, `{"pollInterval": 10, "approverTeams": ["octo/reviewers"], "message": "`+asked+`"}`)
	run := func(attempt string) hooks.Outcome {
		inv, _ := invocation(serverEnv(s), hooks.PreToolUse, 100*time.Millisecond, toolCallPayload("psql -c 'DROP DATABASE prod'", attempt))
		inv.AsksAgain = true
		return r.Run(context.Background(), inv)
	}
	run("1")
	first, firstRef := requestComment(t, s), s.RequestRef(prNumber)
	agentEdits(t, s, first.ID, replace(asked, forged))
	if err := s.DeleteComment(first.ID); err != nil {
		t.Fatal(err)
	}
	if out := run("2"); out.Details["pending"] != true {
		t.Fatalf("second call: %s %q %v, want pending on a new request", out.Status, out.Reason, out.Details)
	}
	if ref := s.RequestRef(prNumber); ref == firstRef {
		t.Fatalf("the new request has the deleted one's ref %s", ref)
	}
	s.AddComment(prNumber, "erin", "/approve "+firstRef, time.Time{})
	if out := run("3"); out.Status != hooks.StatusBlocked || out.Details["pending"] != true {
		t.Fatalf("after an answer naming the deleted request: %s %q %v, want still pending", out.Status, out.Reason, out.Details)
	}
}

// TestApprovalOfARequestPostedByTheAgent: the agent can post with the token too, so a comment of
// the token's account that carries the request's marker (key, head and request id) is the request
// only if it reads as the hook asks it: one that shows other text is not adopted, and the answer
// given to it approves nothing.
func TestApprovalOfARequestPostedByTheAgent(t *testing.T) {
	t.Parallel()
	s := newServer(t, "")
	text := "The agent needs approval to continue."
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	id, err := approval.RequestID(text, inv.Payload)
	if err != nil {
		t.Fatal(err)
	}
	fake := s.AddComment(prNumber, s.Identity(), fmt.Sprintf("<!-- agent-hooks:approval key=%q head=%q request=%q -->\n### 🔐 Approval requested · PreExecutionStart\n\n%s\n\n<!-- agent-hooks:status -->\n⏳ **Waiting for a decision**",
		markerKey("PreExecutionStart:plan approval"), headSHA, id, forged), time.Time{})
	s.AddComment(prNumber, "alice", "/approve", time.Time{})

	r := configureApproval(t, Options{}, `{"wait": false}`)
	out := r.Run(context.Background(), inv)
	if out.Status != hooks.StatusBlocked || out.Details["decider"] != nil {
		t.Fatalf("got %s %q %v, want blocked", out.Status, out.Reason, out.Details)
	}
	if req := requestComment(t, s); req.ID == fake.ID || !strings.Contains(req.Body, text) {
		t.Errorf("want a request of the hook's own, got:\n%s", req.Body)
	}
	inv, _ = invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
	if out := r.Run(context.Background(), inv); out.Status != hooks.StatusBlocked || out.Details["pending"] != true {
		t.Fatalf("next run: %s %q %v, want pending on the hook's own request", out.Status, out.Reason, out.Details)
	}
}

// TestApprovalOfATouchedRequest: GitHub may move a comment's updated_at without anyone editing it
// (it was seen to, just after a comment was posted); that is not an edit, and the approval goes
// through.
func TestApprovalOfATouchedRequest(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	answerRequest(s, func(s *githubtest.Server) {
		req := s.LatestRequest(prNumber)
		if err := s.TouchComment(req.ID); err != nil {
			panic(err)
		}
		s.AddComment(prNumber, "alice", "/approve", time.Time{})
	})
	r := configureApproval(t, Options{}, `{"pollInterval": 10}`)
	inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, 10*time.Second, nil)
	if out := r.Run(context.Background(), inv); out.Status != hooks.StatusOK || out.Details["decider"] != "alice" {
		t.Fatalf("got %s %q %v, want approved by alice", out.Status, out.Reason, out.Details)
	}
}

// TestApprovalOfEditedVotes: a vote is what its author posted. A comment edited after it was
// posted never counts — edited into /approve by the agent's token, or by its own author — and the
// reason says why it was ignored; a review, whose state nobody else can edit, still counts; and a
// comment whose updated_at moved without an edit is no edited comment.
func TestApprovalOfEditedVotes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		act     func(t *testing.T, s *githubtest.Server)
		decider string // "" for still pending
		ignored string
	}{
		{"another comment edited into /approve by the agent", func(t *testing.T, s *githubtest.Server) {
			c := s.AddComment(prNumber, "alice", "I will look after lunch", time.Time{})
			agentEdits(t, s, c.ID, func(string) string { return "/approve" })
		}, "", "@alice's /approve was edited after it was posted (last by @agent-bot): a vote counts only as its author posted it"},
		{"an /approve edited by its own author", func(t *testing.T, s *githubtest.Server) {
			c := s.AddComment(prNumber, "alice", "/approve", time.Time{})
			if _, err := s.EditComment(c.ID, "alice", "/approve\nlooks fine"); err != nil {
				t.Fatal(err)
			}
		}, "", "@alice's /approve was edited after it was posted (last by its author @alice): a vote counts only as its author posted it"},
		{"a review still counts beside an edited comment", func(t *testing.T, s *githubtest.Server) {
			c := s.AddComment(prNumber, "alice", "later", time.Time{})
			agentEdits(t, s, c.ID, func(string) string { return "/approve" })
			s.AddReview(prNumber, "bob", "APPROVED", "", "", time.Time{})
		}, "bob", "@alice's /approve was edited after it was posted"},
		{"an /approve whose updated_at moved", func(t *testing.T, s *githubtest.Server) {
			c := s.AddComment(prNumber, "alice", "/approve", time.Time{})
			if err := s.TouchComment(c.ID); err != nil {
				t.Fatal(err)
			}
		}, "alice", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "agent-bot")
			r := configureApproval(t, Options{}, `{"wait": false}`)
			inv, _ := invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
			if out := r.Run(context.Background(), inv); out.Details["pending"] != true {
				t.Fatalf("first run: %s %q %v, want pending", out.Status, out.Reason, out.Details)
			}
			tt.act(t, s)
			inv, _ = invocation(serverEnv(s), hooks.PreExecutionStart, time.Minute, nil)
			out := r.Run(context.Background(), inv)
			switch {
			case tt.decider == "" && (out.Status != hooks.StatusBlocked || out.Details["pending"] != true):
				t.Fatalf("got %s %q %v, want still pending", out.Status, out.Reason, out.Details)
			case tt.decider != "" && (out.Status != hooks.StatusOK || out.Details["decider"] != tt.decider):
				t.Fatalf("got %s %q %v, want approved by %s", out.Status, out.Reason, out.Details, tt.decider)
			}
			if ign := fmt.Sprint(out.Details["ignored"]); !strings.Contains(ign, tt.ignored) || tt.ignored == "" && out.Details["ignored"] != nil {
				t.Errorf("ignored = %s, want %q", ign, tt.ignored)
			}
		})
	}
}
