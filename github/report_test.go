package github

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/github/githubtest"
	"github.com/autoagent/agent-hooks/hooks"
)

// reportConfig blocks PreExecutionEnd until the file "ok" exists, then reports on the PR.
const reportConfig = `{"hooks": {"PreExecutionEnd": [
  {"type": "command", "name": "tests", "command": "test -f ok || { echo 'tests fail | badly' >&2; exit 2; }"},
  {"type": "github-review"},
  {"type": "github-comment", "message": "Issue #{{issueNumber}}"}
]}}`

// fireEvent loads the workspace's configuration with the GitHub types registered and fires event
// through the real engine.
func fireEvent(t *testing.T, ws string, e env, event string) *hooks.Result {
	t.Helper()
	reg := hooks.NewRegistry()
	reg.Register(TypeReview, ReviewType{})
	reg.Register(TypeComment, CommentType{})
	home := t.TempDir()
	cfg, err := hooks.Load(reg, hooks.LoadEnv{Workspace: ws, UserHome: home, AutoagentHome: filepath.Join(home, ".autoagent"), Getenv: e.get})
	if err != nil {
		t.Fatal(err)
	}
	eng := &hooks.Engine{Config: cfg, Workspace: ws, SessionID: "session-1-abcdef", Getenv: e.get, Environ: os.Environ()}
	res, err := eng.Fire(context.Background(), event, hooks.Payload{"prNumber": prNumber, "issueNumber": 7})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func workspace(t *testing.T, config string) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".autoagent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".autoagent", "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestReviewAndStickyComment(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	ws := workspace(t, reportConfig)
	e := serverEnv(s)
	// Someone else's comment carrying the same marker is never taken over.
	spoof := s.AddComment(prNumber, "mallory", `<!-- agent-hooks:comment event="PreExecutionEnd" -->`+"\nfake", time.Now().Add(-time.Hour))

	res := fireEvent(t, ws, e, hooks.PreExecutionEnd)
	if !res.Blocked {
		t.Fatalf("want the event blocked by the tests hook, got %+v", res)
	}
	reviews := s.Reviews(prNumber)
	if len(reviews) != 1 || reviews[0].State != "CHANGES_REQUESTED" || !strings.Contains(reviews[0].Body, `tests fail \| badly`) {
		t.Fatalf("want one CHANGES_REQUESTED review with the block reason, got %+v", reviews)
	}
	ours := commentsBy(s, "agent-bot")
	if len(ours) != 1 || !strings.Contains(ours[0].Body, "Issue #7") || !strings.Contains(ours[0].Body, "| tests | command | ⛔ blocked |") {
		t.Fatalf("want one sticky comment with the message and the table, got %+v", ours)
	}
	if got := len(res.Hooks); got != 3 || res.Hooks[1].Type != TypeReview || res.Hooks[1].Details["event"] != "REQUEST_CHANGES" || res.Hooks[2].Type != TypeComment {
		t.Errorf("want the reports the block kept from their turn added after the event, got %+v", res.Hooks)
	}

	// The tests pass now: the review approves and the same comment is updated in place.
	if err := os.WriteFile(filepath.Join(ws, "ok"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res = fireEvent(t, ws, e, hooks.PreExecutionEnd)
	if res.Blocked {
		t.Fatalf("want the event to proceed, got %+v", res)
	}
	reviews = s.Reviews(prNumber)
	if len(reviews) != 2 || reviews[1].State != "APPROVED" {
		t.Fatalf("want an APPROVED review, got %+v", reviews)
	}
	after := commentsBy(s, "agent-bot")
	if len(after) != 1 || after[0].ID != ours[0].ID || !strings.Contains(after[0].Body, "| tests | command | ✅ ok |") {
		t.Fatalf("want comment %d updated in place, got %+v", ours[0].ID, after)
	}
	if got := commentsBy(s, "mallory"); len(got) != 1 || got[0].Body != spoof.Body {
		t.Errorf("the spoofed comment was touched: %+v", got)
	}
	for _, hr := range res.Hooks {
		if hr.Type == TypeComment && (hr.Details["url"] == nil || hr.Details["updated"] != true) {
			t.Errorf("github-comment result lacks its url or updated flag: %+v", hr)
		}
	}
}

func commentsBy(s *githubtest.Server, login string) []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range s.Comments(prNumber) {
		if c.Login == login {
			out = append(out, c)
		}
	}
	return out
}

// TestReviewFallsBackToComment: GITHUB_TOKEN may not approve by default (422); the outcome is
// then posted as a COMMENT review.
func TestReviewFallsBackToComment(t *testing.T) {
	t.Parallel()
	s := newServer(t, "")
	ws := workspace(t, `{"hooks": {"PostExecutionEnd": [{"type": "github-review", "body": "done with #{{issueNumber}}"}]}}`)
	res := fireEvent(t, ws, serverEnv(s), hooks.PostExecutionEnd)
	reviews := s.Reviews(prNumber)
	if len(reviews) != 1 || reviews[0].State != "COMMENTED" || !strings.Contains(reviews[0].Body, "GitHub refused APPROVE") ||
		!strings.Contains(reviews[0].Body, "done with #7") {
		t.Fatalf("got %+v", reviews)
	}
	if len(res.Hooks) != 1 || res.Hooks[0].Status != hooks.StatusOK || res.Hooks[0].Details["event"] != "COMMENT" {
		t.Fatalf("got %+v", res.Hooks)
	}
}

func TestReportErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	tests := []struct {
		name, config string
		env          env
		wantBlocked  bool
		want         string
	}{
		{"no token", `{"hooks": {"PostExecutionEnd": [{"type": "github-comment"}]}}`,
			env{"GITHUB_API_URL": s.URL, "GITHUB_REPOSITORY": "octo/hello"}, false, "no GitHub token"},
		{"bad token", `{"hooks": {"PostExecutionEnd": [{"type": "github-comment"}]}}`,
			env{"GITHUB_TOKEN": "wrong", "GITHUB_API_URL": s.URL, "GITHUB_REPOSITORY": "octo/hello"}, false, "401 from GET /repos/octo/hello/issues/12/comments (Bad credentials)"},
		{"unknown repository", `{"hooks": {"PostExecutionEnd": [{"type": "github-review"}]}}`,
			env{"GITHUB_TOKEN": testToken, "GITHUB_API_URL": s.URL, "GITHUB_REPOSITORY": "octo/missing"}, false, "404 from POST /repos/octo/missing/pulls/12/reviews (Not Found)"},
		{"blocking report that fails blocks", `{"hooks": {"PreExecutionEnd": [{"type": "github-review", "blocking": true}]}}`,
			env{"GITHUB_TOKEN": testToken, "GITHUB_API_URL": s.URL, "GITHUB_REPOSITORY": "octo/missing"}, true, "404 from POST /repos/octo/missing/pulls/12/reviews (Not Found)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			event := hooks.PostExecutionEnd
			if tt.wantBlocked {
				event = hooks.PreExecutionEnd
			}
			res := fireEvent(t, workspace(t, tt.config), tt.env, event)
			if len(res.Hooks) != 1 || res.Hooks[0].Status != hooks.StatusError || !strings.Contains(res.Hooks[0].Reason, tt.want) {
				t.Fatalf("got %+v, want one failed hook mentioning %q", res.Hooks, tt.want)
			}
			if res.Blocked != tt.wantBlocked {
				t.Errorf("blocked = %v, want %v", res.Blocked, tt.wantBlocked)
			}
			b, _ := json.Marshal(res)
			if strings.Contains(string(b), testToken) || strings.Contains(string(b), `"wrong"`) {
				t.Errorf("the token leaked into the result: %s", b)
			}
		})
	}
}

