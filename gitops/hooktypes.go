package gitops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/autoagent/agent-hooks/gitops/internal/gitindex"
	"github.com/autoagent/agent-hooks/hooks"
	"github.com/autoagent/agent-hooks/hooks/template"
)

// Hook type names.
const (
	TypeCommit = "git-commit"
	TypePush   = "git-push"
)

// DefaultMessage is the commit message template of a git-commit hook that sets none.
const DefaultMessage = "Complete issue #{{issueNumber}}: {{issueTitle}}"

// CommitType is the git-commit hook type.
type CommitType struct {
	// GitHubAPI is what "via": "github-api" commits with, for a run's environment (nil: that
	// option is refused).
	GitHubAPI func(getenv func(string) string) Creator
}

// The ways git-commit can commit ("via").
const (
	ViaLocal     = "local"      // here, with go-git
	ViaGitHubAPI = "github-api" // on GitHub through its Git Data API, which signs the commit
)

// PushType is the git-push hook type.
type PushType struct {
	// RetryDelay is the first backoff between push attempts (default 1s); tests shorten it.
	RetryDelay time.Duration
	// PullRequest reads, from a run's environment, the pull request of a GitHub Actions run (nil
	// outside one). Without it a push in GitHub Actions is refused: it could not be checked.
	PullRequest func(getenv func(string) string) (*PullRequestCheckout, error)
}

// commitConfig is a git-commit hook's options.
type commitConfig struct {
	Message    string   `json:"message"`
	NoVerify   bool     `json:"noVerify"`
	AllowEmpty bool     `json:"allowEmpty"`
	Files      []string `json:"files"`
	Author     *Person  `json:"author"`
	Committer  *Person  `json:"committer"`
	Via        string   `json:"via"`
	// AllowSecrets: globs (relative to the workspace, as files) of files committed even when
	// they look like secrets.
	AllowSecrets []string `json:"allowSecrets"`
}

// pushConfig is a git-push hook's options.
type pushConfig struct {
	Remote      string `json:"remote"`
	Branch      string `json:"branch"`
	Force       bool   `json:"force"`
	SetUpstream *bool  `json:"setUpstream"`
	Retries     *int   `json:"retries"`
	// See PushOptions.
	AllowSyntheticMerge bool `json:"allowSyntheticMerge"`
	AllowForkToBase     bool `json:"allowForkToBase"`
	// AllowSecrets: globs (relative to the workspace) of files pushed even when they look like
	// secrets.
	AllowSecrets []string `json:"allowSecrets"`
}

