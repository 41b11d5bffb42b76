package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/autoagent/agent-hooks/gitops/githead"
	"io"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cenkalti/backoff/v5"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/autoagent/agent-hooks/gitops/internal/gitindex"
	"github.com/autoagent/agent-hooks/internal/progress"
	"github.com/autoagent/agent-hooks/internal/redact"
)

// PushOptions say what to push where.
type PushOptions struct {
	Remote string // default "origin"
	// Branch is "current" (or "") for the checked-out branch, or a branch name. On a detached HEAD
	// in GitHub Actions, "current" pushes HEAD to $GITHUB_HEAD_REF, else $GITHUB_REF_NAME.
	Branch string
	// Force allows a non-fast-forward update, with a lease: only if the remote branch is still
	// where the remote-tracking branch says it was.
	Force bool
	// SetUpstream records the pushed branch as the local branch's upstream.
	SetUpstream bool
	// Retries is how many times a transient network failure is retried (with backoff).
	Retries int
	// RetryDelay is the first backoff (default 1s); it doubles on each retry.
	RetryDelay time.Duration
	// Progress receives the remote's messages.
	Progress io.Writer
	// Status shows the push's progress to a person watching a terminal (nil: nobody): the remote,
	// the time it has taken and the remote's latest message. The remote's messages then reach
	// Progress once the push is over, not under the status line.
	Status progress.Reporter
	// PullRequest is the pull request of the GitHub Actions run, nil outside one. Push then
	// refuses a commit built on the pull request's synthetic merge commit, and for a pull request
	// from a fork a push to the branch of the same name anywhere but the fork, unless allowed:
	AllowSyntheticMerge bool
	AllowForkToBase     bool
	PullRequest         *PullRequestCheckout
	// AllowSecrets are globs (as Selection.Globs) of files pushed even when they look like
	// secrets. A push whose new commits add or change any other file that does is refused with
	// a *SecretError (see CommitOptions.AllowSecrets).
	AllowSecrets []string
}

// PushResult is what Push did.
type PushResult struct {
	Remote    string
	URL       string // with any credentials removed
	RemoteRef string // refs/heads/<branch> on the remote
	Hash      string // the commit pushed
	UpToDate  bool   // the remote already had it
	Attempts  int
}

// PushError is a push the remote refused or that could not be made; its message never holds a
// credential.
type PushError struct {
	Remote string
	Reason string
	// Rejected is true when the remote refused the update (non-fast-forward, stale lease).
	Rejected bool
	// Auth is true when credentials were missing or refused.
	Auth bool
}

func (e *PushError) Error() string { return fmt.Sprintf("push to %s: %s", e.Remote, e.Reason) }

// target is the source and destination of a push.
type target struct {
	src      string // local ref name, or a commit id for a detached HEAD
	hash     plumbing.Hash
	local    string // local branch name when src is a branch
	dst      plumbing.ReferenceName
	tracking plumbing.ReferenceName
}

func (r *Repo) pushTarget(remote, branch string) (target, error) {
	var t target
	head, err := r.repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return t, fmt.Errorf("read HEAD: %w", err)
	}
	name := branch
	if branch == "" || branch == "current" {
		name = ""
		if head.Type() == plumbing.SymbolicReference {
			name = head.Target().Short()
		} else if r.env.getenv("GITHUB_ACTIONS") == "true" {
			name = r.env.getenv("GITHUB_HEAD_REF")
			if name == "" {
				name = r.env.getenv("GITHUB_REF_NAME")
			}
			if name == "" || strings.HasSuffix(name, "/merge") {
				return t, fmt.Errorf("HEAD is detached and neither GITHUB_HEAD_REF nor GITHUB_REF_NAME names a branch to push to (%q)", name)
			}
		} else {
			return t, errors.New(`HEAD is detached: set "branch" to the branch to push to`)
		}
	}
	name = strings.TrimPrefix(name, "refs/heads/")
	t.dst = plumbing.NewBranchReferenceName(name)
	t.tracking = plumbing.NewRemoteReferenceName(remote, name)
	if ref, err := r.repo.Storer.Reference(t.dst); err == nil && (head.Type() == plumbing.SymbolicReference || branch != "current" && branch != "") {
		t.src, t.hash, t.local = ref.Name().String(), ref.Hash(), name
		return t, nil
	}
	resolved, err := r.repo.Head()
	if err != nil {
		return t, fmt.Errorf("nothing to push: HEAD has no commit: %w", err)
	}
	t.src, t.hash = resolved.Hash().String(), resolved.Hash()
	return t, nil
}