func TestReviewTypeValidatesOptions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typ     hooks.Type
		options string
		want    string
	}{
		{ReviewType{}, `{"event": "approve"}`, ""},
		{ReviewType{}, `{"event": "MERGE"}`, `event: "MERGE" is not APPROVE, REQUEST_CHANGES, COMMENT or auto`},
		{ReviewType{}, `{"evnt": "COMMENT"}`, `unknown field "evnt"`},
		{CommentType{}, `{"mesage": "x"}`, `unknown field "mesage"`},
		{ApprovalProvider{}, `{"pollInterval": 0}`, "pollInterval: must be a positive number"},
		{ApprovalProvider{}, `{"pollInterval": "20s"}`, ""},
		{ApprovalProvider{}, `{"pollInterval": "often"}`, `pollInterval: want milliseconds or a duration such as "30s", got "often"`},
		{ApprovalProvider{}, `{"pollInterval": -5}`, "pollInterval: must not be negative, got -5"},
		{ApprovalProvider{}, `{"timeoutAction": "allow"}`, `timeoutAction: "allow" is not block or approve`},
		{ApprovalProvider{}, `{"minApprovals": 0}`, "minApprovals: must be at least 1"},
		{ApprovalProvider{}, `{"approvers": [""]}`, "approvers[0]: empty login"},
	} {
		_, err := tt.typ.Configure(&hooks.Hook{}, json.RawMessage(tt.options))
		if got := errString(err); !strings.Contains(got, tt.want) || (tt.want == "") != (err == nil) {
			t.Errorf("%T %s: error %q, want %q", tt.typ, tt.options, got, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestStickyCommentOfAnAppBot: a GitHub App's installation token cannot read GET /user; its own
// comment is still found again (posted as a Bot), and a person's copy of the marker is not.
func TestStickyCommentOfAnAppBot(t *testing.T) {
	t.Parallel()
	s := newServer(t, "")
	s.SetAppBot("my-agent[bot]")
	s.AddComment(prNumber, "mallory", `<!-- agent-hooks:comment event="PostExecutionEnd" -->`, time.Now().Add(-time.Hour))
	ws := workspace(t, `{"hooks": {"PostExecutionEnd": [{"type": "github-comment"}]}}`)
	for range 3 {
		fireEvent(t, ws, serverEnv(s), hooks.PostExecutionEnd)
	}
	if got := commentsBy(s, "my-agent[bot]"); len(got) != 1 {
		t.Fatalf("want one comment updated in place, got %+v", got)
	}
	if got := commentsBy(s, "mallory"); len(got) != 1 || !strings.HasSuffix(got[0].Body, "-->") {
		t.Errorf("a person's comment was taken over: %+v", got)
	}
}

// TestStickyCommentHeaders: each header keeps a sticky comment of its own on the pull request,
// across events, apart from the event's default one; each is updated in place.
func TestStickyCommentHeaders(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	ws := workspace(t, `{"hooks": {
  "PreExecutionEnd": [
    {"type": "command", "name": "tests", "command": "test -f ok || exit 2"},
    {"type": "github-comment", "name": "lint job", "header": "lint", "message": "lint {{issueNumber}}"},
    {"type": "github-comment", "name": "issue job", "header": "issue-{{issueNumber}}", "message": "issue"},
    {"type": "github-comment", "name": "default", "message": "default"}
  ],
  "PostExecutionEnd": [{"type": "github-comment", "header": "lint", "message": "lint after"}]
}}`)
	e := serverEnv(s)
	fireEvent(t, ws, e, hooks.PreExecutionEnd)
	if err := os.WriteFile(filepath.Join(ws, "ok"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fireEvent(t, ws, e, hooks.PreExecutionEnd)
	ours := commentsBy(s, "agent-bot")
	if len(ours) != 3 {
		t.Fatalf("want 3 sticky comments (lint, issue-7, the event's), got %d: %+v", len(ours), ours)
	}
	for i, want := range []string{`<!-- agent-hooks:comment header="lint" -->`, `<!-- agent-hooks:comment header="issue-7" -->`, `<!-- agent-hooks:comment event="PreExecutionEnd" -->`} {
		if !strings.HasPrefix(ours[i].Body, want+"\n") || !strings.Contains(ours[i].Body, "✅ proceeds") {
			t.Errorf("comment %d = %q, want %s updated to the second outcome", i, ours[i].Body, want)
		}
	}
	// The same header from another event is the same comment.
	fireEvent(t, ws, e, hooks.PostExecutionEnd)
	if after := commentsBy(s, "agent-bot"); len(after) != 3 || !strings.Contains(after[0].Body, "lint after") {
		t.Errorf("want the lint comment reused by PostExecutionEnd, got %+v", after)
	}
}

// TestStickyCommentHide: with hide, a changed report is a new comment and the one it
// supersedes is hidden as outdated (minimizeComment); a hide GitHub refuses fails the reporter
// with GitHub's reason.
func TestStickyCommentHide(t *testing.T) {
	t.Parallel()
	s := newServer(t, "agent-bot")
	ws := workspace(t, `{"hooks": {"PreExecutionEnd": [
    {"type": "command", "name": "tests", "command": "test -f ok || exit 2"},
    {"type": "github-comment", "name": "report", "header": "ci", "hide": true}
]}}`)
	e := serverEnv(s)
	first := fireEvent(t, ws, e, hooks.PreExecutionEnd)
	if h := first.Hooks[1]; h.Status != hooks.StatusOK || h.Details["hidden"] != nil {
		t.Fatalf("first report: %+v", h)
	}
	if err := os.WriteFile(filepath.Join(ws, "ok"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	second := fireEvent(t, ws, e, hooks.PreExecutionEnd)
	ours := commentsBy(s, "agent-bot")
	if len(ours) != 2 || ours[0].Minimized != "outdated" || ours[1].Minimized != "" || !strings.Contains(ours[1].Body, "✅ proceeds") {
		t.Fatalf("want the blocked report hidden as outdated and the new one shown, got %+v", ours)
	}
	if h := second.Hooks[1]; h.Details["hidden"] != "https://github.com/octo/hello/pull/12#issuecomment-"+strconv.FormatInt(ours[0].ID, 10) {
		t.Errorf("details %v, want the hidden comment's URL", h.Details)
	}

	s.Fail(githubtest.Fault{Method: "POST", PathSuffix: "/graphql", Count: 1, Status: 200,
		Body: `{"data": {"minimizeComment": null}, "errors": [{"type": "FORBIDDEN", "path": ["minimizeComment"], "message": "Resource not accessible by integration"}]}`})
	failed := fireEvent(t, ws, e, hooks.PreExecutionEnd)
	want := "could not hide the comment it supersedes (https://github.com/octo/hello/pull/12#issuecomment-" + strconv.FormatInt(ours[1].ID, 10) + "): hide the comment IC_" + strconv.FormatInt(ours[1].ID, 10) + " as outdated: GraphQL: FORBIDDEN: Resource not accessible by integration"
	if h := failed.Hooks[1]; h.Status != hooks.StatusError || !strings.Contains(h.Reason, want) {
		t.Errorf("a refused hide: %s %q, want an error %q", h.Status, h.Reason, want)
	}
}
