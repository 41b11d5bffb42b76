package github

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/autoagent/agent-hooks/github/githubtest"
	"github.com/autoagent/agent-hooks/hooks"
)

// toolCallPayload is the payload of an agent's PreToolUse as agents.Handle builds it: the agent's
// own per-attempt ids differ from one attempt at the same call to the next.
func toolCallPayload(command, attempt string) hooks.Payload {
	input := map[string]any{"command": command, "description": "clean the build"}
	return hooks.Payload{
		"prNumber": prNumber, "agent": "claude", "agentSessionId": "sess-1", "eventName": hooks.PreToolUse,
		"tool_use_id": "toolu_" + attempt, "toolUseId": "toolu_" + attempt, "prompt_id": "prompt-" + attempt,
		"tool_name": "Bash", "tool_input": input, "toolName": "Bash", "toolInput": input,
		"toolCall": map[string]any{"tool": "Bash", "command": command, "reason": "clean the build", "cwd": "/w", "input": input},
	}
}

// TestApprovalOfAToolCall: an agent's tool call (the agent asks again when refused) that nobody
// decides within the wait is refused as pending, saying where, and its request stays open; the
// next identical call — a new attempt with new ids — picks the decision up. Spoofs never approve
// it: the author's own command, a non-member of approverTeams, a command or review that names
// no request or another call's, an approval on an old head; beside them, the answer that counts.
func TestApprovalOfAToolCall(t *testing.T) {
	t.Parallel()
	const cmd = "rm -rf build"
	for _, tt := range []struct {
		name string
		// answer reacts after the first call (its request's ref given) and returns the command of
		// the next call.
		answer  func(t *testing.T, s *githubtest.Server, run func(string, string) hooks.Outcome, ref string) string
		want    hooks.Status
		ignored string
	}{
		{name: "a member names the request",
			answer: func(t *testing.T, s *githubtest.Server, _ func(string, string) hooks.Outcome, ref string) string {
				s.AddComment(prNumber, "erin", "/approve "+ref, time.Time{})
				return cmd
			},
			want: hooks.StatusOK},
		{name: "a member rejects",
			answer: func(t *testing.T, s *githubtest.Server, _ func(string, string) hooks.Outcome, ref string) string {
				s.AddComment(prNumber, "erin", "/reject "+ref+" not on main", time.Time{})
				return cmd
			},
			want: hooks.StatusBlocked},
		{name: "the author's own approval",
			answer: func(t *testing.T, s *githubtest.Server, _ func(string, string) hooks.Outcome, ref string) string {
				s.SetTeamMembership("octo", "reviewers", "agent-account", "active")
				s.AddComment(prNumber, "agent-account", "/approve "+ref, time.Time{})
				return cmd
			},
			want: hooks.StatusBlocked, ignored: "@agent-account opened the pull request"},
		{name: "a writer outside approverTeams",
			answer: func(t *testing.T, s *githubtest.Server, _ func(string, string) hooks.Outcome, ref string) string {
				s.AddComment(prNumber, "alice", "/approve "+ref, time.Time{})
				return cmd
			},
			want: hooks.StatusBlocked, ignored: "@alice is not a member of octo/reviewers"},
		{name: "a command that names no request",
			answer: func(t *testing.T, s *githubtest.Server, _ func(string, string) hooks.Outcome, ref string) string {
				s.AddComment(prNumber, "erin", "/approve", time.Time{})
				return cmd
			},
			want: hooks.StatusBlocked, ignored: "@erin's /approve does not name this request"},
		{name: "an approving review",
			answer: func(t *testing.T, s *githubtest.Server, _ func(string, string) hooks.Outcome, ref string) string {
				s.AddReview(prNumber, "erin", "APPROVED", "", "", time.Time{})
				return cmd
			},
			want: hooks.StatusBlocked, ignored: "@erin's approving review does not name a tool call"},
		{name: "an approval on an old head",
			answer: func(t *testing.T, s *githubtest.Server, _ func(string, string) hooks.Outcome, ref string) string {
				s.AddComment(prNumber, "erin", "/approve "+ref, time.Time{})
				s.AddPR(prNumber, "1111111111111111111111111111111111111111")
				return cmd
			},
			want: hooks.StatusBlocked},
		{name: "an approval of another call",
			answer: func(t *testing.T, s *githubtest.Server, _ func(string, string) hooks.Outcome, ref string) string {
				s.AddComment(prNumber, "erin", "/approve "+ref, time.Time{})
				return "rm -rf /"
			},
			want: hooks.StatusBlocked},
		{name: "an approval, read late, of a call the agent no longer makes",
			answer: func(t *testing.T, s *githubtest.Server, run func(string, string) hooks.Outcome, ref string) string {
				run("rm -rf /", "x") // another call supersedes the request the approver reads
				s.AddComment(prNumber, "erin", "/approve "+ref, time.Time{})
				return "rm -rf /"
			},
			want: hooks.StatusBlocked, ignored: "@erin's /approve does not name this request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, "")
			s.SetAppBot("agent[bot]")
			s.SetPRAuthor(prNumber, "agent-account")
			s.SetPermission("agent-account", "write")
			s.AddTeam("octo", "reviewers", "erin")
			r := configureApproval(t, Options{}, `{"pollInterval": 10, "approverTeams": ["octo/reviewers"]}`)
			run := func(command, attempt string) hooks.Outcome {
				inv, _ := invocation(serverEnv(s), hooks.PreToolUse, 150*time.Millisecond, toolCallPayload(command, attempt))
				inv.AsksAgain = true
				return r.Run(context.Background(), inv)
			}

			first := run(cmd, "1")
			req := requestComment(t, s)
			if first.Status != hooks.StatusBlocked || first.Details["pending"] != true ||
				!strings.Contains(first.Reason, "approval pending on octo/hello#12") || !strings.Contains(first.Reason, fmt.Sprintf("#issuecomment-%d", req.ID)) {
				t.Fatalf("first call: %s %q %v, want refused as pending, naming the request", first.Status, first.Reason, first.Details)
			}
			ref := s.RequestRef(prNumber)
			for _, want := range []string{"```\nrm -rf build\n```", "**`/approve " + ref + "`**", "Waiting for a decision"} {
				if !strings.Contains(req.Body, want) {
					t.Errorf("request:\n%s\nwant it to contain %q", req.Body, want)
				}
			}
			if strings.Contains(req.Body, "Timed out") {
				t.Errorf("the request was closed:\n%s", req.Body)
			}

			next := tt.answer(t, s, run, ref)
			out := run(next, "2")
			if out.Status != tt.want {
				t.Fatalf("next call: %s %q %v, want %s", out.Status, out.Reason, out.Details, tt.want)
			}
			if tt.want == hooks.StatusOK && out.Details["decider"] != "erin" {
				t.Errorf("decider = %v, want erin", out.Details["decider"])
			}
			if tt.want == hooks.StatusBlocked && tt.name != "a member rejects" && out.Details["pending"] != true {
				t.Errorf("next call: %q %v, want still pending", out.Reason, out.Details)
			}
			if ign := fmt.Sprint(out.Details["ignored"]); !strings.Contains(ign, tt.ignored) {
				t.Errorf("ignored = %s, want it to name %q", ign, tt.ignored)
			}
		})
	}
}