// Push pushes a branch to a remote, retrying transient network failures.
func (r *Repo) Push(ctx context.Context, o PushOptions) (*PushResult, error) {
	if o.Remote == "" {
		o.Remote = "origin"
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = time.Second
	}
	idx, err := gitindex.Read(r.indexPath())
	if err != nil {
		return nil, err
	}
	if err := r.checkFinished("push", idx); err != nil {
		return nil, err
	}
	rem, err := r.repo.Remote(o.Remote)
	if err != nil {
		return nil, &PushError{Remote: o.Remote, Reason: fmt.Sprintf("no remote named %q in this repository", o.Remote)}
	}
	rawURL := r.cfg.Get("remote", o.Remote, "pushurl")
	if rawURL == "" && len(rem.Config().URLs) > 0 {
		rawURL = rem.Config().URLs[0]
	}
	if rawURL == "" {
		return nil, &PushError{Remote: o.Remote, Reason: "the remote has no URL"}
	}
	t, err := r.pushTarget(o.Remote, o.Branch)
	if err != nil {
		return nil, &PushError{Remote: o.Remote, Reason: err.Error()}
	}
	if err := r.checkPullRequestPush(o, t, rawURL); err != nil {
		return nil, &PushError{Remote: o.Remote, Reason: err.Error()}
	}
	pushURL, err := r.transportURL(rawURL, t.dst)
	if err != nil {
		return nil, &PushError{Remote: o.Remote, Reason: err.Error()}
	}
	auth, secrets, err := r.auth(pushURL)
	if err != nil {
		return nil, &PushError{Remote: o.Remote, Reason: err.Error()}
	}
	if u, err := url.Parse(rawURL); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			secrets = append(secrets, p)
		}
	}
	res := &PushResult{Remote: o.Remote, URL: redact.URL(rawURL), RemoteRef: t.dst.String(), Hash: t.hash.String()}
	spec := config.RefSpec(t.src + ":" + t.dst.String())
	opts := &git.PushOptions{RemoteName: o.Remote, RemoteURL: pushURL, RefSpecs: []config.RefSpec{spec}, Auth: auth}
	progressOut := o.Progress
	if o.Status != nil {
		status := progress.Start(o.Status, "push to "+o.Remote, res.URL)
		messages := &remoteMessages{status: status}
		defer func() {
			status.Done()
			if o.Progress != nil {
				_, _ = o.Progress.Write(messages.all.Bytes())
			}
		}()
		progressOut = messages
	}
	if progressOut != nil {
		opts.Progress = &redact.Writer{W: progressOut, Secrets: secrets}
	}
	// RetryDelay doubling, without jitter or a cap (Retries is at most 10), and no limit of its
	// own on the time spent: the hook's timeout (ctx) bounds it. Cancelled while it waits, the
	// push stops with ctx's error rather than try again.
	delays := &backoff.ExponentialBackOff{InitialInterval: o.RetryDelay, Multiplier: 2, MaxInterval: math.MaxInt64}
	checked := false
	_, err = backoff.Retry(ctx, func() (struct{}, error) {
		res.Attempts++
		if !checked {
			// What the remote has, from the remote, over the connection the push makes.
			refs, err := git.NewRemote(r.repo.Storer, &config.RemoteConfig{Name: o.Remote, URLs: []string{pushURL}}).
				ListContext(ctx, &git.ListOptions{Auth: auth})
			if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
				if transient(err) {
					return struct{}{}, err
				}
				return struct{}{}, backoff.Permanent(err)
			}
			if err := r.checkPush(ctx, o.Remote, refs, t.hash, newSecretCheck(o.AllowSecrets)); err != nil {
				var se *SecretError
				if !errors.As(err, &se) {
					err = &uncheckedError{err}
				}
				return struct{}{}, backoff.Permanent(err)
			}
			checked = true
		}
		err := r.pushOnce(ctx, rem, opts, t, o.Force)
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) && transient(err) {
			return struct{}{}, err
		}
		return struct{}{}, backoff.Permanent(err)
	}, backoff.WithBackOff(delays), backoff.WithMaxTries(uint(max(o.Retries, 0))+1), backoff.WithMaxElapsedTime(0),
		backoff.WithNotify(func(err error, delay time.Duration) {
			if progressOut != nil {
				fmt.Fprintf(progressOut, "push to %s failed (%s); retrying in %s\n", o.Remote, redact.String(err.Error(), secrets), delay)
			}
		}))
	var secretErr *SecretError
	var unchecked *uncheckedError
	switch {
	case errors.Is(err, git.NoErrAlreadyUpToDate):
		res.UpToDate = true
	case errors.As(err, &secretErr):
		return res, secretErr
	case errors.As(err, &unchecked):
		// Not the remote's answer: nothing was sent, and no push error's words fit.
		return res, fmt.Errorf("push to %s: nothing pushed: the commits to push could not be checked for secrets: %w", o.Remote, unchecked.err)
	case err != nil:
		return res, explainPushError(o.Remote, t, err, secrets, res.Attempts)
	}
	if o.SetUpstream && t.local != "" {
		if err := r.setUpstream(t.local, o.Remote, t.dst); err != nil {
			return res, err
		}
	}
	return res, nil
}

