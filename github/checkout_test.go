package github

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/gitops"
)

// eventFile writes a real webhook payload from testdata/events, changed by edit, and returns its
// path.
func eventFile(t *testing.T, name string, edit func(ev map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil {
		return filepath.Join("testdata", "events", name)
	}
	var ev map[string]any
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	edit(ev)
	if b, err = json.Marshal(ev); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPullRequestCheckout(t *testing.T) {
	t.Parallel()
	const merge, baseTip = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", "1111111111111111111111111111111111111111"
	setHead := func(repo any) func(ev map[string]any) {
		return func(ev map[string]any) {
			ev["pull_request"].(map[string]any)["head"].(map[string]any)["repo"] = repo
		}
	}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    *gitops.PullRequestCheckout
		wantErr string
	}{
		{name: "outside Actions", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": eventFile(t, "pull_request.opened.json", nil)}},
		{name: "pull_request",
			env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": eventFile(t, "pull_request.opened.json", nil),
				"GITHUB_REF": "refs/pull/2/merge", "GITHUB_SHA": merge},
			want: &gitops.PullRequestCheckout{Event: "pull_request", Number: 2, HeadRef: "changes", HeadRepo: "Codertocat/Hello-World",
				BaseRepo: "Codertocat/Hello-World", MergeCommits: []string{merge}}},
		{name: "pull_request_target checks out the base branch",
			env: map[string]string{"GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_EVENT_PATH": eventFile(t, "pull_request.opened.json", nil),
				"GITHUB_REF": "refs/heads/master", "GITHUB_SHA": baseTip},
			want: &gitops.PullRequestCheckout{Event: "pull_request_target", Number: 2, HeadRef: "changes", HeadRepo: "Codertocat/Hello-World",
				BaseRepo: "Codertocat/Hello-World"}},
		{name: "pull_request_review names its merge commit too",
			env: map[string]string{"GITHUB_EVENT_NAME": "pull_request_review", "GITHUB_EVENT_PATH": eventFile(t, "pull_request_review.submitted.json", nil),
				"GITHUB_REF": "refs/pull/2/merge", "GITHUB_SHA": merge},
			want: &gitops.PullRequestCheckout{Event: "pull_request_review", Number: 2, HeadRef: "changes", HeadRepo: "Codertocat/Hello-World",
				BaseRepo: "Codertocat/Hello-World", MergeCommits: []string{merge, "c4295bd74fb0f4fda03689c3df3f2803b658fd85"}}},
		{name: "fork",
			env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": eventFile(t, "pull_request.opened.json",
				setHead(map[string]any{"full_name": "forker/Hello-World", "fork": true})), "GITHUB_REF": "refs/pull/2/merge", "GITHUB_SHA": merge},
			want: &gitops.PullRequestCheckout{Event: "pull_request", Number: 2, HeadRef: "changes", HeadRepo: "forker/Hello-World",
				BaseRepo: "Codertocat/Hello-World", MergeCommits: []string{merge}}},
		{name: "deleted fork",
			env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": eventFile(t, "pull_request.opened.json", setHead(nil)),
				"GITHUB_REF": "refs/pull/2/merge", "GITHUB_SHA": merge},
			want: &gitops.PullRequestCheckout{Event: "pull_request", Number: 2, HeadRef: "changes", BaseRepo: "Codertocat/Hello-World", MergeCommits: []string{merge}}},
		{name: "issue_comment", env: map[string]string{"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": eventFile(t, "issue_comment.created.json", nil)}},
		{name: "payload missing", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": filepath.Join(t.TempDir(), "gone.json")},
			wantErr: "pull_request event payload"},
		{name: "no payload", env: map[string]string{"GITHUB_EVENT_NAME": "pull_request_target"}, wantErr: "holds no pull request"},
		{name: "payload without head",
			env: map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": eventFile(t, "pull_request.opened.json", func(ev map[string]any) {
				delete(ev["pull_request"].(map[string]any), "head")
			})},
			wantErr: "lacks pull_request.head.ref"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"GITHUB_ACTIONS": "true"}
			if tc.name == "outside Actions" {
				env = map[string]string{}
			}
			for k, v := range tc.env {
				env[k] = v
			}
			got, err := PullRequestCheckout(func(k string) string { return env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
