package gitops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autoagent/agent-hooks/hooks"
)

// fired records the events a built-in fires and answers them.
type fired struct {
	events   []string
	payloads []hooks.Payload
	answer   map[string]*hooks.Result
}

func (f *fired) fire(_ context.Context, event string, data hooks.Payload) (*hooks.Result, error) {
	f.events = append(f.events, event)
	f.payloads = append(f.payloads, data)
	if r := f.answer[event]; r != nil {
		return r, nil
	}
	return &hooks.Result{Event: event, Decision: hooks.DecisionApprove}, nil
}

func invocation(e *testEnv, dir string, payload hooks.Payload, f *fired) (*hooks.Invocation, *bytes.Buffer) {
	var out bytes.Buffer
	return &hooks.Invocation{
		Event: hooks.PostExecutionEnd, Payload: payload, Workspace: dir, Getenv: e.getenv, Environ: e.environ(),
		Stdout: &out, Stderr: &out, Fire: f.fire,
	}, &out
}

func configure(t *testing.T, typ hooks.Type, options string) hooks.Task {
	t.Helper()
	r, err := typ.Configure(&hooks.Hook{}, json.RawMessage(options))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestGitCommitHookFiresPreAndPostGitCommit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	writeFiles(t, dir, map[string]string{"a.txt": "b\n", "new.txt": "n\n"})
	f := &fired{}
	inv, out := invocation(e, dir, hooks.Payload{"issueNumber": 42, "issueTitle": "Fix login"}, f)
	o := configure(t, CommitType{}, `{}`).Run(context.Background(), inv)
	if o.Status != hooks.StatusOK {
		t.Fatalf("outcome = %+v", o)
	}
	sha := e.git(t, dir, "rev-parse", "HEAD")
	if o.Set["commitSha"] != sha || o.Details["commitSha"] != sha || o.Details["changes"] != true || o.Details["filesCommitted"] != 2 {
		t.Errorf("set = %v, details = %v; want commitSha %s, 2 files", o.Set, o.Details, sha)
	}
	if got := e.git(t, dir, "log", "-1", "--format=%s"); got != "Complete issue #42: Fix login" {
		t.Errorf("message = %q", got)
	}
	if strings.Join(f.events, ",") != "PreGitCommit,PostGitCommit" {
		t.Fatalf("fired %v", f.events)
	}
	if got := f.payloads[0]["files"]; !equalStrings(got, []string{"a.txt", "new.txt"}) {
		t.Errorf("PreGitCommit files = %v", got)
	}
	if f.payloads[1]["commitSha"] != sha {
		t.Errorf("PostGitCommit payload = %v", f.payloads[1])
	}
	if !strings.Contains(out.String(), sha[:7]) {
		t.Errorf("output %q does not name the commit", out.String())
	}
	e.fsck(t, dir)
}

func equalStrings(v any, want []string) bool {
	got, ok := v.([]string)
	return ok && strings.Join(got, "\n") == strings.Join(want, "\n")
}

func TestGitCommitHookBlockedByPreGitCommit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"a.txt": "a\n"})
	before := e.git(t, dir, "rev-parse", "HEAD")
	writeFiles(t, dir, map[string]string{"a.txt": "b\n"})
	f := &fired{answer: map[string]*hooks.Result{
		hooks.PreGitCommit: {Event: hooks.PreGitCommit, Decision: hooks.DecisionBlock, Blocked: true, Reason: "secrets found in a.txt"},
	}}
	inv, _ := invocation(e, dir, hooks.Payload{}, f)
	o := configure(t, CommitType{}, `{"message": "x"}`).Run(context.Background(), inv)
	if o.Status != hooks.StatusBlocked || o.Decision != hooks.DecisionBlock || !strings.Contains(o.Reason, "secrets found in a.txt") {
		t.Fatalf("outcome = %+v, want blocked with the reason", o)
	}
	if got := e.git(t, dir, "rev-parse", "HEAD"); got != before {
		t.Errorf("HEAD moved")
	}
	if got := e.git(t, dir, "status", "--porcelain"); got != "M a.txt" {
		t.Errorf("status = %q, want the change left unstaged", got)
	}
	if strings.Join(f.events, ",") != "PreGitCommit" {
		t.Errorf("fired %v", f.events)
	}
}