func (r *Repo) pushOnce(ctx context.Context, rem *git.Remote, opts *git.PushOptions, t target, force bool) error {
	o := *opts
	if force {
		// The lease: the remote branch must still be where our remote-tracking branch says.
		var want plumbing.Hash
		if ref, err := r.repo.Storer.Reference(t.tracking); err == nil {
			want = ref.Hash()
		}
		refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: o.Auth})
		if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return err
		}
		var have plumbing.Hash
		for _, ref := range refs {
			if ref.Name() == t.dst {
				have = ref.Hash()
			}
		}
		if have != want {
			return errStaleLease
		}
		switch {
		case want.IsZero():
			// The lease is that the branch does not exist: a plain push creates it, and does not
			// replace one that appeared meanwhile unless that is a fast-forward.
		case t.local != "":
			// The lease again, against what the remote answers in the push itself, so that a
			// commit arriving after the look above is not overwritten.
			o.ForceWithLease = &git.ForceWithLease{RefName: t.dst, Hash: want}
		default:
			o.Force = true
		}
	}
	err := rem.PushContext(ctx, &o)
	if err != nil && o.ForceWithLease != nil && strings.Contains(err.Error(), "non-fast-forward update") {
		return errStaleLease
	}
	return err
}

var errStaleLease = errors.New("stale lease")

// uncheckedError is a failure of the check of the commits a push would send (reading them), as
// opposed to the remote's refusal: the push is not made.
type uncheckedError struct{ err error }

func (e *uncheckedError) Error() string { return e.err.Error() }
func (e *uncheckedError) Unwrap() error { return e.err }

// explainPushError turns go-git's errors into messages a user can act on, without credentials.
func explainPushError(remote string, t target, err error, secrets []string, attempts int) error {
	msg := redact.String(err.Error(), secrets)
	e := &PushError{Remote: remote}
	switch {
	case errors.Is(err, errStaleLease):
		e.Rejected = true
		e.Reason = fmt.Sprintf("rejected: %s changed on the remote since it was last fetched (force with lease refused); fetch first. The local commit is kept", t.dst.Short())
	case strings.Contains(msg, "non-fast-forward") || errors.Is(err, plumbing.ErrObjectNotFound):
		e.Rejected = true
		e.Reason = fmt.Sprintf("rejected: %s on the remote has commits that are not in the local branch (non-fast-forward); fetch and integrate them, or set \"force\": true. The local commit is kept", t.dst.Short())
	case errors.Is(err, transport.ErrAuthenticationRequired):
		e.Auth = true
		e.Reason = "authentication required: the remote refused the credentials (set GITHUB_TOKEN or GH_TOKEN for https remotes; they are sent only to github.com, *.ghe.com, the host of GITHUB_SERVER_URL or GH_HOST)"
	case errors.Is(err, transport.ErrAuthorizationFailed):
		e.Auth = true
		e.Reason = "authorization failed: the credentials may not push to this repository"
	case errors.Is(err, transport.ErrRepositoryNotFound):
		e.Reason = "repository not found (or the credentials cannot see it)"
	case transient(err):
		e.Reason = fmt.Sprintf("%s (gave up after %d attempts)", msg, attempts)
		if attempts == 1 {
			e.Reason = msg + " (not retried: retries is 0)"
		}
	default:
		e.Reason = msg
	}
	return e
}