var nameEmail = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(.*?)\s*<([^<>]+)>\s*$`) })

// UnmarshalJSON accepts {"name": …, "email": …} or "Name <email>".
func (p *Person) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		m := nameEmail().FindStringSubmatch(s)
		if m == nil {
			return fmt.Errorf("want \"Name <email>\", got %q", s)
		}
		p.Name, p.Email = m[1], m[2]
		return nil
	}
	type plain Person
	var v plain
	if err := hooks.DecodeOptions(b, &v); err != nil {
		return err
	}
	*p = Person(v)
	return nil
}

// Configure implements hooks.Type.
func (t CommitType) Configure(h *hooks.Hook, options json.RawMessage) (hooks.Task, error) {
	var c commitConfig
	if err := hooks.DecodeOptions(options, &c); err != nil {
		return nil, err
	}
	switch c.Via {
	case "", ViaLocal:
	case ViaGitHubAPI:
		if t.GitHubAPI == nil {
			return nil, errors.New(`via: "github-api" is not available in this build`)
		}
	default:
		return nil, fmt.Errorf("via: %q is not %q or %q", c.Via, ViaLocal, ViaGitHubAPI)
	}
	if c.Message == "" {
		c.Message = DefaultMessage
	}
	if err := checkGlobs("files", c.Files); err != nil {
		return nil, err
	}
	if err := checkGlobs("allowSecrets", c.AllowSecrets); err != nil {
		return nil, err
	}
	return &commitRunner{cfg: c, gitHubAPI: t.GitHubAPI}, nil
}

// Configure implements hooks.Type.
func (t PushType) Configure(h *hooks.Hook, options json.RawMessage) (hooks.Task, error) {
	var c pushConfig
	if err := hooks.DecodeOptions(options, &c); err != nil {
		return nil, err
	}
	if c.Retries != nil && (*c.Retries < 0 || *c.Retries > 10) {
		return nil, fmt.Errorf("retries: must be between 0 and 10")
	}
	if err := checkGlobs("allowSecrets", c.AllowSecrets); err != nil {
		return nil, err
	}
	return &pushRunner{cfg: c, delay: t.RetryDelay, pullRequest: t.PullRequest}, nil
}

// checkGlobs refuses an option's malformed or blank patterns.
func checkGlobs(option string, globs []string) error {
	for _, g := range globs {
		if _, err := filepath.Match(g, ""); err != nil || strings.TrimSpace(g) == "" {
			return fmt.Errorf("%s: bad pattern %q", option, g)
		}
	}
	return nil
}

type commitRunner struct {
	cfg       commitConfig
	gitHubAPI func(getenv func(string) string) Creator
}

// blockedError carries a PreGitCommit block out of Commit.
type blockedError struct{ reason string }

func (e *blockedError) Error() string { return e.reason }

func envOf(inv *hooks.Invocation) Env { return Env{Getenv: inv.Getenv, Environ: inv.Environ} }

// Run stages and commits, firing PreGitCommit before and PostGitCommit after.
func (c *commitRunner) Run(ctx context.Context, inv *hooks.Invocation) hooks.Outcome {
	r, err := Open(inv.Workspace, envOf(inv))
	if err != nil {
		return failed("git-commit: %v", err)
	}
	base, err := workspaceBase(r, inv.Workspace)
	if err != nil {
		return failed("git-commit: %v", err)
	}
	sel, err := c.selection(r, base, inv)
	if err != nil {
		return failed("git-commit: %v", err)
	}
	// The session trailer goes in before the commit-msg hook runs, as `git commit --trailer`.
	message := withTrailer(template.ExpandMessage(c.cfg.Message, inv.Payload), SessionTrailer, inv.SessionID)
	opts := CommitOptions{
		Message: message, NoVerify: c.cfg.NoVerify,
		AllowEmpty: c.cfg.AllowEmpty, Selection: sel, Out: inv.Stderr,
		AllowSecrets: topGlobs(base, c.cfg.AllowSecrets),
	}
	if c.cfg.Author != nil {
		opts.Author = *c.cfg.Author
	}
	if c.cfg.Committer != nil {
		opts.Committer = *c.cfg.Committer
	}
	if c.cfg.Via == ViaGitHubAPI {
		opts.Create = c.gitHubAPI(inv.Getenv)
	}
	if inv.Fire != nil {
		opts.Before = func(ctx context.Context, p Pending) (bool, error) {
			res, err := inv.Fire(ctx, hooks.PreGitCommit, hooks.Payload{
				"commitMessage": p.Message, "branch": p.Branch, "files": paths(p.Files),
			})
			if err != nil {
				return false, fmt.Errorf("fire %s: %w", hooks.PreGitCommit, err)
			}
			if res.Blocked {
				return false, &blockedError{reason: res.Reason}
			}
			for _, h := range res.Hooks {
				if h.Status != hooks.StatusSkipped {
					return true, nil // a hook ran and may have changed the work tree
				}
			}
			return false, nil
		}
	}
	res, err := r.Commit(ctx, opts)
	var blocked *blockedError
	var hookErr *HookError
	switch {
	case errors.As(err, &blocked):
		reason := "PreGitCommit blocked the commit"
		if blocked.reason != "" {
			reason += ": " + blocked.reason
		}
		fmt.Fprintf(inv.Stdout, "git-commit: %s\n", reason)
		return hooks.Outcome{Status: hooks.StatusBlocked, Decision: hooks.DecisionBlock, Reason: reason, ExitCode: 2,
			BlockedBy: hooks.PreGitCommit, Details: map[string]any{"changes": false}}
	case errors.As(err, &hookErr):
		// The hook's output was shown as it ran; the reason names the hook and its last words.
		reason := fmt.Sprintf("git-commit: %s hook failed with exit code %d; nothing was committed", hookErr.Hook, hookErr.ExitCode)
		if last := lastLine(hookErr.Output); last != "" {
			reason += ": " + last
		}
		return hooks.Outcome{Status: hooks.StatusError, Reason: reason, ExitCode: hookErr.ExitCode,
			Stderr: hookErr.Output, Details: map[string]any{"changes": false}}
	case err != nil:
		return failed("git-commit: %v", err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(inv.Stderr, "git-commit: warning: %s\n", w)
	}
	warnSecrets(inv.Stderr, res.Secrets)
	if !res.Changes {
		msg := "git-commit: nothing to commit, working tree clean\n"
		fmt.Fprint(inv.Stdout, msg)
		details := map[string]any{"changes": false, "filesCommitted": 0}
		if len(res.Secrets) > 0 {
			details["secretsLeftOut"] = res.Secrets
		}
		return hooks.Outcome{Status: hooks.StatusOK, Stdout: msg, Details: details}
	}
	subject, _, _ := strings.Cut(res.Message, "\n")
	where := res.Branch
	if where == "" {
		where = "detached HEAD"
	}
	if res.Parent == "" {
		where += " (root-commit)"
	}
	msg := fmt.Sprintf("[%s %s] %s\n %d file(s) changed\n", where, res.Hash[:7], subject, len(res.Files))
	details := map[string]any{
		"changes": true, "commitSha": res.Hash, "filesCommitted": len(res.Files), "branch": res.Branch, "via": ViaLocal,
	}
	if len(res.Secrets) > 0 {
		details["secretsLeftOut"] = res.Secrets
	}
	if cr := res.Created; cr != nil {
		verified := "not signed, so not Verified (" + cr.Reason + ")"
		if cr.Verified {
			verified = "signed by GitHub: Verified"
		}
		msg += fmt.Sprintf(" made on GitHub, %s: %s\n", verified, cr.URL)
		details["via"], details["verified"], details["verification"], details["url"] = ViaGitHubAPI, cr.Verified, cr.Reason, cr.URL
	}
	fmt.Fprint(inv.Stdout, msg)
	out := hooks.Outcome{Status: hooks.StatusOK, Stdout: msg, Set: hooks.Payload{"commitSha": res.Hash}, Details: details}
	if inv.Fire != nil {
		post, err := inv.Fire(ctx, hooks.PostGitCommit, hooks.Payload{
			"commitSha": res.Hash, "commitMessage": res.Message, "branch": res.Branch,
			"files": paths(res.Files), "filesCommitted": len(res.Files),
		})
		if err != nil {
			fmt.Fprintf(inv.Stderr, "git-commit: warning: fire %s: %v\n", hooks.PostGitCommit, err)
		} else if len(post.Warnings) > 0 {
			out.Details["postGitCommitWarnings"] = post.Warnings
		}
	}
	return out
}

// workspaceBase is the workspace's path below the top of the repository r, slash-separated, ""
// for the top itself.
func workspaceBase(r *Repo, workspace string) (string, error) {
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	root := r.Root
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	base, err := filepath.Rel(root, ws)
	if err != nil || strings.HasPrefix(base, "..") {
		return "", fmt.Errorf("workspace %s is outside the repository %s", ws, root)
	}
	base = filepath.ToSlash(base)
	if base == "." {
		base = ""
	}
	return base, nil
}

// topGlobs are globs relative to the workspace (at base) made relative to the top.
func topGlobs(base string, globs []string) []string {
	var out []string
	for _, g := range globs {
		out = append(out, gitindex.JoinPath(base, strings.TrimPrefix(filepath.ToSlash(g), "./")))
	}
	return out
}

// selection is the hook's files globs, else the payload's filesModified, else everything; both
// are relative to the workspace, which is at base below the top.
func (c *commitRunner) selection(r *Repo, base string, inv *hooks.Invocation) (Selection, error) {
	root := r.Root
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	ws := filepath.Join(root, filepath.FromSlash(base))
	if len(c.cfg.Files) > 0 {
		return Selection{Globs: topGlobs(base, c.cfg.Files)}, nil
	}
	raw, ok := inv.Payload["filesModified"]
	if !ok || raw == nil {
		return Selection{}, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return Selection{}, fmt.Errorf("payload filesModified: want a list of paths, got %T", raw)
	}
	sel := Selection{Paths: []string{}}
	for _, v := range list {
		p, ok := v.(string)
		if !ok || p == "" {
			return Selection{}, fmt.Errorf("payload filesModified: want paths, got %v", v)
		}
		abs := filepath.FromSlash(p)
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(ws, abs)
		}
		rel, err := filepath.Rel(root, filepath.Clean(abs))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return Selection{}, fmt.Errorf("payload filesModified: %s is outside the repository", p)
		}
		sel.Paths = append(sel.Paths, filepath.ToSlash(rel))
	}
	return sel, nil // an empty list selects nothing: the agent changed nothing
}

// maxSecretWarnings bounds the warnings of one commit about files left out.
const maxSecretWarnings = 10

// warnSecrets says which files a commit left out, and how to commit them.
func warnSecrets(w io.Writer, found []SecretFinding) {
	for i, f := range found {
		if i == maxSecretWarnings-1 && len(found) > maxSecretWarnings {
			fmt.Fprintf(w, "git-commit: warning: and %d more files that look like secrets were not committed\n", len(found)-i)
			break
		}
		fmt.Fprintf(w, "git-commit: warning: %s was not committed: it looks like a secret (%s: %s); to commit it, list it in \"allowSecrets\" of the git-commit hook\n",
			f.Path, f.Reason(), f.Description)
	}
}

// lastLine is the last non-blank line of s, shortened to 200 bytes.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 200 {
		last = last[:200] + "…"
	}
	return last
}

func paths(fs []FileChange) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Path
	}
	return out
}

func failed(format string, args ...any) hooks.Outcome {
	return hooks.Outcome{Status: hooks.StatusError, Reason: fmt.Sprintf(format, args...), ExitCode: 1}
}

type pushRunner struct {
	cfg         pushConfig
	delay       time.Duration
	pullRequest func(getenv func(string) string) (*PullRequestCheckout, error)
}

// Run pushes the configured branch.
func (p *pushRunner) Run(ctx context.Context, inv *hooks.Invocation) hooks.Outcome {
	r, err := Open(inv.Workspace, envOf(inv))
	if err != nil {
		return failed("git-push: %v", err)
	}
	base, err := workspaceBase(r, inv.Workspace)
	if err != nil {
		return failed("git-push: %v", err)
	}
	o := PushOptions{Remote: p.cfg.Remote, Branch: p.cfg.Branch, Force: p.cfg.Force, SetUpstream: true,
		Retries: 3, RetryDelay: p.delay, Progress: inv.Stderr, Status: inv.Progress,
		AllowSyntheticMerge: p.cfg.AllowSyntheticMerge, AllowForkToBase: p.cfg.AllowForkToBase,
		AllowSecrets: topGlobs(base, p.cfg.AllowSecrets)}
	env := envOf(inv)
	switch {
	case p.pullRequest != nil:
		if o.PullRequest, err = p.pullRequest(env.getenv); err != nil {
			return failed("git-push: %v; nothing was pushed", err)
		}
	case env.getenv("GITHUB_ACTIONS") == "true":
		return failed("git-push: cannot tell which pull request this GitHub Actions run is for; nothing was pushed")
	}
	if p.cfg.SetUpstream != nil {
		o.SetUpstream = *p.cfg.SetUpstream
	}
	if p.cfg.Retries != nil {
		o.Retries = *p.cfg.Retries
	}
	res, err := r.Push(ctx, o)
	var secretErr *SecretError
	if errors.As(err, &secretErr) {
		reason := "git-push: " + secretErr.Error()
		fmt.Fprintln(inv.Stdout, reason)
		return hooks.Outcome{Status: hooks.StatusBlocked, Decision: hooks.DecisionBlock, Reason: reason, ExitCode: 2,
			Details: map[string]any{"remote": o.Remote, "secrets": secretErr.Findings}}
	}
	if err != nil {
		return failed("git-push: %v", err)
	}
	details := map[string]any{"remote": res.Remote, "url": res.URL, "ref": res.RemoteRef, "commitSha": res.Hash,
		"upToDate": res.UpToDate, "attempts": res.Attempts}
	var msg string
	if res.UpToDate {
		msg = fmt.Sprintf("git-push: %s %s is up to date\n", res.Remote, strings.TrimPrefix(res.RemoteRef, "refs/heads/"))
	} else {
		msg = fmt.Sprintf("git-push: pushed %s to %s %s (%s)\n", res.Hash[:7], res.Remote, strings.TrimPrefix(res.RemoteRef, "refs/heads/"), res.URL)
	}
	fmt.Fprint(inv.Stdout, msg)
	return hooks.Outcome{Status: hooks.StatusOK, Stdout: msg, Details: details}
}