func TestGitCommitHookFilesModifiedAndNothingToCommit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := e.newRepo(t, map[string]string{"sub/a.txt": "a\n", "sub/b.txt": "b\n"})
	writeFiles(t, dir, map[string]string{"sub/a.txt": "a2\n", "sub/b.txt": "b2\n"})
	// The workspace is a subdirectory: filesModified is relative to it.
	f := &fired{}
	inv, _ := invocation(e, filepath.Join(dir, "sub"), hooks.Payload{"filesModified": []any{"a.txt"}}, f)
	o := configure(t, CommitType{}, `{"message": "only a"}`).Run(context.Background(), inv)
	if o.Status != hooks.StatusOK {
		t.Fatalf("outcome = %+v", o)
	}
	if got := e.git(t, dir, "show", "--name-only", "--format=", "HEAD"); got != "sub/a.txt" {
		t.Errorf("committed %q, want only sub/a.txt", got)
	}
	// With the change committed and nothing else selected: changes false, no event fired.
	f = &fired{}
	inv, _ = invocation(e, dir, hooks.Payload{"filesModified": []any{"sub/a.txt"}}, f)
	o = configure(t, CommitType{}, `{}`).Run(context.Background(), inv)
	if o.Status != hooks.StatusOK || o.Details["changes"] != false || o.Set != nil || len(f.events) != 0 {
		t.Errorf("outcome = %+v, fired %v; want ok, changes false", o, f.events)
	}
}

func TestHookTypesRejectUnknownOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ     hooks.Type
		options string
		want    string
	}{
		{CommitType{}, `{"mesage": "typo"}`, "mesage"},
		{CommitType{}, `{"author": "no email"}`, "Name <email>"},
		{CommitType{}, `{"author": {"name": "a", "mail": "x"}}`, "mail"},
		{PushType{}, `{"remtoe": "origin"}`, "remtoe"},
		{PushType{}, `{"retries": 99}`, "retries"},
	} {
		_, err := tc.typ.Configure(&hooks.Hook{}, json.RawMessage(tc.options))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to name %q", tc.options, err, tc.want)
		}
	}
	if _, err := (CommitType{}).Configure(&hooks.Hook{}, json.RawMessage(`{"author": "A B <ab@example.com>", "noVerify": true, "files": ["src/**"]}`)); err != nil {
		t.Errorf("valid options refused: %v", err)
	}
}

func TestGitPushHook(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "upstream")
	inv, out := invocation(e, dir, hooks.Payload{}, &fired{})
	o := configure(t, PushType{}, `{"remote": "upstream", "branch": "current"}`).Run(context.Background(), inv)
	if o.Status != hooks.StatusOK {
		t.Fatalf("outcome = %+v", o)
	}
	head := e.git(t, dir, "rev-parse", "HEAD")
	if got := e.git(t, bare, "rev-parse", "main"); got != head {
		t.Errorf("remote main = %s, want %s", got, head)
	}
	if o.Details["commitSha"] != head || !strings.Contains(out.String(), "pushed") {
		t.Errorf("details = %v, output %q", o.Details, out.String())
	}
	o = configure(t, PushType{}, `{"remote": "nosuch"}`).Run(context.Background(), inv)
	if o.Status != hooks.StatusError || !strings.Contains(o.Reason, `no remote named "nosuch"`) {
		t.Errorf("outcome = %+v, want a clear error", o)
	}
}

// TestGitPushHookChecksThePullRequest: the hook hands the run's pull request and its allow
// options to Push; in Actions, a pull request that cannot be read stops the push.
func TestGitPushHookChecksThePullRequest(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir, bare := e.repoWithRemote(t, "origin")
	e.vars["GITHUB_ACTIONS"] = "true"
	inv, _ := invocation(e, dir, hooks.Payload{}, &fired{})

	o := configure(t, PushType{}, `{"branch": "main"}`).Run(context.Background(), inv)
	if o.Status != hooks.StatusError || !strings.Contains(o.Reason, "cannot tell which pull request") {
		t.Errorf("no reader: outcome = %+v", o)
	}
	unreadable := PushType{PullRequest: func(func(string) string) (*PullRequestCheckout, error) {
		return nil, errors.New("the pull_request event payload holds no pull request")
	}}
	o = configure(t, unreadable, `{"branch": "main"}`).Run(context.Background(), inv)
	if o.Status != hooks.StatusError || !strings.Contains(o.Reason, "holds no pull request; nothing was pushed") {
		t.Errorf("unreadable: outcome = %+v", o)
	}

	// A fork's pull request whose branch is "main": refused, then allowed by the option.
	var seen func(string) string
	fork := PushType{PullRequest: func(getenv func(string) string) (*PullRequestCheckout, error) {
		seen = getenv
		return &PullRequestCheckout{Event: "pull_request", Number: 7, HeadRef: "main", HeadRepo: "forker/r", BaseRepo: "owner/r"}, nil
	}}
	o = configure(t, fork, `{"branch": "main"}`).Run(context.Background(), inv)
	if o.Status != hooks.StatusError || !strings.Contains(o.Reason, "pull request #7 comes from the fork forker/r") {
		t.Errorf("fork: outcome = %+v", o)
	}
	if seen == nil || seen("GITHUB_ACTIONS") != "true" {
		t.Error("the reader did not get the invocation's environment")
	}
	o = configure(t, fork, `{"branch": "main", "allowForkToBase": true, "allowSyntheticMerge": true}`).Run(context.Background(), inv)
	if o.Status != hooks.StatusOK {
		t.Fatalf("allowed: outcome = %+v", o)
	}
	e.wantRef(t, bare, "main", e.git(t, dir, "rev-parse", "HEAD"))
}