// transient reports whether a push failure is worth retrying: network errors, a connection cut
// short, or an HTTP 5xx/429 answer. A remote that kept silent past a limit (TimeoutError) is not
// retried: the limit was the wait.
func transient(err error) bool {
	var timeout *TimeoutError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &timeout) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var ue *plumbing.UnexpectedError
	if errors.As(err, &ue) {
		var he *githttp.Err
		if errors.As(ue.Err, &he) {
			code := he.StatusCode()
			return code >= 500 || code == 429
		}
	}
	return false
}

// transportURL is the URL go-git pushes to. Local repositories (paths and file:// URLs) are
// served in-process, so no git-receive-pack is spawned; a relative path is taken from the top of
// the work tree.
func (r *Repo) transportURL(raw string, dst plumbing.ReferenceName) (string, error) {
	var p string
	if u, err := url.Parse(raw); err == nil && u.Scheme == "file" {
		p = filepath.FromSlash(u.Path)
	} else if !hasScheme().MatchString(raw) && !scpLike().MatchString(raw) {
		// A path; go-git would resolve a relative one against the process's directory.
		p = filepath.FromSlash(raw)
		if !filepath.IsAbs(p) {
			p = filepath.Join(r.Root, p)
		}
	} else {
		if _, err := transport.NewEndpoint(raw); err != nil {
			return "", urlError(raw, err)
		}
		return raw, nil
	}
	gitDir, bare, err := localGitDir(p)
	if err != nil {
		return "", err
	}
	if !bare {
		if head, err := os.ReadFile(filepath.Join(gitDir, "HEAD")); err == nil &&
			strings.TrimSpace(string(head)) == "ref: "+dst.String() {
			return "", fmt.Errorf("refusing to update the checked-out branch %s of the non-bare repository %s", dst.Short(), p)
		}
	}
	return (&url.URL{Scheme: localScheme, Path: filepath.ToSlash(gitDir)}).String(), nil
}

// localGitDir finds the git directory of a local repository path.
func localGitDir(p string) (dir string, bare bool, err error) {
	if fi, err := os.Stat(filepath.Join(p, ".git")); err == nil {
		if fi.IsDir() {
			return filepath.Join(p, ".git"), false, nil
		}
		gd, err := githead.ReadGitFile(filepath.Join(p, ".git"))
		return gd, false, err
	}
	if _, err := os.Stat(filepath.Join(p, "objects")); err == nil {
		return p, true, nil
	}
	return "", false, fmt.Errorf("%s is not a git repository", p)
}

func (r *Repo) setUpstream(local, remote string, dst plumbing.ReferenceName) error {
	cfg, err := r.repo.Config()
	if err != nil {
		return fmt.Errorf("set upstream: %w", err)
	}
	if b, ok := cfg.Branches[local]; ok && b.Remote == remote && b.Merge == dst {
		return nil
	}
	cfg.Branches[local] = &config.Branch{Name: local, Remote: remote, Merge: dst}
	if err := r.repo.SetConfig(cfg); err != nil {
		return fmt.Errorf("set upstream: %w", err)
	}
	return nil
}

var (
	hasScheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`) })
	scpLike   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[^@/:]+@)?[^@/:]+:`) }) // git@host:owner/repo
)

// urlError says why a remote URL cannot be read without showing its credentials: Go's URL
// parser quotes the whole URL in its errors, and a malformed one may defeat redact.URL.
func urlError(raw string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg, shown := err.Error(), raw
	if i := strings.Index(raw, "://"); i >= 0 {
		if j := strings.LastIndex(raw, "@"); j > i {
			for _, part := range strings.FieldsFunc(raw[i+3:j], func(r rune) bool { return r == ':' || r == '/' || r == ' ' }) {
				if len(part) >= 4 {
					msg = strings.ReplaceAll(msg, part, "***")
				}
			}
			shown = raw[:i+3] + "***" + raw[j:]
		}
	}
	return fmt.Errorf("remote URL %s: %s", shown, msg)
}

// remoteMessages keeps what a push writes while its status is shown (the remote's messages, the
// retries), to be written once the push is over, and shows the latest line of it as the status's
// detail.
type remoteMessages struct {
	status progress.Task
	all    bytes.Buffer
	line   []byte // the line being written, up to its \r or \n
}

func (m *remoteMessages) Write(p []byte) (int, error) {
	m.all.Write(p)
	for _, c := range p {
		if c != '\r' && c != '\n' {
			m.line = append(m.line, c)
			continue
		}
		if line := strings.TrimSpace(string(m.line)); line != "" {
			m.status.Detail(line)
		}
		m.line = m.line[:0]
	}
	return len(p), nil
}
